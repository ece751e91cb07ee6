"""TypeSet: which inferred types occur among a text column's values, one cheap aggregate each.

Type detection only needs to know which types occur (Deequ's rule, `detected_type`), not how
often: one ``bit_or`` over a per-value type code (`type_code`). The code runs ONE regex per value,
the union of `DataType` 's three, and tells the matched types apart by characters only one of
them can hold; `DataType` runs its regexes up to five times per value. Both agree on every value.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

from anomaly.analyzers.base import ScanShareableAnalyzer
from anomaly.analyzers.state import State, check_same_kind
from anomaly.suggestion.sql import quoted

if TYPE_CHECKING:
    from pyspark.sql import Column
    from pyspark.sql.types import StructType

BITS = ("Fractional", "Integral", "Boolean", "String")
"""Bit i of the mask is set when a value of type BITS[i] occurs (nulls set no bit)."""
TYPED = r"^\s*(?:[+-]?(?:\d+(?:\.\d*)?(?:[eE][+-]?\d+)?|\.\d+)|(?i:true|false))\s*$"
"""The union of `INTEGRAL`, `FRACTIONAL` and `BOOLEAN` (same anchors, same whitespace)."""


def type_code(value: Column) -> Column:
    """The `BITS` bit of a text value's inferred type (null for null), as `DataType` infers it.

    A `TYPED` match is Boolean when it holds an 'a' or 'u' (false, true: numbers hold neither),
    else Fractional when it holds '.', 'e' or 'E' (integers hold none), else Integral.
    """
    from pyspark.sql import functions as F

    boolean = value.contains("a") | value.contains("u") | value.contains("A") | value.contains("U")
    fractional = value.contains(".") | value.contains("e") | value.contains("E")
    typed = F.when(boolean, 4).when(fractional, 1).otherwise(2)
    return F.when(value.rlike(TYPED), typed).when(value.isNotNull(), 8)


@dataclass(frozen=True)
class TypeSetState(State):
    """A bit mask of the types seen; merging is bitwise or, 0 the identity.

    >>> TypeSetState(0b10).merge(TypeSetState(0b01)).types()
    ('Fractional', 'Integral')
    """

    kind: ClassVar[str] = "type_set"
    mask: int

    @classmethod
    def identity(cls) -> TypeSetState:
        return cls(0)

    def merge(self, other: TypeSetState) -> TypeSetState:
        check_same_kind(self, other)
        return TypeSetState(self.mask | other.mask)

    def types(self) -> tuple[str, ...]:
        """The types seen, in `BITS` order."""
        return tuple(t for i, t in enumerate(BITS) if self.mask >> i & 1)


@dataclass(frozen=True)
class TypeSet(ScanShareableAnalyzer[TypeSetState]):
    """The inferred types present among the non-null values of a text column (1.0 each).

    Examples
    --------
    >>> TypeSet("zip").metric(TypeSetState(0b0110)).value
    {'Integral': 1.0, 'Boolean': 1.0}
    """

    column: str
    where: str | None = None
    metric_name: ClassVar[str] = "TypeSet"

    @property
    def columns(self) -> tuple[str, ...]:
        return (self.column,)

    def check_schema(self, schema: StructType) -> str | None:
        missing = super().check_schema(schema)
        kind = schema[self.column].dataType.simpleString() if missing is None else None
        if kind is not None and kind != "string":
            return f"{self.metric_id}: column {self.column!r} has type {kind}; TypeSet reads text"
        return missing

    def aggregations(self, schema: StructType) -> list[Column]:
        from pyspark.sql import functions as F

        return [F.bit_or(self.filtered(type_code(F.col(quoted(self.column)))))]

    def state_from_row(self, values: Sequence[Any]) -> TypeSetState:
        return TypeSetState(int(values[0] or 0))

    def empty_state(self) -> TypeSetState:
        return TypeSetState.identity()

    def compute_metric(self, state: TypeSetState) -> dict[str, float]:
        return dict.fromkeys(state.types(), 1.0)

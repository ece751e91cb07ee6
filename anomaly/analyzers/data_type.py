"""DataType: how many values of a column look integral, fractional, boolean or string."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

from anomaly.analyzers.base import (
    INTEGRAL_TYPES,
    ScanShareableAnalyzer,
    is_numeric,
    projection_name,
)
from anomaly.analyzers.columns import col, field_type
from anomaly.analyzers.state import SummedState

if TYPE_CHECKING:
    from pyspark.sql import Column
    from pyspark.sql.types import StructType

TYPES = ("Unknown", "Fractional", "Integral", "Boolean", "String")
INTEGRAL = r"^\s*[+-]?\d+\s*$"
FRACTIONAL = r"^\s*[+-]?(\d+\.\d*|\.\d+|\d+(\.\d*)?[eE][+-]?\d+)\s*$"
BOOLEAN = r"^\s*(?i)(true|false)\s*$"


@dataclass(frozen=True)
class DataTypeState(SummedState):
    """Counts per inferred type; Unknown counts nulls."""

    kind: ClassVar[str] = "data_type"
    unknown: int
    fractional: int
    integral: int
    boolean: int
    string: int

    def counts(self) -> tuple[int, int, int, int, int]:
        """Counts in the order of `TYPES`."""
        return (self.unknown, self.fractional, self.integral, self.boolean, self.string)


def value_type(schema: StructType, column: str) -> Column:
    """The type name (one of `TYPES`) of each row's value of `column`: inferred from the text
    of a string column, the column's own type otherwise; ``Unknown`` for null."""
    from pyspark.sql import functions as F

    value = col(schema, column)
    kind = field_type(schema, column).simpleString()
    if kind == "string":
        return (
            F.when(value.isNull(), "Unknown")
            .when(value.rlike(INTEGRAL), "Integral")
            .when(value.rlike(FRACTIONAL), "Fractional")
            .when(value.rlike(BOOLEAN), "Boolean")
            .otherwise("String")
        )
    own = "Boolean" if kind == "boolean" else "String"
    if is_numeric(kind):
        own = "Integral" if kind in INTEGRAL_TYPES or kind.endswith(",0)") else "Fractional"
    return F.when(value.isNull(), "Unknown").otherwise(own)


@dataclass(frozen=True)
class DataType(ScanShareableAnalyzer[DataTypeState]):
    """Distribution of inferred types; typed (non-string) columns count as their own type.

    The metric has one value per type, ``abs.<Type>`` (count) and ``ratio.<Type>``.

    Examples
    --------
    >>> m = DataType("zip").metric(DataTypeState(1, 0, 3, 0, 0))
    >>> m.value["ratio.Integral"], m.value["abs.Unknown"]
    (0.75, 1.0)
    """

    column: str
    where: str | None = None
    metric_name: ClassVar[str] = "DataType"

    @property
    def columns(self) -> tuple[str, ...]:
        return (self.column,)

    def projections(self, schema: StructType) -> dict[str, Column]:
        if self.column_type(schema, self.column) != "string":
            return {}
        # Projected once per row: inside the five counts the regex chain ran five times.
        return {projection_name("type", self.column): value_type(schema, self.column)}

    def aggregations(self, schema: StructType) -> list[Column]:
        from pyspark.sql import functions as F

        if self.column_type(schema, self.column) == "string":
            inferred = F.col(projection_name("type", self.column))
        else:
            inferred = value_type(schema, self.column)
        inferred = self.filtered(inferred)
        return [F.count(F.when(inferred == t, 1)) for t in TYPES]

    def state_from_row(self, values: Sequence[Any]) -> DataTypeState:
        return DataTypeState(*(int(v or 0) for v in values[:5]))

    def empty_state(self) -> DataTypeState:
        return DataTypeState.identity()

    def compute_metric(self, state: DataTypeState) -> dict[str, float]:
        total = sum(state.counts())
        if total == 0:
            raise self.nothing_to_measure()
        value: dict[str, float] = {}
        for name, count in zip(TYPES, state.counts(), strict=True):
            value[f"abs.{name}"] = float(count)
            value[f"ratio.{name}"] = count / total
        return value

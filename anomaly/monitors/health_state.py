"""The mergeable state of a column's health: counts, sketches, extremes, moments, top values."""

from __future__ import annotations

import base64
import json
from collections import Counter
from dataclasses import dataclass
from typing import Any, ClassVar, Self

from anomaly.analyzers.extremes import MaxState, MinState
from anomaly.analyzers.sketch_state import HllState, KllState
from anomaly.analyzers.slot import TOP_VALUES
from anomaly.analyzers.standard_deviation import MomentsState
from anomaly.analyzers.state import State, check_same_kind
from anomaly.errors import StateError

Top = tuple[tuple[str, int], ...]


@dataclass(frozen=True)
class ColumnHealthState(State):
    """What one pass learns about a column of one `category` (``numeric``, ``string``...).

    `present` counts non-null values; `distinct` is their HLL sketch; `numbers` the values
    with a number (the value, a text's length, a time's epoch seconds...: see `ColumnHealth`)
    and `minimum` ... `quantiles` (a KLL sketch) describe those; `zeros`/`negatives` count
    them; `top` holds every text value with its count while there are at most `TOP_VALUES`
    distinct ones (None beyond: the union of two such states may have too many).

    Examples
    --------
    >>> a = ColumnHealthState.identity()
    >>> b = ColumnHealthState("string", rows=3, present=2, top=(("ok", 2),))
    >>> c = ColumnHealthState("string", rows=1, present=1, top=(("no", 1),))
    >>> merged = a.merge(b).merge(c)
    >>> merged.rows, merged.top
    (4, (('ok', 2), ('no', 1)))
    """

    kind: ClassVar[str] = "column_health"
    category: str = ""
    rows: int = 0
    present: int = 0
    distinct: bytes | None = None
    numbers: int = 0
    minimum: float | None = None
    maximum: float | None = None
    total: float = 0.0
    m2: float = 0.0
    quantiles: bytes | None = None
    zeros: int = 0
    negatives: int = 0
    top: Top | None = ()

    @classmethod
    def identity(cls) -> ColumnHealthState:
        return cls()

    def merge(self, other: ColumnHealthState) -> ColumnHealthState:
        check_same_kind(self, other)
        if self.category and other.category and self.category != other.category:
            raise StateError(
                f"cannot merge the health of a {self.category} column with that of a "
                f"{other.category} column (was the column retyped between the parts?)"
            )
        moments = self.moments().merge(other.moments())
        return ColumnHealthState(
            self.category or other.category,
            self.rows + other.rows,
            self.present + other.present,
            HllState(self.distinct).merge(HllState(other.distinct)).sketch,
            moments.n,
            MinState(self.minimum).merge(MinState(other.minimum)).value,
            MaxState(self.maximum).merge(MaxState(other.maximum)).value,
            self.total + other.total,
            moments.m2,
            KllState(self.quantiles).merge(KllState(other.quantiles)).sketch,
            self.zeros + other.zeros,
            self.negatives + other.negatives,
            merge_top(self.top, other.top),
        )

    def moments(self) -> MomentsState:
        """Count, mean and M2 of the numbers."""
        if not self.numbers:
            return MomentsState.identity()
        return MomentsState(self.numbers, self.total / self.numbers, self.m2)

    def payload(self) -> bytes:
        fields: dict[str, Any] = dict(self.__dict__)
        for name in ("distinct", "quantiles"):
            if fields[name] is not None:
                fields[name] = base64.b64encode(fields[name]).decode()
        return json.dumps(fields).encode()

    @classmethod
    def from_payload(cls, data: bytes) -> Self:
        fields = json.loads(data)
        for name, sketch in (("distinct", HllState), ("quantiles", KllState)):
            if fields[name] is not None:
                fields[name] = base64.b64decode(fields[name])
                sketch.read(fields[name])  # corrupt bytes fail here, not at first use
        if fields["top"] is not None:
            fields["top"] = tuple((str(v), int(n)) for v, n in fields["top"])
        return cls(**fields)


def merge_top(a: Top | None, b: Top | None) -> Top | None:
    """Counts of both, most frequent first (ties by value); None once there are too many.

    >>> merge_top((("a", 1),), (("b", 2), ("a", 2)))
    (('a', 3), ('b', 2))
    >>> merge_top((("a", 1),), None) is None
    True
    """
    if a is None or b is None:
        return None
    counts = Counter(dict(a))
    counts.update(dict(b))
    if len(counts) > TOP_VALUES:
        return None
    return tuple(sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))

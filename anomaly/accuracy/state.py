"""AccuracyState: matched and measured source rows, plus a bottom-k sample of unmatched keys."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, ClassVar

from anomaly.analyzers.state import State, check_same_kind

Sample = tuple[tuple[int, tuple[Any, ...]], ...]
"""(hash of the key, key values) of unmatched source rows, ordered by hash then text."""


@dataclass(frozen=True)
class AccuracyState(State):
    """Sufficient statistics of Accuracy; merging adds the counts and keeps the `limit` unmatched
    keys of smallest hash (a bottom-k sample), so the state of a union is the merge of states.

    Examples
    --------
    >>> a = AccuracyState(matched=8, total=10, sample=((7, (3,)), (-2, (9,))), limit=2)
    >>> b = AccuracyState(matched=5, total=5, sample=((1, (4,)),), limit=2)
    >>> merged = a.merge(b)
    >>> merged.matched, merged.total, merged.sample
    (13, 15, ((-2, (9,)), (1, (4,))))
    >>> merged == b.merge(a) and a.merge(AccuracyState.identity()) == a
    True
    """

    kind: ClassVar[str] = "accuracy"
    matched: int
    total: int
    sample: Sample = ()
    limit: int = 0

    def __post_init__(self) -> None:
        ordered = tuple(sorted(self.sample, key=_order))[: self.limit]
        object.__setattr__(self, "sample", ordered)

    @classmethod
    def identity(cls) -> AccuracyState:
        return cls(0, 0)

    def merge(self, other: AccuracyState) -> AccuracyState:
        check_same_kind(self, other)
        return AccuracyState(
            self.matched + other.matched,
            self.total + other.total,
            self.sample + other.sample,
            max(self.limit, other.limit),
        )

    def payload(self) -> bytes:
        # Key values may be dates or decimals: stored as their text, enough for a diagnostic.
        return json.dumps(
            {
                "matched": self.matched,
                "total": self.total,
                "limit": self.limit,
                "sample": [[h, list(values)] for h, values in self.sample],
            },
            default=str,
        ).encode()

    @classmethod
    def from_payload(cls, data: bytes) -> AccuracyState:
        fields = json.loads(data)
        sample = tuple((int(h), tuple(values)) for h, values in fields.pop("sample"))
        return cls(sample=sample, **fields)


def _order(entry: tuple[int, tuple[Any, ...]]) -> tuple[int, str]:
    return entry[0], repr(entry[1])

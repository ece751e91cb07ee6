"""Distribution: the value handed to histogram assertions."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass


@dataclass(frozen=True)
class Distribution:
    """A histogram metric as counts and ratios per value (``NullValue`` for nulls).

    Examples
    --------
    >>> d = Distribution.of({"bins": 2.0, "abs.phone": 3.0, "ratio.phone": 0.75,
    ...                      "abs.tv": 1.0, "ratio.tv": 0.25})
    >>> d.bins, d.ratio("phone"), d.abs("tv"), d.ratio("radio")
    (2, 0.75, 1, 0.0)
    """

    bins: int
    counts: Mapping[str, int]
    ratios: Mapping[str, float]

    @classmethod
    def of(cls, value: Mapping[str, float]) -> Distribution:
        """From a flattened Histogram metric value."""
        counts = {k[4:]: int(v) for k, v in value.items() if k.startswith("abs.")}
        ratios = {k[6:]: float(v) for k, v in value.items() if k.startswith("ratio.")}
        return cls(int(value.get("bins", len(counts))), counts, ratios)

    def abs(self, value: str) -> int:
        """How many rows have `value` (0 when absent or beyond the detail bins)."""
        return self.counts.get(value, 0)

    def ratio(self, value: str) -> float:
        """The fraction of rows with `value` (0.0 when absent or beyond the detail bins)."""
        return self.ratios.get(value, 0.0)

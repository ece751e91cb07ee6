"""CountDistinct: number of distinct value tuples."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from anomaly.analyzers.frequency import FrequencySummary
from anomaly.analyzers.multicolumn import MultiColumnFrequencyAnalyzer


@dataclass(frozen=True)
class CountDistinct(MultiColumnFrequencyAnalyzer):
    """CountDistinct of `column_names`: number of distinct value tuples.

    Examples
    --------
    >>> a = CountDistinct(["first", "last"])
    >>> a.metric_id, a.entity
    ('CountDistinct(first, last)', 'Multicolumn')
    >>> round(a.metric_from_summary(FrequencySummary(2, 3, 1, 1.386294), ()), 6)
    2.0
    """

    column_names: str | Sequence[str]
    where: str | None = None
    metric_name: ClassVar[str] = "CountDistinct"

    def metric_from_summary(self, summary: FrequencySummary, extra: Sequence[Any]) -> float:
        return float(summary.distinct)

"""UniqueValueRatio: value tuples occurring exactly once / distinct value tuples."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from anomaly.analyzers.frequency import FrequencySummary
from anomaly.analyzers.multicolumn import MultiColumnFrequencyAnalyzer


@dataclass(frozen=True)
class UniqueValueRatio(MultiColumnFrequencyAnalyzer):
    """UniqueValueRatio of `column_names`: tuples occurring exactly once / distinct tuples.

    Examples
    --------
    >>> a = UniqueValueRatio(["first", "last"])
    >>> a.metric_id, a.entity
    ('UniqueValueRatio(first, last)', 'Multicolumn')
    >>> round(a.metric_from_summary(FrequencySummary(2, 3, 1, 1.386294), ()), 6)
    0.5
    """

    column_names: str | Sequence[str]
    where: str | None = None
    metric_name: ClassVar[str] = "UniqueValueRatio"

    def metric_from_summary(self, summary: FrequencySummary, extra: Sequence[Any]) -> float:
        self.checked_rows(summary)
        return summary.singletons / summary.distinct

"""Distinctness: distinct value tuples / rows with a value."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from anomaly.analyzers.frequency import FrequencySummary
from anomaly.analyzers.multicolumn import MultiColumnFrequencyAnalyzer


@dataclass(frozen=True)
class Distinctness(MultiColumnFrequencyAnalyzer):
    """Distinctness of `column_names`: distinct value tuples / rows with a value.

    Examples
    --------
    >>> a = Distinctness(["first", "last"])
    >>> a.metric_id, a.entity
    ('Distinctness(first, last)', 'Multicolumn')
    >>> round(a.metric_from_summary(FrequencySummary(2, 3, 1, 1.386294), ()), 6)
    0.666667
    """

    column_names: str | Sequence[str]
    where: str | None = None
    metric_name: ClassVar[str] = "Distinctness"

    def metric_from_summary(self, summary: FrequencySummary, extra: Sequence[Any]) -> float:
        return summary.distinct / self.checked_rows(summary)

"""Uniqueness: value tuples that occur exactly once / rows with a value."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from anomaly.analyzers.frequency import FrequencySummary
from anomaly.analyzers.multicolumn import MultiColumnFrequencyAnalyzer


@dataclass(frozen=True)
class Uniqueness(MultiColumnFrequencyAnalyzer):
    """Uniqueness of `column_names`: value tuples that occur exactly once / rows with a value.

    Examples
    --------
    >>> a = Uniqueness(["first", "last"])
    >>> a.metric_id, a.entity
    ('Uniqueness(first, last)', 'Multicolumn')
    >>> round(a.metric_from_summary(FrequencySummary(2, 3, 1, 1.386294), ()), 6)
    0.333333
    """

    column_names: str | Sequence[str]
    where: str | None = None
    metric_name: ClassVar[str] = "Uniqueness"

    def metric_from_summary(self, summary: FrequencySummary, extra: Sequence[Any]) -> float:
        return summary.singletons / self.checked_rows(summary)

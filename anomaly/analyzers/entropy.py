"""Entropy of a column's value distribution."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from anomaly.analyzers.frequency import FrequencyAnalyzer, FrequencySummary, entropy


@dataclass(frozen=True)
class Entropy(FrequencyAnalyzer):
    """Shannon entropy (natural log) of the non-null values of `column`.

    Examples
    --------
    >>> round(Entropy("c").metric_from_summary(FrequencySummary(2, 4, 0, 2.772589), ()), 6)
    0.693147
    """

    column: str
    where: str | None = None
    metric_name: ClassVar[str] = "Entropy"

    @property
    def columns(self) -> tuple[str, ...]:
        return (self.column,)

    def metric_from_summary(self, summary: FrequencySummary, extra: Sequence[Any]) -> float:
        self.checked_rows(summary)
        return entropy(summary)

"""Sum of a numeric column."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from anomaly.analyzers.mean import MeanState, SumAndCount


@dataclass(frozen=True)
class Sum(SumAndCount):
    """Sum of the non-null values of `column`; fails when there are none (as Deequ).

    The state keeps the count too, so "no values" stays distinguishable from a sum of 0.

    Examples
    --------
    >>> Sum("amount").metric(MeanState(10.0, 4)).value
    10.0
    """

    column: str
    where: str | None = None
    metric_name: ClassVar[str] = "Sum"

    def compute_metric(self, state: MeanState) -> float:
        if state.count == 0:
            raise self.nothing_to_measure("non-null values")
        return state.total

"""Coverage of suggestions on data they were not made from (Schelter et al., PVLDB 2018, §5.3)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from anomaly.engine.runner import AnalysisRunner
from anomaly.suggestion.suggestion import Suggestion

if TYPE_CHECKING:
    from pyspark.sql import DataFrame


@dataclass(frozen=True)
class Coverage:
    """How a suggestion fares on test data: its metric `value`, whether it `holds`, `coverage`.

    Examples
    --------
    >>> from anomaly.analyzers import Uniqueness
    >>> s = Suggestion("n", "Unique", "is_unique", 'is_unique("n")', "", Uniqueness("n"))
    >>> Coverage.of(s, 0.636)
    Coverage(suggestion=..., value=0.636, holds=False, coverage=0.636, error=None)
    """

    suggestion: Suggestion
    value: float
    holds: bool
    coverage: float
    error: str | None = None

    @classmethod
    def of(cls, suggestion: Suggestion, value: float) -> Coverage:
        """The coverage of `suggestion` for a metric `value` of its analyzer."""
        return cls(suggestion, value, suggestion.holds(value), suggestion.coverage(value))

    def to_dict(self) -> dict[str, Any]:
        """The suggestion's mapping plus the measured value, holds and coverage."""
        return {
            **self.suggestion.to_dict(),
            "test_value": None if math.isnan(self.value) else self.value,
            "holds": self.holds,
            "coverage": self.coverage,
            "error": self.error,
        }


def coverage(df: DataFrame, suggestions: Sequence[Suggestion]) -> list[Coverage]:
    """Measure every suggestion on `df` in one analysis run (one shared scan, plus one pass per
    unique suggestion, whose Uniqueness needs value frequencies)."""
    if not suggestions:
        return []
    analyzers = [s.analyzer for s in suggestions]
    context = AnalysisRunner().on_data(df).add_analyzers(analyzers).run()
    result = []
    for suggestion in suggestions:
        metric = context[suggestion.analyzer]
        if metric.succeeded and isinstance(metric.value, float | int):
            result.append(Coverage.of(suggestion, float(metric.value)))
        else:
            result.append(Coverage(suggestion, math.nan, False, 0.0, metric.error))
    return result

"""Metrics of several values of which some are stored as context only (not judged)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, fields

from anomaly.metrics import Metric
from repository.records import MetricRecord


@dataclass(frozen=True)
class PartlyJudgedMetric(Metric):
    """A multi-valued metric whose `context` keys are stored but not judged: extremes of a
    sample jump from run to run with no change in the data, and would alert on noise.

    Examples
    --------
    >>> m = Metric("Column", "x", "H", "H(x)", {"mean": 2.0, "maximum": 9.0})
    >>> partly = PartlyJudgedMetric.of(m, frozenset({"maximum"}))
    >>> [r.metric_id for r in partly.records()], [r.metric_id for r in partly.judged_records()]
    (['H(x)[mean]', 'H(x)[maximum]'], ['H(x)[mean]'])
    """

    context: frozenset[str] = frozenset()

    @classmethod
    def of(cls, metric: Metric, context: frozenset[str]) -> PartlyJudgedMetric:
        """`metric` with `context` keys left out of judging."""
        return cls(**{f.name: getattr(metric, f.name) for f in fields(Metric)}, context=context)

    def judged_records(self) -> Iterator[MetricRecord]:
        skipped = {f"{self.metric_id}[{key}]" for key in self.context}
        if not isinstance(self.value, Mapping):
            return super().records()
        return (r for r in self.records() if r.metric_id not in skipped)

"""AnalyzerContext: the result of a run, analyzer (and group) -> Metric."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import pandas as pd

from anomaly.metrics import GroupKey, Metric, group_key
from repository.records import MetricRecord

if TYPE_CHECKING:
    from anomaly.analyzers.base import Analyzer
    from anomaly.analyzers.state import State

ResultKey = tuple["Analyzer[Any]", GroupKey]


@dataclass(frozen=True)
class AnalyzerContext:
    """Metrics of one run: one `Metric` per analyzer and group; iterates as metric records.

    Iterating yields `repository.MetricRecord` s, so ``repo.save(key, context)`` stores the run.

    Examples
    --------
    >>> from anomaly.analyzers import Size
    >>> from anomaly.analyzers.state import CountState
    >>> context = AnalyzerContext({(Size(), ()): Size().metric(CountState(5))})
    >>> context[Size()].value
    5.0
    >>> context.to_pandas()[["entity", "instance", "name", "value"]].to_dict("records")
    [{'entity': 'Dataset', 'instance': '*', 'name': 'Size', 'value': 5.0}]
    """

    metrics: Mapping[ResultKey, Metric]
    group_columns: tuple[str, ...] = ()
    states: Mapping[ResultKey, State] = field(default_factory=dict)
    delta: AnalyzerContext | None = None
    """With ``aggregate_with``: the metrics of the new data alone (``on="delta"``)."""

    def __getitem__(self, analyzer: Analyzer[Any]) -> Metric:
        if self.group_columns:
            raise KeyError(
                f"this run is grouped by {list(self.group_columns)}: use "
                f"context.metric({analyzer}, group=(...)) or context.for_analyzer({analyzer})"
            )
        return self.metrics[(analyzer, ())]

    def metric(self, analyzer: Analyzer[Any], group: GroupKey = ()) -> Metric:
        """The metric of `analyzer` for the group with key `group` (values in group_by order)."""
        return self.metrics[(analyzer, group_key(group))]

    def for_analyzer(self, analyzer: Analyzer[Any]) -> dict[GroupKey, Metric]:
        """Group key -> metric for one analyzer."""
        return {g: m for (a, g), m in self.metrics.items() if a == analyzer}

    @property
    def analyzers(self) -> list[Analyzer[Any]]:
        """The analyzers of the run, in the order they were added."""
        return list(dict.fromkeys(a for a, _ in self.metrics))

    @property
    def groups(self) -> list[GroupKey]:
        """The group keys seen in the run (``[()]`` when not grouped)."""
        return list(dict.fromkeys(g for _, g in self.metrics))

    def __iter__(self) -> Iterator[MetricRecord]:
        for metric in self.metrics.values():
            yield from metric.records()

    def __len__(self) -> int:
        return len(self.metrics)

    @property
    def failures(self) -> list[Metric]:
        """The metrics that could not be computed."""
        return [m for m in self.metrics.values() if not m.succeeded]

    def to_pandas(self) -> pd.DataFrame:
        """One row per record: entity, instance, name, value, metric_id, error, group columns."""
        rows = [
            {
                "entity": r.entity,
                "instance": r.instance,
                "name": r.name,
                "value": r.value,
                "metric_id": r.metric_id,
                "error": r.error,
                **dict(r.group),
            }
            for r in self
        ]
        columns = ["entity", "instance", "name", "value", "metric_id", "error"]
        return pd.DataFrame(rows, columns=[*columns, *self.group_columns])

"""The query builder returned by ``MetricsRepository.load()``."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, cast

import pyarrow as pa

from repository.backends.base import Backend, Cursor
from repository.filters import Where
from repository.frames import group_values, run_tags, to_frame
from repository.keys import (
    HasMetricId,
    ResultKey,
    TimeLike,
    check_group,
    check_tags,
    metric_id_of,
    to_epoch_ms,
)
from repository.records import MetricRecord, RunResult

if TYPE_CHECKING:  # pandas loads where a frame is built: read-only commands never need it
    import pandas as pd

POINT_COLUMNS = (
    "entity", "instance", "name", "metric_id", "value", "error", "timestamp", "group_key"
)  # fmt: skip
"""The fixed columns of ``to_pandas()``; group columns then tag columns (sorted) follow.

``group_key`` is the group's canonical JSON (``[]`` for the whole dataset, as in the SQL views):
a group column shows ``None`` both for a null value and for a row without that column, and
``group_key`` tells them apart (``[["country",null]]`` against ``[]``)."""


def metric_ids(metrics: str | HasMetricId | Iterable[str | HasMetricId]) -> list[str]:
    """Metric ids from one id/analyzer or an iterable of them."""
    if isinstance(metrics, str) or hasattr(metrics, "metric_id"):
        return [metric_id_of(cast("str | HasMetricId", metrics))]
    return [metric_id_of(m) for m in cast("Iterable[str | HasMetricId]", metrics)]


@dataclass(frozen=True)
class MetricQuery:
    """An immutable query over stored metric points; each method returns a narrowed copy.

    Only succeeded points are returned unless ``include_failures()`` is called.

    Examples
    --------
    >>> from repository import MetricsRepository, MetricRecord, ResultKey
    >>> repo = MetricsRepository(":memory:")
    >>> repo.save(ResultKey(1000, {"dataset": "orders"}),
    ...           [MetricRecord("Dataset", "*", "Size", "Size(*)", 42.0)])
    >>> frame = repo.load().with_tags({"dataset": "orders"}).for_metrics(["Size(*)"]).to_pandas()
    >>> frame[["metric_id", "value", "dataset"]].to_dict("records")
    [{'metric_id': 'Size(*)', 'value': 42.0, 'dataset': 'orders'}]
    >>> repo.close()
    """

    connector: Backend = field(repr=False)
    tags: Mapping[str, str] = field(default_factory=dict)
    metrics: tuple[str, ...] | None = None
    group: Mapping[str, str | None] = field(default_factory=dict)
    after_ms: int | None = None
    before_ms: int | None = None
    failures: bool = False

    def with_tags(self, tags: Mapping[str, str]) -> MetricQuery:
        """Only runs whose tags include all of ``tags`` (added to earlier tag filters)."""
        return replace(self, tags={**self.tags, **check_tags(tags)})

    def for_metrics(self, metrics: str | HasMetricId | Iterable[str | HasMetricId]) -> MetricQuery:
        """Only these metrics: ids or analyzers (anything with a ``metric_id``)."""
        return replace(self, metrics=tuple(metric_ids(metrics)))

    def with_group(self, group: Mapping[str, str | None]) -> MetricQuery:
        """Only groups having these column values (``None`` matches a null group value)."""
        return replace(self, group={**self.group, **check_group(group)})

    def after(self, timestamp: TimeLike) -> MetricQuery:
        """Only runs at or after ``timestamp`` (inclusive)."""
        return replace(self, after_ms=to_epoch_ms(timestamp, "after"))

    def before(self, timestamp: TimeLike) -> MetricQuery:
        """Only runs at or before ``timestamp`` (inclusive)."""
        return replace(self, before_ms=to_epoch_ms(timestamp, "before"))

    def include_failures(self) -> MetricQuery:
        """Also return failed metrics (``value`` None, ``error`` set)."""
        return replace(self, failures=True)

    def to_pandas(self) -> pd.DataFrame:
        """One row per point: ``POINT_COLUMNS``, then group columns, then one column per tag."""
        with self.connector.cursor() as cur:
            table = self._fetch(cur)
            return to_frame(
                cur, table, POINT_COLUMNS, group_columns=self.group, tag_columns=self.tags
            )

    def get(self) -> list[RunResult]:
        """The matching points as one ``RunResult`` (key and records) per run, oldest first."""
        with self.connector.cursor() as cur:
            rows = self._fetch(cur).to_pylist()
            groups = group_values(cur, (row["group_id"] for row in rows))
            tags = run_tags(cur, (row["run_id"] for row in rows))
        runs: dict[int, list[MetricRecord]] = {}
        keys: dict[int, ResultKey] = {}
        for row in rows:
            run_id = row["run_id"]
            if run_id not in keys:
                keys[run_id] = ResultKey(row["ts_ms"], tags[run_id])
                runs[run_id] = []
            runs[run_id].append(
                MetricRecord(
                    row["entity"],
                    row["instance"],
                    row["name"],
                    row["metric_id"],
                    row["value"],
                    groups[row["group_id"]],
                    row["error"],
                )
            )
        return [RunResult(keys[run_id], tuple(records)) for run_id, records in runs.items()]

    def _fetch(self, cur: Cursor) -> pa.Table:
        where = (
            Where(cur.dialect)
            .tags("r.run_id", self.tags)
            .within("s.metric_id", self.metrics)
            .group_subset("s.group_id", self.group)
            .time_range("r.ts", self.after_ms, self.before_ms)
        )
        if not self.failures:
            where.add("p.error IS NULL")
        sql = f"""
            SELECT {cur.dialect.epoch_ms("r.ts")} AS ts_ms, p.run_id, s.group_id, s.entity,
                   s.instance, s.name, s.metric_id, p.value, p.error, k.group_key
            FROM points p JOIN runs r ON r.run_id = p.run_id
            JOIN series s ON s.series_id = p.series_id
            JOIN group_keys k ON k.group_id = s.group_id
            WHERE {where.sql}
            ORDER BY r.ts, r.run_id, s.metric_id, s.entity, s.instance, s.name, k.group_key"""
        return cur.arrow(sql, where.params)

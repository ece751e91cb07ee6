"""The monitors of one scan run: their metrics (judged like any other), freshness and schema."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from anomaly.analyzers import Analyzer, CountState, Size, Timeliness
from anomaly.config.config import SCAN_TAG, Defaults, ScanConfig
from anomaly.config.metric_spec import Severity
from anomaly.config.monitor_config import Judged, MonitorsConfig
from anomaly.config.periods import LENGTHS
from anomaly.config.plans import JudgingLevel, MetricPlan, resolve_plan
from anomaly.config.settings import ScanSettings
from anomaly.errors import ConfigurationError
from anomaly.monitors.column_health import ColumnHealth
from anomaly.monitors.columns import arrival_column, choose, leaf_columns
from anomaly.monitors.freshness import NewestEvents, metric_id, modified, record
from anomaly.monitors.one_sided import UpperOnly
from anomaly.monitors.schema_diff import SCHEMA_DETECTOR, describe, diff, flatten
from repository import DATASET_TAG, AnomalyVerdict, MetricRecord, ResultKey

if TYPE_CHECKING:
    from pyspark.sql import DataFrame

    from repository import MetricsRepository


@dataclass
class MonitorRun:
    """What `monitors` measure on a source of schema `schema` (Spark's JSON of it).

    Built from the whole source (before a partition is chosen), so that a partition without
    rows is still measured: its volume is 0 and its freshness comes from earlier runs.
    """

    monitors: MonitorsConfig
    schema: dict[str, Any]
    plans: list[MetricPlan]
    time_column: str | None = None
    period: str | None = None
    freshness: MetricPlan | None = None
    modified_at: datetime | None = None

    @classmethod
    def build(
        cls,
        settings: ScanSettings,
        defaults: Defaults,
        df: DataFrame,
        repository: MetricsRepository,
    ) -> MonitorRun:
        """The monitors of scan `name` on `df` (the whole source); the previous schema snapshot
        in `repository` tells a dropped column from a column pattern that never matched."""
        scan, name = settings.scan, settings.name
        monitors = scan.monitors
        assert monitors is not None
        source = settings.source
        where = f"scans.{name}.monitors"
        judging = _Judging(scan, defaults)
        plans: list[MetricPlan] = []
        if monitors.volume and not any(p.analyzer == Size() for p in settings.plans):
            plans.append(judging.plan(Size(), monitors.volume, "volume"))
        schema = df.schema
        group_by = set(scan.group_by)
        chosen: list[str] = []
        if monitors.columns:
            known = _previous_columns(repository, scan.source, name)
            candidates = [c for c in leaf_columns(schema) if c not in group_by]
            options = monitors.columns
            chosen = choose(candidates, options.include, options.exclude, f"{where}.columns", known)
            plans += [judging.plan(ColumnHealth(c), options, "columns") for c in chosen]
        time_column = source.time_column
        run = cls(monitors, schema.jsonValue(), plans, time_column, source.partitioning)
        if monitors.freshness:
            if time_column is not None and time_column not in chosen:
                plans.append(judging.plan(ColumnHealth(time_column), None, "columns"))
            source_of = ColumnHealth(time_column) if time_column else Size()
            run.freshness = judging.plan(source_of, monitors.freshness, "freshness")
            if time_column is None:
                run.modified_at = modified(df)
        if monitors.timeliness:
            timeliness = _timeliness(monitors, schema, time_column, where)
            if timeliness is not None:
                plans.append(judging.plan(timeliness, monitors.timeliness, "timeliness"))
        return run

    def derived(
        self,
        records: Sequence[MetricRecord],
        plans: Mapping[str, MetricPlan],
        repository: MetricsRepository,
        key: ResultKey,
    ) -> tuple[list[MetricRecord], dict[str, MetricPlan]]:
        """The run's records and plans with its freshness record and plan. A run without
        rows has nothing to profile: its monitors' failed measures (the latency of no records)
        are dropped, the volume and freshness monitors report it."""
        kept = list(records)
        if any(r.metric_id == "Size(*)" and r.value == 0 and not r.group for r in records):
            ours = {p.analyzer.metric_id for p in self.plans}
            kept = [r for r in records if r.succeeded or r.metric_id not in ours]
        when = key.timestamp
        kept += self._derived(kept, when, self._newest(repository, key.tags, when))
        return kept, {**plans, **self._plans()}

    def backfilled(
        self,
        partitions: dict[datetime, list[MetricRecord]],
        plans: Mapping[str, MetricPlan],
        repository: MetricsRepository,
        tags: Mapping[str, str],
    ) -> tuple[dict[datetime, list[MetricRecord]], dict[str, MetricPlan]]:
        """Backfilled `partitions` with the partitions between them that had no rows (volume
        0: nothing arrived) and every partition's freshness, oldest first; and the plans with
        the freshness plan."""
        assert self.period is not None
        step = LENGTHS[self.period]
        filled = dict(partitions)
        when, last = min(partitions), max(partitions)
        while when < last:
            when += step
            if when not in filled:
                empty = Size().metric(CountState(0)) if self.monitors.volume else None
                filled[when] = [] if empty is None else list(empty.records())
        newest = self._newest(repository, tags, min(filled))
        for when in sorted(filled):
            filled[when] = filled[when] + self._derived(filled[when], when, newest)
        return dict(sorted(filled.items())), {**plans, **self._plans()}

    def _derived(
        self, records: Sequence[MetricRecord], when: datetime, newest: NewestEvents | None
    ) -> list[MetricRecord]:
        if self.freshness is None:
            return []
        if self.time_column is None:
            if self.modified_at is None:
                return []
            return [record(None, max((when - self.modified_at).total_seconds(), 0.0), {})]
        assert newest is not None and self.period is not None
        return newest.advance(records, (when + LENGTHS[self.period]).timestamp())

    def _newest(
        self, repository: MetricsRepository, tags: Mapping[str, str], first: datetime
    ) -> NewestEvents | None:
        if self.freshness is None or self.time_column is None:
            return None
        return NewestEvents.stored(repository, tags, self.time_column, first)

    def _plans(self) -> dict[str, MetricPlan]:
        if self.freshness is None:
            return {}
        return {metric_id(self.time_column): self.freshness}

    def schema_verdicts(
        self, repository: MetricsRepository, key: ResultKey
    ) -> list[tuple[AnomalyVerdict, Severity]]:
        """Store this run's schema snapshot; its changes since the previous one, as verdicts
        with their severity (judged by `judge_run` with the run's other verdicts)."""
        options = self.monitors.schema_changes
        if options is None:
            return []
        before = key.timestamp - timedelta(milliseconds=1)
        previous = repository.schemas(tags=key.tags, before=before, last=1)
        repository.save_schema(key, self.schema)
        if not previous:
            return []
        old = previous[0]
        found: list[tuple[AnomalyVerdict, Severity]] = []
        for change in diff(old.schema, self.schema):
            severity = options.severity(change.kind)
            if severity == "ignore":
                continue
            detail = (
                f"{change.text}. Previous schema ({old.timestamp:%Y-%m-%d %H:%M} UTC): "
                f"{describe(old.schema)}. New schema: {describe(self.schema)}"
            )
            verdict = AnomalyVerdict(
                metric_id=f"Schema({change.path})",
                status="anomaly",
                detector=SCHEMA_DETECTOR,
                detail=detail,
            )
            found.append((verdict, severity))
        return found


@dataclass(frozen=True)
class _Judging:
    """Detector, severity and minimum history of a monitor's metrics: the monitor's own, else
    the scan's, else the config's defaults (column health and timeliness: warning), as
    `resolve_plan` resolves them; freshness only rises."""

    scan: ScanConfig
    defaults: Defaults

    def plan(self, analyzer: Analyzer[Any], options: Judged | None, kind: str) -> MetricPlan:
        if options is None:  # measured for another monitor only: recorded, not judged
            return MetricPlan.recorded(analyzer)
        quiet: Severity | None = "warning" if kind in ("columns", "timeliness") else None
        levels: list[JudgingLevel | None] = [options, self.scan]
        plan = resolve_plan(analyzer, levels, self.defaults, severity=quiet)
        if kind == "freshness" and plan.detector is not None:
            label = f"UpperOnly({plan.detector_label})"
            return replace(plan, detector=UpperOnly(plan.detector), detector_label=label)
        return plan


def _timeliness(
    monitors: MonitorsConfig, schema: Any, time_column: str | None, where: str
) -> Timeliness | None:
    options = monitors.timeliness
    assert options is not None
    arrival = options.arrival_column or arrival_column(schema, time_column)
    if arrival is None or (time_column is None and options.arrival_column is None):
        return None  # no arrival time, or no event time: there is no latency to measure
    if time_column is None:
        raise ConfigurationError(
            f"{where}.timeliness: the latency runs from the source's time_column, and this "
            "source has none"
        )
    if arrival not in schema.names:
        raise ConfigurationError(
            f"{where}.timeliness.arrival_column: column {arrival!r} does not exist; columns: "
            f"{', '.join(schema.names)}"
        )
    threshold = None if options.threshold is None else options.threshold.total_seconds()
    return Timeliness(time_column, arrival, threshold)


def _previous_columns(repository: MetricsRepository, dataset: str, scan: str) -> list[str]:
    stored = repository.schemas(tags={DATASET_TAG: dataset, SCAN_TAG: scan}, last=1)
    return [c.path for c in flatten(stored[0].schema)] if stored else []

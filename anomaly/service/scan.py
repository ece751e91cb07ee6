"""One scan run: read, compute every metric in one AnalysisRunner call, store, judge, alert."""

from __future__ import annotations

import logging
import time
from collections.abc import Iterable, Mapping, Sequence
from datetime import UTC, datetime
from typing import TYPE_CHECKING

import pandas as pd

from anomaly.config.budget_config import checks_per_week
from anomaly.config.config import SCAN_TAG, ServiceConfig
from anomaly.config.periods import label, latest_complete, period_start
from anomaly.config.plans import MetricPlan
from anomaly.engine.context import AnalyzerContext
from anomaly.engine.runner import AnalysisRunner
from anomaly.errors import AnomalyError, ConfigurationError
from anomaly.service.detection import failure_verdicts, history_frame, hold_back, judge
from anomaly.service.progress import Progress
from anomaly.service.reading import read_source, restrict_to_period
from anomaly.service.report import Finding, ScanReport, ScanStatus
from anomaly.service.sinks import dispatch
from repository import DATASET_TAG, MetricRecord, MetricsRepository, RepositoryError, ResultKey

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

    from anomaly.monitors.plan import MonitorRun

LOG = logging.getLogger("anomaly.service")


class ScanRunner:
    """Runs the scans of one config against its repository (sharing one Spark session).

    ``run`` never raises for a failing scan: the failure is its report (status FAILED),
    recorded in the scan log and alerted, so a scheduler can go on with the other scans.

    Examples
    --------
    >>> config = ServiceConfig.model_validate({
    ...     "repository": ":memory:",
    ...     "sources": {"events": {"path": "/data/events", "time_column": "day"}},
    ...     "scans": {"daily": {"source": "events", "metrics": ["Size"], "tags": {"env": "prod"}}},
    ... })
    >>> runner = ScanRunner(config)  # Spark starts on the first run only
    >>> runner.tags("daily")
    {'dataset': 'events', 'env': 'prod', 'scan': 'daily'}
    >>> runner.run_time("daily", datetime(2026, 4, 1, 6, 0, tzinfo=UTC), None).isoformat()
    '2026-03-31T00:00:00+00:00'
    """

    def __init__(
        self,
        config: ServiceConfig,
        *,
        spark: SparkSession | None = None,
        repository: MetricsRepository | None = None,
        progress: Progress | None = None,
    ) -> None:
        self.config = config
        self._spark = spark
        self.repository = repository or MetricsRepository(config.repository)
        self.progress = progress or Progress.silent()

    @property
    def spark(self) -> SparkSession:
        """The session: the one given, the active one, or one built from the config."""
        if self._spark is None:
            from pyspark.sql import SparkSession

            from anomaly.spark import build_session, is_connect

            settings = self.config.spark
            active = SparkSession.getActiveSession()
            if active is not None:
                self._spark = active
            else:
                self.progress.step(f"starting Spark ({settings.remote or settings.master})")
                self._spark = build_session(
                    master=settings.master,
                    remote=settings.remote,
                    app_name=settings.app_name,
                    conf=settings.conf,
                )
                if not is_connect(self._spark):
                    # Failed tasks are reported as failed metrics with their cause; Spark's own
                    # ERROR lines would add Java stack traces to the terminal.
                    self._spark.sparkContext.setLogLevel("FATAL")
        return self._spark

    def tags(self, name: str) -> dict[str, str]:
        """The tags of scan `name`'s runs: dataset (the source), its own tags, and the scan."""
        scan = self.config.scan(name)
        return {DATASET_TAG: scan.source, **scan.tags, SCAN_TAG: name}

    def run(
        self,
        name: str,
        *,
        at: datetime | None = None,
        period: datetime | None = None,
        alert: bool = True,
    ) -> ScanReport:
        """Run scan `name` once: for a source with a time column the partition starting at
        `period` (default: the last complete one at `at`, default now), else the data as it
        is, stored at time `at`. A stream scan processes what its stream has available."""
        if self.config.scan(name).stream is not None:  # its windows are judged as they close
            from anomaly.streaming.service import run_available

            return run_available(self, name, alert)
        started = time.monotonic()
        moment = (at or datetime.now(UTC)).astimezone(UTC)
        partition = self.config.sources[self.config.scan(name).source].partitioning
        log_id = self.repository.scan_log.start(name)
        when = moment
        try:
            when = self.run_time(name, moment, period)
            report = self._measure(name, when)
        except Exception as error:  # a failing scan is a report, never a crash of the caller
            LOG.debug("scan %s failed", name, exc_info=True)
            report = ScanReport(name, when, partition, error=describe(error))
        report.seconds = time.monotonic() - started
        self.record_end(log_id, name, report.status, report.error)
        if alert:
            dispatch(report, self.config.sinks(name))
        return report

    def record_end(self, log_id: int, name: str, status: ScanStatus, error: str | None) -> None:
        """Finish the scan log row (a repository problem is logged, not raised)."""
        try:
            self.repository.scan_log.finish(log_id, status.label, error)
        except RepositoryError as problem:
            LOG.error("%s: cannot record the run in the scan log: %s", name, problem)

    def run_time(self, name: str, moment: datetime, period: datetime | None) -> datetime:
        """The run's key time: the partition start for timed sources, else `moment`."""
        source_name = self.config.scan(name).source
        source = self.config.sources[source_name]
        if source.time_column is None:
            if period is not None:
                raise ConfigurationError(
                    f"scan {name!r}: a partition was given but source {source_name!r} has no "
                    "time_column"
                )
            return moment.replace(microsecond=0)
        if period is not None:
            return period_start(period, source.period)
        return latest_complete(moment, source.period)

    def _measure(self, name: str, when: datetime) -> ScanReport:
        scan = self.config.scan(name)
        source = self.config.sources[scan.source]
        spark = self.spark
        df = read_source(spark, scan.source, source)
        monitor = self.monitor(name, df)
        if source.time_column is not None:
            df = restrict_to_period(df, scan.source, source, when)
        plans = self.config.plans(name) + (monitor.plans if monitor else [])
        metrics = f"{len(plans)} metric{'s' if len(plans) != 1 else ''}"
        self.progress.step(
            f"{name}: computing {metrics}{_per(scan.group_by)} on "
            f"{source.describe()} ({label(when, source.partitioning)})"
        )
        context = self.compute(name, df, plans, scan.group_by)
        records = list(context)
        record_plans = plans_by_record(context, plans)
        key = ResultKey(when, self.tags(name))
        if monitor is not None:
            monitor.add_derived(records, record_plans, when, self.repository, key.tags)
        self.repository.save(key, records)
        after = when - scan.history_window if scan.history_window else None
        frame = history_frame(self.repository, key.tags, record_plans, when, after)
        report = self.judge_run(name, when, frame, records, record_plans)
        if monitor is not None:
            monitor.complete(report, self.repository, key)
        if not records or any(r.metric_id == "Size(*)" and r.value == 0 for r in records):
            report.notes.append(f"no rows in {scan.source} for {report.when}")
        return report

    def judge_run(
        self,
        name: str,
        when: datetime,
        frame: pd.DataFrame,
        records: Sequence[MetricRecord],
        record_plans: Mapping[str, MetricPlan],
    ) -> ScanReport:
        """Judge the run at `when` on the stored history `frame`, store its verdicts, and
        report (what a scan and each partition of a backfill do alike)."""
        scan = self.config.scan(name)
        partition = self.config.sources[scan.source].partitioning
        verdicts = judge(frame, when, record_plans, scan.history_window)
        spec = self.config.alert_budget(name)
        outcome = None
        if spec is not None:
            verdicts, outcome = hold_back(
                verdicts, spec.budget, checks_per_week(partition, scan.schedule)
            )
        verdicts += failure_verdicts(records, record_plans)
        self.repository.save_verdicts(ResultKey(when, self.tags(name)), verdicts)
        findings = [Finding(v, record_plans[v.metric_id].severity) for v in verdicts]
        report = ScanReport(
            name, when, partition, findings, len(scan.metrics), count_groups(records)
        )
        report.budget = outcome
        return report

    def monitor(self, name: str, df: DataFrame) -> MonitorRun | None:
        """The monitors of scan `name` on the whole source `df` (None when it has none)."""
        if self.config.scan(name).monitors is None:
            return None
        from anomaly.monitors.plan import MonitorRun  # the monitors build on this module

        return MonitorRun.build(self.config, name, df, self.repository)

    def compute(
        self, name: str, df: DataFrame, plans: Sequence[MetricPlan], group_by: Sequence[str]
    ) -> AnalyzerContext:
        """All metrics of the plans in one ``AnalysisRunner`` call (the minimal passes)."""
        runner = AnalysisRunner(self.spark).on_data(df).add_analyzers(p.analyzer for p in plans)
        with self.progress.spark_work(self.spark, name):
            return runner.group_by(*group_by).run()


def plans_by_record(context: AnalyzerContext, plans: Sequence[MetricPlan]) -> dict[str, MetricPlan]:
    """Judged record metric id -> plan (multi-valued metrics have one id per key, one plan)."""
    of_analyzer = {p.analyzer: p for p in plans}
    return {
        record.metric_id: of_analyzer[analyzer]
        for (analyzer, _), metric in context.metrics.items()
        if analyzer in of_analyzer
        for record in metric.judged_records()
    }


def count_groups(records: Iterable[MetricRecord]) -> int:
    """The number of distinct groups among records."""
    return len({tuple(sorted(r.group.items())) for r in records})


def describe(error: BaseException) -> str:
    """A failure in one line: our errors as they are, others with their type."""
    if isinstance(error, AnomalyError | RepositoryError | ValueError | OSError):
        text = str(error)
    else:
        text = f"{type(error).__name__}: {error}"
    return text.strip().splitlines()[0] if text.strip() else type(error).__name__


def _per(group_by: Sequence[str]) -> str:
    return f" per {' and '.join(group_by)}" if group_by else ""

"""One scan run: read, compute every metric in one AnalysisRunner call, store, judge, alert."""

from __future__ import annotations

import logging
import time
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from anomaly.config.alert_config import AlertSinkConfig
from anomaly.config.metric_spec import Severity
from anomaly.config.periods import label, latest_complete, period_start
from anomaly.config.plans import MetricPlan
from anomaly.config.settings import ScanSettings
from anomaly.engine.context import AnalyzerContext
from anomaly.engine.runner import AnalysisRunner
from anomaly.errors import ConfigurationError
from anomaly.judging.report import ScanReport
from anomaly.judging.run import judge_run, plans_by_record
from anomaly.judging.sinks import dispatch, redeliver
from anomaly.service.monitor_run import MonitorRun
from anomaly.service.session import ScanSession, StopRequested, describe
from anomaly.service.streams import run_available
from anomaly.sources.reading import read_source, restrict_to_period
from repository import AnomalyVerdict, RepositoryError, ResultKey

if TYPE_CHECKING:
    from pyspark.sql import DataFrame

LOG = logging.getLogger("anomaly.service")


class ScanRunner(ScanSession):
    """Runs the scans of one config against its repository (sharing one Spark session).

    ``run`` never raises for a failing scan: the failure is its report (status FAILED),
    recorded in the scan log and alerted, so a scheduler can go on with the other scans.

    Examples
    --------
    >>> from anomaly.config import ServiceConfig
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

    def tags(self, name: str) -> dict[str, str]:
        """The tags of scan `name`'s runs: dataset (the source), its own tags, and the scan."""
        return ScanSettings.of(self.config, name).tags

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
        settings = ScanSettings.of(self.config, name)  # the config is read once per run
        if settings.scan.stream is not None:  # its windows are judged as they close
            return run_available(self, settings, alert)
        started = time.monotonic()
        moment = (at or datetime.now(UTC)).astimezone(UTC)
        log_id, when = None, moment
        try:  # the scan log too: a locked or unwritable repository is a failed run, alerted
            log_id = self.start_log(name)
            when = run_time(settings, moment, period)
            report = self._measure(settings, when)
        except (StopRequested, KeyboardInterrupt) as stop:  # not a failure: no alert
            self.abandon(log_id, name, stop)
            raise
        except Exception as error:  # a failing scan is a report, never a crash of the caller
            self.raise_if_stopped(log_id, name)
            LOG.debug("scan %s failed", name, exc_info=True)
            report = ScanReport(name, when, settings.partition, error=describe(error))
        report.seconds = time.monotonic() - started
        self.record_end(log_id, name, report.status, report.error)
        if alert:
            self.alert(report, settings.sinks)
        return report

    def alert(self, report: ScanReport, sinks: Mapping[str, AlertSinkConfig]) -> None:
        """Offer the alerts kept by earlier runs to their sinks again (oldest first), then
        send `report` to `sinks`, keeping what fails in the repository's outbox."""
        outbox = self.repository.deliveries
        try:
            redeliver(sinks, outbox)
        except RepositoryError as problem:  # they stay kept; the next run tries again
            LOG.error("%s: cannot read the alerts kept for delivery: %s", report.scan, problem)
        dispatch(report, sinks, outbox)

    def run_time(self, name: str, moment: datetime, period: datetime | None) -> datetime:
        """The run's key time: the partition start for timed sources, else `moment`."""
        return run_time(ScanSettings.of(self.config, name), moment, period)

    def _measure(self, settings: ScanSettings, when: datetime) -> ScanReport:
        scan, source = settings.scan, settings.source
        df = read_source(self.spark, scan.source, source)
        monitor = self.monitor(settings, df)
        if source.time_column is not None:
            df = restrict_to_period(df, scan.source, source, when)
        plans = settings.plans + (monitor.plans if monitor else [])
        metrics = f"{len(plans)} metric{'s' if len(plans) != 1 else ''}"
        self.progress.step(
            f"{settings.name}: computing {metrics}{_per(scan.group_by)} on "
            f"{source.describe()} ({label(when, source.partitioning)})"
        )
        context = self.compute(settings.name, df, plans, scan.group_by)
        records, record_plans = list(context), plans_by_record(context, plans)
        key = ResultKey(when, settings.tags)
        added: list[tuple[AnomalyVerdict, Severity]] = []
        if monitor is not None:
            records, record_plans = monitor.derived(records, record_plans, self.repository, key)
            added = monitor.schema_verdicts(self.repository, key)
        found = judge_run(
            records,
            record_plans,
            self.repository,
            key,
            budget=settings.budget,
            checks_per_week=settings.checks_per_week,
            window=settings.history_window,
            added=added,
        )
        report = ScanReport.of(settings.name, when, settings.partition, found, len(plans))
        if not records or any(r.metric_id == "Size(*)" and r.value == 0 for r in records):
            report.notes.append(f"no rows in {scan.source} for {report.when}")
        return report

    def monitor(self, settings: ScanSettings, df: DataFrame) -> MonitorRun | None:
        """The monitors of a scan on the whole source `df` (None when it has none)."""
        if settings.scan.monitors is None:
            return None
        return MonitorRun.build(settings, self.config.defaults, df, self.repository)

    def compute(
        self, name: str, df: DataFrame, plans: Sequence[MetricPlan], group_by: Sequence[str]
    ) -> AnalyzerContext:
        """All metrics of the plans in one ``AnalysisRunner`` call (the minimal passes)."""
        runner = AnalysisRunner(self.spark).on_data(df).add_analyzers(p.analyzer for p in plans)
        with self.progress.spark_work(self.spark, name):
            context = runner.group_by(*group_by).run()
        if self.stopped_by is not None:  # cancelled jobs show as failed metrics: not stored
            raise StopRequested(self.stopped_by)
        return context


def run_time(settings: ScanSettings, moment: datetime, period: datetime | None) -> datetime:
    """A run's key time: the partition start for timed sources, else `moment`."""
    source = settings.source
    if source.time_column is None:
        if period is not None:
            raise ConfigurationError(
                f"scan {settings.name!r}: a partition was given but source "
                f"{settings.scan.source!r} has no time_column"
            )
        return moment.replace(microsecond=0)
    if period is not None:
        return period_start(period, source.period)
    return latest_complete(moment, source.period)


def _per(group_by: Sequence[str]) -> str:
    return f" per {' and '.join(group_by)}" if group_by else ""

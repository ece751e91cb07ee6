"""Backfill: the history of past partitions from one Spark job grouped by partition.

Each partition is then saved as its own run (keyed by the partition start) and judged in time
order against the history stored before it, exactly as a scan of that partition would be:
detection works from the first day the service is deployed.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime

from anomaly.config.periods import label, latest_complete, period_start
from anomaly.config.settings import ScanSettings
from anomaly.errors import AnomalyError
from anomaly.judging.history import history_frame
from anomaly.judging.report import ScanReport, ScanStatus
from anomaly.judging.run import judge_run, plans_by_record
from anomaly.judging.tables import PROBLEM_HEADERS, problem_row, text_table
from anomaly.service.scan import ScanRunner
from anomaly.service.session import StopRequested, describe
from anomaly.sources.reading import PERIOD_COLUMN, period_of, read_source
from repository import AnomalyVerdict, MetricRecord, ResultKey

LOG = logging.getLogger("anomaly.service")


@dataclass
class BackfillReport:
    """The partitions a backfill stored, each with its scan report.

    >>> from datetime import UTC
    >>> days = [ScanReport("daily", datetime(2026, 3, d, tzinfo=UTC), "day") for d in (1, 2)]
    >>> BackfillReport("daily", days, seconds=12.0).headline()
    'daily backfill: 2 partitions (2026-03-01 .. 2026-03-02) in 12.0 s, 0 anomalies'
    """

    scan: str
    partitions: list[ScanReport] = field(default_factory=list)
    error: str | None = None
    seconds: float | None = None

    @property
    def status(self) -> ScanStatus:
        """FAILED when the backfill could not run, else OK: past anomalies are history."""
        return ScanStatus.FAILED if self.error is not None else ScanStatus.OK

    @property
    def anomalies(self) -> list[tuple[ScanReport, AnomalyVerdict]]:
        """Every problem found, in time order."""
        return [(r, f) for r in self.partitions for f in r.problems]

    def headline(self) -> str:
        """One line: how many partitions, anomalies and how long it took."""
        if self.error is not None:
            return f"{self.scan} backfill: FAILED: {self.error}"
        span = ""
        if self.partitions:
            span = f" ({self.partitions[0].when} .. {self.partitions[-1].when})"
        took = f" in {self.seconds:.1f} s" if self.seconds is not None else ""
        found = len(self.anomalies)
        return (
            f"{self.scan} backfill: {len(self.partitions)} partitions{span}{took}, "
            f"{found} {'anomaly' if found == 1 else 'anomalies'}"
        )

    def table(self) -> str:
        """The problems found, one row per partition, group and metric."""
        rows = [[report.when, *problem_row(v)] for report, v in self.anomalies]
        headers = ["partition", *PROBLEM_HEADERS]
        return text_table(headers, rows) if rows else ""


def backfill(
    runner: ScanRunner, name: str, since: datetime | None = None, until: datetime | None = None
) -> BackfillReport:
    """Compute, store and judge every partition of scan `name` in ``[since, until]``
    (default: from the first row to the last complete partition)."""
    started = time.monotonic()
    log_id = None
    try:
        log_id = runner.start_log(f"{name} backfill")
        report = _backfill(runner, name, since, until)
    except (StopRequested, KeyboardInterrupt) as stop:  # not a failure
        runner.abandon(log_id, f"{name} backfill", stop)
        raise
    except Exception as error:  # reported, like a failing scan
        runner.raise_if_stopped(log_id, f"{name} backfill")
        LOG.debug("backfill of %s failed", name, exc_info=True)
        report = BackfillReport(name, error=describe(error))
    report.seconds = time.monotonic() - started
    runner.record_end(log_id, f"{name} backfill", report.status, report.error)
    return report


def _backfill(
    runner: ScanRunner, name: str, since: datetime | None, until: datetime | None
) -> BackfillReport:
    from pyspark.sql import functions as F

    config, progress = runner.config, runner.progress
    settings = ScanSettings.of(config, name)
    scan, source = settings.scan, settings.source
    if source.time_column is None:
        raise AnomalyError(
            f"scan {name!r}: backfill needs a source with time_column; source {scan.source!r} "
            "has none"
        )
    df = read_source(runner.spark, scan.source, source)
    monitor = runner.monitor(settings, df)
    df = df.withColumn(PERIOD_COLUMN, period_of(df, scan.source, source))
    last = (
        period_start(until, source.period)
        if until
        else latest_complete(datetime.now(UTC), source.period)
    )
    df = df.where(F.col(PERIOD_COLUMN) <= int(last.timestamp()))
    if since is not None:
        df = df.where(F.col(PERIOD_COLUMN) >= int(period_start(since, source.period).timestamp()))
    plans = settings.plans + (monitor.plans if monitor else [])
    per = " and ".join([source.period, *scan.group_by])
    progress.step(
        f"{name}: computing {len(plans)} metrics per {per} on {source.describe()} (one Spark job)"
    )
    context = runner.compute(name, df, plans, [PERIOD_COLUMN, *scan.group_by])
    record_plans = plans_by_record(context, plans)
    partitions = _split(list(context))
    if not partitions:
        errors = sorted({r.error for r in context if r.error})
        raise AnomalyError("; ".join(errors) or f"no rows in {scan.source} before {last:%Y-%m-%d}")
    tags, repository = settings.tags, runner.repository
    if monitor is not None:
        partitions, record_plans = monitor.backfilled(partitions, record_plans, repository, tags)
    progress.step(f"{name}: saving {len(partitions)} partitions and judging them in time order")
    reports, judged = [], []
    with repository.session():
        # One transaction for every partition's run, one for their verdicts: a commit each
        # cost about as much as the judging of a partition (anomaly demo: 178 -> 2 commits).
        repository.save_many(
            (ResultKey(when, tags), records) for when, records in partitions.items()
        )
        first = next(iter(partitions))
        window = settings.history_window
        # One read of the history for every partition: each is judged on what precedes it.
        after = first - window if window else None
        frame = history_frame(repository, tags, record_plans, last, after)
        for i, (when, records) in enumerate(partitions.items(), start=1):
            key = ResultKey(when, tags)
            added = monitor.schema_verdicts(repository, key) if monitor is not None else []
            found = judge_run(
                records,
                record_plans,
                repository,
                key,
                budget=settings.budget,
                checks_per_week=settings.checks_per_week,
                history=frame,
                window=window,
                added=added,
                store=False,
            )
            judged.append((key, found.verdicts))  # the run itself is stored above
            reports.append(ScanReport.of(name, when, settings.partition, found, len(plans)))
            if i % 30 == 0 and i < len(partitions):
                done = f"{i}/{len(partitions)} ({label(when, source.period)})"
                progress.step(f"{name}: judged {done}")
        repository.save_many(verdicts=judged)
    return BackfillReport(name, reports)


def _split(records: list[MetricRecord]) -> dict[datetime, list[MetricRecord]]:
    """Records grouped by partition (oldest first), without the partition column."""
    partitions: dict[datetime, list[MetricRecord]] = {}
    for record in records:
        if PERIOD_COLUMN not in record.group or record.group[PERIOD_COLUMN] is None:
            continue  # a failure of the whole job: reported when no partition exists
        group = {k: v for k, v in record.group.items() if k != PERIOD_COLUMN}
        when = datetime.fromtimestamp(int(record.group[PERIOD_COLUMN] or 0), UTC)
        partitions.setdefault(when, []).append(replace(record, group=group))
    return dict(sorted(partitions.items()))

"""Stream scans of a config file: their jobs, their queries under ``anomaly serve``, and a
one-off ``anomaly scan`` (process what is available, then stop)."""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from anomaly.accuracy import Accuracy
from anomaly.config.durations import format_duration
from anomaly.config.settings import ScanSettings
from anomaly.errors import spark_error_message
from anomaly.judging.report import ScanReport, ScanStatus
from anomaly.judging.sinks import dispatch
from anomaly.service.session import describe
from anomaly.sources.read_errors import explain_read_error
from anomaly.sources.reading import SourceError
from anomaly.streaming.accuracy_stream import StreamingAccuracy
from anomaly.streaming.metrics_stream import StreamingMetrics
from anomaly.streaming.stream import WindowedStream
from anomaly.streaming.trigger import AVAILABLE_NOW

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession
    from pyspark.sql.streaming import StreamingQuery

    from anomaly.config.source_config import SourceConfig
    from anomaly.service.session import ScanSession

LOG = logging.getLogger("anomaly.streaming")
RESTART_DELAYS = (5.0, 30.0, 120.0, 600.0)
"""Seconds before restarting a failed stream query: after the 1st, 2nd, 3rd, later failure."""


def read_stream(spark: SparkSession, name: str, source: SourceConfig) -> DataFrame:
    """The streaming DataFrame of a stream source (analysed, not started)."""
    settings = source.stream
    assert settings is not None
    try:
        reader = spark.readStream.format(settings.format).options(**settings.reader_options)
        if settings.schema_ is not None:
            reader = reader.schema(settings.schema_)
        df = reader.load(settings.path) if settings.path else reader.load()
        columns = df.columns
    except Exception as error:
        raise SourceError(
            f"source {name!r}: cannot read {settings.describe()}: "
            f"{explain_read_error(error, settings.path or '', spark)}"
        ) from None
    if source.time_column not in columns:
        raise SourceError(
            f"source {name!r}: time_column {source.time_column!r} does not exist; columns: "
            f"{', '.join(columns)}"
        )
    return df


@dataclass
class StreamScan:
    """A stream scan: its job, the streaming DataFrames it reads, its running query."""

    name: str
    job: WindowedStream
    frames: tuple[DataFrame, ...]
    checkpoint: str
    trigger: str
    query: StreamingQuery | None = None
    failures: int = 0
    retry_at: float = 0.0

    def start(self, trigger: str | None = None) -> StreamingQuery:
        """Start (or restart, from the checkpoint) the scan's query."""
        when, query_name = trigger or self.trigger, f"anomaly-{self.name}"
        self.job.error = None
        if isinstance(self.job, StreamingAccuracy):
            source, target = self.frames
            self.query = self.job.start(source, target, self.checkpoint, when, query_name)
        else:
            assert isinstance(self.job, StreamingMetrics)
            self.query = self.job.start(self.frames[0], self.checkpoint, when, query_name)
        return self.query


def stream_scan(runner: ScanSession, settings: ScanSettings, alert: bool = True) -> StreamScan:
    """The job of a stream scan, ready to start (its sources are analysed here)."""
    config, scan, source, name = runner.config, settings.scan, settings.source, settings.name
    stream = scan.stream
    assert stream is not None
    df = read_stream(runner.spark, scan.source, source)
    plans, sinks = settings.plans, settings.sinks if alert else {}
    accuracy = plans[0].analyzer
    target = config.sources.get(accuracy.target) if isinstance(accuracy, Accuracy) else None
    frames: tuple[DataFrame, ...]
    # What a window job of either kind needs: its windows, where verdicts go, its history.
    common: dict[str, Any] = {
        "window": stream.window,
        "watermark": stream.watermark,
        "repository": runner.repository,
        "group_by": scan.group_by,
        "tags": settings.tags,
        "sinks": sinks,
        "history_window": scan.history_window,
        "alert_budget": settings.budget,
        "max_future": stream.max_future,
    }
    if isinstance(accuracy, Accuracy) and target is not None and target.stream is not None:
        frames = (df, read_stream(runner.spark, accuracy.target, target))
        common |= {"rows_path": stream.rows_path, "tolerance": stream.tolerance}
        common |= {"source_time": str(source.time_column), "target_time": str(target.time_column)}
        job: WindowedStream = StreamingAccuracy(name, plans[0], **common)
    else:
        frames = (df,)
        job = StreamingMetrics(name, plans, time_column=str(source.time_column), **common)
    return StreamScan(name, job, frames, stream.checkpoint, stream.trigger)


def run_available(runner: ScanSession, settings: ScanSettings, alert: bool = True) -> ScanReport:
    """Process what a stream scan has available, then stop (``anomaly scan``): one report
    with the findings of every window that closed (each window was alerted as it closed).

    Never raises: a failure is the report (status FAILED), alerted when `alert`.
    """
    started, name = time.monotonic(), settings.name
    scan = None
    try:
        scan = stream_scan(runner, settings, alert)
        scan.start(AVAILABLE_NOW).awaitTermination()
    except Exception as error:
        cause = scan.job.error if scan is not None and scan.job.error is not None else error
        report = ScanReport(name, datetime.now(UTC), error=describe(cause))
        if alert:
            dispatch(report, settings.sinks, runner.repository.deliveries)
        return report
    batches = list(scan.job.reports)
    closed = [w for b in batches for w in b.closed]
    when = closed[-1].window.start_time if closed else datetime.now(UTC).replace(microsecond=0)
    findings = [f for w in closed for f in w.report.findings]
    groups = max((w.report.groups for w in closed), default=0)
    report = ScanReport(name, when, None, findings, len(settings.scan.metrics), groups)
    late = sum(b.late_rows for b in batches)
    if late:  # a note makes the scan a warning: rows were counted but not measured
        report.notes.append(f"{late} rows arrived after their window closed")
    runner.progress.step(f"{name}: {len(batches)} micro-batches, {len(closed)} windows closed")
    report.seconds = time.monotonic() - started
    return report


class StreamQueries:
    """The queries of stream scans under ``anomaly serve``: started together, restarted from
    their checkpoints (with growing delays) when one fails, stopped together.

    A failed query is logged and recorded in the scan log; the other queries and the
    scheduled scans go on.
    """

    def __init__(self, runner: ScanSession, names: list[str]) -> None:
        self.runner = runner
        self.names = names
        self.scans: dict[str, StreamScan] = {}
        self.retry_at: dict[str, float] = {}
        self.failures: dict[str, int] = {}

    def start(self) -> None:
        """Start every stream scan's query (a scan that cannot start is retried later)."""
        for name in self.names:
            self._start(name)

    def check(self) -> None:
        """Restart the queries that stopped with an error once their delay has passed."""
        now = time.monotonic()
        for name in self.names:
            scan = self.scans.get(name)
            query = scan.query if scan is not None else None
            if scan is not None and query is not None and not query.isActive:
                error = _query_error(scan)
                if error is None:  # it finished (trigger available_now): run it again later
                    scan.query = None
                    self.retry_at[name] = now + RESTART_DELAYS[0]
                else:
                    self._failed(name, error)
            elif name in self.retry_at and now >= self.retry_at[name]:
                self._start(name)

    def stop(self) -> None:
        """Stop every query (an interrupted micro-batch runs again on the next start)."""
        for scan in self.scans.values():
            if scan.query is not None and scan.query.isActive:
                scan.query.stop()

    def _start(self, name: str) -> None:
        self.retry_at.pop(name, None)
        try:
            settings = ScanSettings.of(self.runner.config, name)
            scan = self.scans.get(name) or stream_scan(self.runner, settings)
            self.scans[name] = scan
            scan.start()
        except Exception as error:
            self._failed(name, describe(error))
            return
        stream = self.runner.config.scan(name).stream
        assert stream is not None
        LOG.info(
            "stream scan %s: started, %s windows, micro-batches every %s",
            name,
            format_duration(stream.window),
            stream.trigger,
        )

    def _failed(self, name: str, error: str) -> None:
        count = self.failures[name] = self.failures.get(name, 0) + 1
        delay = RESTART_DELAYS[min(count, len(RESTART_DELAYS)) - 1]
        self.retry_at[name] = time.monotonic() + delay
        if name in self.scans:
            self.scans[name].query = None
        LOG.error(
            "stream scan %s failed (%d time%s): %s; restarting in %.0f s",
            name,
            count,
            "" if count == 1 else "s",
            error,
            delay,
        )
        log = self.runner.repository.scan_log
        self.runner.record_end(log.start(name), name, ScanStatus.FAILED, error)


def _query_error(scan: StreamScan) -> str | None:
    """Why a scan's query stopped (None: it finished): our error if a batch raised one, else
    Spark's."""
    if scan.job.error is not None:
        return describe(scan.job.error)
    error = scan.query.exception() if scan.query is not None else None
    return None if error is None else spark_error_message(error)

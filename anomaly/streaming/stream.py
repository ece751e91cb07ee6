"""The micro-batch loop shared by streaming metrics and streaming accuracy.

For each micro-batch (Spark's ``foreachBatch``, or a direct `process_batch` call):

1. the clock as it was before this batch gives the watermark the batch is judged by; a batch
   replayed after a crash gets the same one;
2. the subclass computes the batch's states per window (`split`): rows of windows that had
   already closed are late (counted, not merged), rows without an event time are untimed, and
   rows whose event time is more than `max_future` ahead of the processing clock (a typo such as
   year 9999 would otherwise close every window and make every later row late) are counted as
   implausible, merged nowhere, and do not move the watermark;
3. the batch's states, the new clock and the late counts are stored in one transaction, keyed
   by window and batch id (a replay replaces them);
4. every open window that the new watermark passed is closed: stored as a run and judged,
   alerted, then marked closed with its states deleted (one transaction);
5. late rows are reported (logged, and stored as ``LateRows(*)`` on their window's run).
"""

from __future__ import annotations

import collections
import logging
import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from datetime import timedelta
from typing import TYPE_CHECKING

from anomaly.spark import is_connect
from anomaly.streaming.batch import BatchSplit
from anomaly.streaming.errors import StreamError
from anomaly.streaming.judging import WindowJudge, WindowResult
from anomaly.streaming.ledger import StreamLedger, WindowDelta
from anomaly.streaming.report import BatchReport
from anomaly.streaming.trigger import Trigger, trigger_options
from anomaly.streaming.windows import Duration, Window, millis

if TYPE_CHECKING:
    from pyspark.sql import DataFrame
    from pyspark.sql.streaming import StreamingQuery

    from anomaly.config.alert_config import AlertSinkConfig
    from anomaly.config.plans import MetricPlan
    from detectors import AlertBudget
    from repository import MetricsRepository

LOG = logging.getLogger("anomaly.streaming")
WEEK_MS = 7 * 86_400_000
"""A week in milliseconds: an alert budget counts one check per window and series."""
STREAM_TAG = "stream"
"""The tag naming the stream on every window's run."""
MAX_FUTURE = "1d"
"""Default for how far ahead of the processing clock an event time may be: clocks of sources
drift by seconds to minutes, and time zone mistakes by hours; a year-9999 time is a typo."""
KEEP_CLOSED = 1000
"""Closed windows remembered (to count late rows per window) for this many window lengths."""
Listener = Callable[[BatchReport], None]


class WindowedStream(ABC):
    """Event-time windows of a stream, merged per micro-batch and judged when they close.

    Subclasses say how a batch becomes states per window (`split`) and how a closed window's
    states are found (`window_deltas`).
    """

    def __init__(
        self,
        name: str,
        repository: MetricsRepository,
        plans: Sequence[MetricPlan],
        window: Duration,
        watermark: Duration,
        *,
        group_by: Sequence[str] = (),
        tags: Mapping[str, str] | None = None,
        sinks: Mapping[str, AlertSinkConfig] | None = None,
        history_window: timedelta | None = None,
        alert_budget: AlertBudget | None = None,
        horizon: int = 0,
        listener: Listener | None = None,
        max_future: Duration = MAX_FUTURE,
    ) -> None:
        self.name = name
        self.repository = repository
        self.length = millis(window, "window")
        self.judge = WindowJudge(
            name, repository, plans, {STREAM_TAG: name, **(tags or {})}, group_by, sinks,
            history_window, alert_budget, WEEK_MS / self.length,
        )  # fmt: skip
        self.delay = millis(watermark, "watermark", zero=True)
        self.horizon = horizon
        self.max_future = millis(max_future, "max_future")
        self.listener = listener
        self.ledger = StreamLedger(repository, name)
        self.reports: collections.deque[BatchReport] = collections.deque(maxlen=100)
        """The reports of the latest micro-batches processed here."""
        self.error: Exception | None = None
        """Why the last micro-batch of a started query failed (it stopped the query)."""

    @abstractmethod
    def split(self, df: DataFrame, batch_id: int, watermark: int | None) -> BatchSplit:
        """The batch's states per window; rows of windows that `closes_by` the watermark the
        batch starts with are late."""

    @abstractmethod
    def window_deltas(self, starts: list[int]) -> dict[int, WindowDelta]:
        """The merged states of windows about to close."""

    def windows_closed(self, watermark: int) -> None:  # noqa: B027 - optional, empty by default
        """Called once the windows the watermark passed are closed (for cleanups)."""

    def closes_by(self, start: int, watermark: int | None) -> bool:
        """Whether the window starting at `start` is closed once the watermark is `watermark`."""
        return watermark is not None and start + self.length + self.horizon <= watermark

    def latest_plausible(self) -> int:
        """The latest event time (epoch ms) a row may have now: `max_future` ahead of the
        processing clock."""
        return round(time.time() * 1000) + self.max_future

    def process_batch(self, df: DataFrame, batch_id: int) -> BatchReport:
        """Process one micro-batch (the ``foreachBatch`` function); idempotent per batch id."""
        started, clock = time.time(), time.monotonic()
        base = self.ledger.begin(batch_id)
        before = base.watermark(self.delay)
        split = self.split(df, batch_id, before)  # Spark works with no repository lock held
        late = {"rows": sum(split.late.values()), "targets": split.late_other}
        progress = base.advanced(
            split.max_event, late, {"rows": split.untimed}, {"rows": split.future}
        )
        forget = None if before is None else before - KEEP_CLOSED * self.length
        kept = {s: n for s, n in split.late.items() if forget is None or s >= forget}
        self.ledger.commit(batch_id, base, progress, split.deltas, kept)
        watermark = progress.watermark(self.delay)
        closed = self._close(batch_id, watermark)
        with self.repository.session():
            self._report_late(kept)
            if watermark is not None:
                self.ledger.sweep(watermark - KEEP_CLOSED * self.length)
        report = BatchReport(
            self.name, batch_id, split.rows,
            {Window(s, self.length): n for s, n in sorted(split.late.items())},
            split.late_other, split.untimed, watermark, closed, started,
            time.monotonic() - clock, split.future,
        )  # fmt: skip
        self._log(report)
        self.reports.append(report)
        if self.listener is not None:
            self.listener(report)
        return report

    def _close(self, batch_id: int, watermark: int | None) -> list[WindowResult]:
        starts = [s for s in self.ledger.open_windows() if self.closes_by(s, watermark)]
        if not starts or watermark is None:
            return []
        deltas = self.window_deltas(starts)
        with self.repository.session():  # one attachment of the file for all the windows
            results = [self.judge.store(Window(s, self.length), deltas[s]) for s in starts]
        for result in results:  # alerts go out before the windows are marked closed: at least once
            self.judge.alert(result)
        self.ledger.mark_closed(starts, batch_id)
        self.windows_closed(watermark)
        return results

    def _report_late(self, late: dict[int, int]) -> None:
        for start, marker in sorted(self.ledger.markers(late).items()):
            self.judge.record_late(Window(start, self.length), marker.late)

    def _log(self, report: BatchReport) -> None:
        problems = report.late_rows or report.untimed or report.future
        level = logging.WARNING if problems else logging.DEBUG
        LOG.log(level, "%s", report.headline())
        for result in report.closed:
            if not result.report.problems:  # problems were logged as warnings with the alerts
                LOG.info("stream %s window %s: %s", self.name, result.window.label,
                         result.report.headline())  # fmt: skip

    def open_windows(self) -> list[Window]:
        """The windows with stored states that have not closed yet."""
        return [Window(s, self.length) for s in self.ledger.open_windows()]

    def reset(self) -> int:
        """Forget the stream's stored state (for a new checkpoint); its stored runs stay."""
        return self.ledger.reset()

    def start_query(
        self,
        df: DataFrame,
        checkpoint: str,
        trigger: Trigger = "available_now",
        query_name: str | None = None,
    ) -> StreamingQuery:
        """Start a streaming query on `df` (``spark.readStream...``) with this job as its
        ``foreachBatch``; returns it.

        `checkpoint` is Spark's checkpoint directory: the query resumes from it after a stop or
        a crash. `trigger`: ``"available_now"`` (what is there, then stop) or an interval.
        """
        if not df.isStreaming:
            raise StreamError(
                f"stream {self.name!r}: the DataFrame is not a streaming DataFrame (read it with "
                "spark.readStream); for a batch DataFrame use AnalysisRunner or a scan"
            )
        if is_connect(df.sparkSession):
            raise StreamError(
                f"stream {self.name!r}: streaming jobs need a classic Spark session (local or a "
                "cluster's driver): foreachBatch runs our code next to the repository"
            )

        def run(batch: DataFrame, batch_id: int) -> None:
            try:
                self.process_batch(batch, batch_id)
            except Exception as error:  # kept: Spark reports it wrapped in Java and Py4J text
                self.error = error
                raise

        writer = df.writeStream.foreachBatch(run)
        writer = writer.option("checkpointLocation", checkpoint)
        writer = writer.queryName(query_name or f"anomaly-{self.name}")
        return writer.trigger(**trigger_options(trigger)).start()

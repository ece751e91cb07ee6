"""Metrics per event-time window of a Structured Streaming DataFrame, judged as windows close."""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial
from typing import TYPE_CHECKING, Any, Unpack

from anomaly.analyzers import Analyzer, FrequencyAnalyzer
from anomaly.analyzers.base import DataFrameAnalyzer
from anomaly.config.plans import MetricPlan
from anomaly.engine.runner import AnalysisRunner
from anomaly.streaming.batch import FUTURE_ROWS, LATEST, ROWS, BatchSplit, split_batch
from anomaly.streaming.event_time import WINDOW, with_windows
from anomaly.streaming.ledger import WindowDelta
from anomaly.streaming.settings import StreamSettings, judged_plans
from anomaly.streaming.stream import WindowedStream
from anomaly.streaming.windows import Duration

if TYPE_CHECKING:
    from pyspark.sql import DataFrame

    from repository import MetricsRepository


class StreamingMetrics(WindowedStream):
    """Metrics of a streaming DataFrame per tumbling event-time window, exactly once.

    Each micro-batch is analysed in one shared pass (``AnalysisRunner``, grouped by window and
    `group_by`); its states are merged into their windows' stored states. When the watermark
    (largest event time seen minus `watermark`) passes a window's end, the window's metrics are
    stored as one run (tags: ``stream`` and ``window``) and judged against the earlier windows.

    Parameters
    ----------
    name
        The stream's name: its tag, and the key of its stored state (keep it stable).
    metrics
        Analyzers (judged by `detector`), or `MetricPlan` s with their own detector.
    time_column
        The event time: a timestamp, a date, ISO 8601 text or epoch milliseconds.
    window, watermark
        Window length and allowed lateness: ``"1h"``, seconds or a timedelta.
    repository
        Where windows' runs, verdicts and the stream's state are stored.
    group_by
        Columns to compute every metric per value of.
    tags
        Extra tags of every window's run.
    detector
        How each metric's history is judged (default: the config default's detector; None
        stores without judging). `severity` and `min_history` as in scans.
    sinks
        Alert sinks (name -> `AlertSinkConfig`) for windows with anomalies.
    history_window
        Judge on the windows of this long before only (default: all).
    alert_budget
        An `AlertBudget` over every series of the stream, as in scans (one check per window).
    listener
        Called with every `BatchReport`.
    max_future
        How far ahead of the processing clock an event time may be (default one day): a row
        beyond is counted as implausible (`BatchReport.future`), merged into no window, and does
        not move the watermark.

    Examples
    --------
    >>> from repository import MetricsRepository
    >>> from anomaly.analyzers import Mean, Size
    >>> stream = StreamingMetrics("clicks", [Size(), Mean("amount")], time_column="ts",
    ...                           window="1h", watermark="10m",
    ...                           repository=MetricsRepository(":memory:"), detector=None)
    >>> stream.length, stream.delay, stream.judge.tags
    (3600000, 600000, {'stream': 'clicks'})
    """

    def __init__(
        self,
        name: str,
        metrics: Sequence[Analyzer[Any] | MetricPlan],
        *,
        time_column: str,
        window: Duration,
        watermark: Duration,
        repository: MetricsRepository,
        **settings: Unpack[StreamSettings],
    ) -> None:
        plans, rest = judged_plans(metrics, settings)
        super().__init__(name, repository, plans, window, watermark, **rest)
        self.time_column = time_column
        self.group_by = tuple(settings.get("group_by", ()))
        self.analyzers = [p.analyzer for p in plans]

    def split(self, df: DataFrame, batch_id: int, watermark: int | None) -> BatchSplit:
        latest = self.latest_plausible()
        data = with_windows(df, self.time_column, self.length, self.name, latest)
        passes = any(isinstance(a, FrequencyAnalyzer | DataFrameAnalyzer) for a in self.analyzers)
        if passes:
            data = data.persist()  # read the batch once however many passes the analyzers need
        try:
            runner = AnalysisRunner(data.sparkSession).on_data(data).keep_states()
            added = [*self.analyzers, ROWS, LATEST, FUTURE_ROWS]
            runner.add_analyzers(added).group_by(WINDOW, *self.group_by)
            context = runner.run()
        finally:
            if passes:
                data.unpersist()
        closed = partial(self.closes_by, watermark=watermark)
        return split_batch(context, self.analyzers, closed, self.name)

    def window_deltas(self, starts: list[int]) -> dict[int, WindowDelta]:
        return {start: self.ledger.window_states(start) for start in starts}

    start = WindowedStream.start_query

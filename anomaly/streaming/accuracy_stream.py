"""Accuracy of a target stream against a source stream, per event-time window of the source.

A source row matches when a target row satisfies the rule (`Accuracy`'s rule language) and its
event time is within the rule's time bounds of the source row's (``$target.t - $source.t``;
`tolerance` bounds a side the rule leaves open). A window of source rows closes when the
watermark passes its end plus the longest a matching target row may come after its source row:
then one batch Accuracy job over the kept rows gives every closing window's matched and total
counts. The watermark is the largest event time of either stream minus `watermark` (Spark's
``max`` policy), so a target stream that stops makes accuracy drop instead of stalling.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Unpack

from anomaly.accuracy import Accuracy
from anomaly.accuracy.job import SOURCE, TARGET, build_query, collect_states, qualified
from anomaly.analyzers import CountState, State
from anomaly.analyzers.columns import quote
from anomaly.config.plans import MetricPlan
from anomaly.config.time_bounds import rule_time_bounds
from anomaly.engine.differential.partition_states import StateKey
from anomaly.errors import ConfigurationError
from anomaly.streaming.batch import ROWS, BatchSplit
from anomaly.streaming.event_time import EVENT, WINDOW, event_millis, implausible
from anomaly.streaming.ledger import WindowDelta
from anomaly.streaming.row_store import RowStore
from anomaly.streaming.settings import StreamSettings, judged_plans
from anomaly.streaming.stream import WindowedStream
from anomaly.streaming.trigger import Trigger
from anomaly.streaming.windows import Duration, millis

if TYPE_CHECKING:
    from pyspark.sql import Column, DataFrame
    from pyspark.sql.streaming import StreamingQuery
    from pyspark.sql.types import StructType

    from repository import MetricsRepository

SIDE, ROW = "__side", "__row_"
"""The union's side column, and the prefix of its two row structs (``__row_source``...)."""


class StreamingAccuracy(WindowedStream):
    """Accuracy of a target stream against a source stream per window, exactly once.

    Parameters
    ----------
    name
        The stream's name (tag ``stream`` and key of its stored state).
    accuracy
        The `Accuracy` (rule, ``where``, index, sample; its ``target`` only names the metric),
        or a `MetricPlan` of one with its own detector.
    source_time, target_time
        Event-time columns of the two streams (as in `StreamingMetrics`).
    window, watermark
        Window length (of source event time) and allowed lateness.
    repository
        Where runs, verdicts and the stream's state are stored.
    rows_path
        A directory (any path Spark writes) for the rows of open windows.
    tolerance
        How far apart the two event times of a match may be, for the sides the rule does not
        bound itself (required when the rule has no upper bound on ``$target.t - $source.t``).
    group_by, tags, detector, severity, min_history, sinks, history_window, alert_budget, listener,
    max_future
        As for `StreamingMetrics` (`group_by` names source columns).

    Examples
    --------
    >>> from repository import MetricsRepository
    >>> rule = "IF ($source.__time + 24h <= $target.__time) $source.url = $target.url"
    >>> stream = StreamingAccuracy(
    ...     "crawl", Accuracy("crawl_results", rule), source_time="__time",
    ...     target_time="__time", window="1h", watermark="5m", tolerance="48h",
    ...     repository=MetricsRepository(":memory:"), rows_path="/tmp/crawl-rows")
    >>> stream.lower / 3_600_000, stream.upper / 3_600_000  # hours: the rule's 24, then 48
    (24.0, 48.0)
    >>> StreamingAccuracy("crawl", Accuracy("t", "$source.url = $target.url"),
    ...     source_time="t", target_time="t", window="1h", watermark="5m",
    ...     repository=MetricsRepository(":memory:"), rows_path="/tmp/x")
    Traceback (most recent call last):
    ...
    anomaly.errors.ConfigurationError: tolerance: the rule does not bound how much later ...
    """

    def __init__(
        self,
        name: str,
        accuracy: Accuracy | MetricPlan,
        *,
        source_time: str,
        target_time: str,
        window: Duration,
        watermark: Duration,
        repository: MetricsRepository,
        rows_path: str,
        tolerance: Duration | None = None,
        **settings: Unpack[StreamSettings],
    ) -> None:
        plans, rest = judged_plans([accuracy], settings)
        analyzer = plans[0].analyzer
        if not isinstance(analyzer, Accuracy):
            raise ConfigurationError(f"accuracy must be an Accuracy, got {analyzer!r}")
        self.accuracy = analyzer
        self.source_time, self.target_time = source_time, target_time
        self.group_by = tuple(settings.get("group_by", ()))
        self.rows_path = rows_path
        bounds = _bounds(analyzer, source_time, target_time, tolerance)
        self.lower, self.upper, self.open_sides = bounds
        super().__init__(
            name, repository, plans, window, watermark, horizon=max(0, self.upper), **rest
        )
        self.schema: StructType | None = None
        """The kept rows' schema (set by each batch, before any window closes)."""
        self._store: RowStore | None = None

    def combine(self, source: DataFrame, target: DataFrame) -> DataFrame:
        """One DataFrame of both streams: side, event time, window (for target rows: the
        newest source window they can match) and the row as a struct."""
        from pyspark.sql import functions as F

        sides = []
        for side, df, column in (("source", source, self.source_time),
                                 ("target", target, self.target_time)):  # fmt: skip
            event = event_millis(df.schema, column, self.name)
            anchor = event if side == "source" else event - F.lit(self.lower)
            row = F.struct(*[F.col(quote(c)) for c in df.columns])
            sides.append(df.select(
                F.lit(side).alias(SIDE), event.alias(EVENT),
                (anchor - F.pmod(anchor, F.lit(self.length))).alias(WINDOW),
                row.alias(ROW + side),
            ))  # fmt: skip
        return sides[0].unionByName(sides[1], allowMissingColumns=True)

    def start(
        self,
        source: DataFrame,
        target: DataFrame,
        checkpoint: str,
        trigger: Trigger = "available_now",
        query_name: str | None = None,
    ) -> StreamingQuery:
        """Start one streaming query over both streams (their union); returns it.

        Raises `RuleError` when the rule does not fit the two schemas (before any batch).
        """
        combined = self.combine(source, target)
        empty = source.sparkSession.createDataFrame([], combined.schema)
        _ = self._query(self._side(empty, "source"), self._side(empty, "target")).schema
        return self.start_query(combined, checkpoint, trigger, query_name)

    def split(self, df: DataFrame, batch_id: int, watermark: int | None) -> BatchSplit:
        from pyspark.sql import functions as F

        store = self._store = RowStore(df.sparkSession, self.rows_path)
        data = df.persist()
        future = implausible(F.col(EVENT), self.latest_plausible())
        try:
            counts = data.groupBy(SIDE, F.when(~future, F.col(WINDOW)), future).agg(
                F.count(F.lit(1)).alias("n"), F.max(EVENT).alias("latest")
            )
            deltas: dict[int, WindowDelta] = {}
            late: dict[int, int] = {}
            untimed = rows = late_targets = ahead = 0
            newest: dict[str, int | None] = {"source": None, "target": None}
            latest: int | None = None
            for side, start, is_future, n, event in counts.collect():
                rows += n
                if is_future:
                    ahead += n
                elif start is None:
                    untimed += n
                elif self.closes_by(start, watermark):
                    if side == "source":
                        late[start] = n
                    else:
                        late_targets += n
                else:
                    newest[side] = max(start, newest[side] if newest[side] is not None else start)
                    latest = max(event, latest if latest is not None else event)
                    if side == "source":
                        deltas[start] = WindowDelta({(ROWS.metric_id, ()): CountState(n)})
            kept = F.col(WINDOW).isNotNull() & ~future
            if watermark is not None:
                kept &= F.col(WINDOW) + self.length + self.horizon > F.lit(watermark)
            chosen = data.where(kept)
            self.schema = chosen.schema
            store.write(chosen, batch_id, newest)
        finally:
            data.unpersist()
        return BatchSplit(deltas, late, untimed, rows, latest, late_targets, ahead)

    def window_deltas(self, starts: list[int]) -> dict[int, WindowDelta]:
        from pyspark.sql import functions as F

        assert self.schema is not None  # set by the batch that closes these windows
        kept = self.row_store().read(self.schema)
        if kept is None:
            return {start: WindowDelta({}) for start in starts}
        source = self._side(kept, "source").where(F.col(WINDOW).isin(starts))
        low, high = min(starts) + self.lower, max(starts) + self.length + self.upper
        target = self._side(kept, "target").where(F.col(EVENT).between(low, high))
        states = collect_states(
            self._query(source, target), 1 + len(self.group_by), self.accuracy.sample_size
        )
        deltas: dict[int, dict[StateKey, State]] = {s: {} for s in starts}
        for group, state in states.items():
            deltas[int(group[0])][(self.accuracy.metric_id, tuple(group[1:]))] = state
        return {start: WindowDelta(found) for start, found in deltas.items()}

    def windows_closed(self, watermark: int) -> None:
        self.row_store().drop(lambda newest: self.closes_by(newest, watermark))

    @staticmethod
    def _side(kept: DataFrame, side: str) -> DataFrame:
        from pyspark.sql import functions as F

        rows = kept.where(F.col(SIDE) == side)
        return rows.select(f"{ROW}{side}.*", EVENT, WINDOW)

    def row_store(self) -> RowStore:
        """Where the rows of open windows are kept (set up by the first batch)."""
        if self._store is None:
            raise ConfigurationError(f"stream {self.name!r}: no micro-batch processed yet")
        return self._store

    def _query(self, source: DataFrame, target: DataFrame) -> DataFrame:
        accuracy = self.accuracy
        return build_query(
            source, target, accuracy.plan, [WINDOW, *self.group_by], accuracy.where,
            accuracy.sample_size, self._tolerance_condition(),
        )  # fmt: skip

    def _tolerance_condition(self) -> Column | None:
        difference = qualified(TARGET, EVENT) - qualified(SOURCE, EVENT).outer()
        condition = None
        if "lower" in self.open_sides:
            condition = difference >= self.lower
        if "upper" in self.open_sides:
            upper = difference <= self.upper
            condition = upper if condition is None else condition & upper
        return condition


def _bounds(
    accuracy: Accuracy,
    source_time: str,
    target_time: str,
    tolerance: Duration | None,
) -> tuple[int, int, tuple[str, ...]]:
    """(lower, upper) of target time - source time in ms, and which came from `tolerance`."""
    rule = rule_time_bounds(accuracy.plan, source_time, target_time)
    allowed = None if tolerance is None else millis(tolerance, "tolerance", zero=True)
    if rule.upper is None and allowed is None:
        raise ConfigurationError(
            "tolerance: the rule does not bound how much later than its source row a target row "
            f"may come (e.g. $target.{target_time} <= $source.{source_time} + 1h), so a window "
            "could wait forever: give a tolerance (e.g. 1h)"
        )
    opened = tuple(s for s, b in (("lower", rule.lower), ("upper", rule.upper)) if b is None)
    lower = math.floor(rule.lower) if rule.lower is not None else -(allowed or 0)
    upper = math.ceil(rule.upper) if rule.upper is not None else allowed or 0
    if lower > upper:
        raise ConfigurationError(
            f"tolerance: a target row may come at most {upper} ms after its source row, but the "
            f"rule asks for at least {lower} ms: no row could ever match; widen the tolerance"
        )
    return lower, upper, opened

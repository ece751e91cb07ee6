"""One micro-batch's analyzer states, split by window: what to merge, what came too late.

The batch is analysed once, grouped by window (and the user's ``group_by``), with two
analyzers of our own in the same shared aggregation: ``Size(*)`` counts the rows of each
window (so late and untimed rows are counted without another pass) and the maximum event
time moves the clock. Rows whose event time is implausibly far ahead have no window; a third
count, ``Size(*) where: __future``, tells them from untimed rows.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from anomaly.analyzers import Analyzer, CountState, Maximum, MaxState, Size, State
from anomaly.engine.context import AnalyzerContext
from anomaly.engine.differential.partition_states import StateKey
from anomaly.streaming.errors import StreamError
from anomaly.streaming.event_time import EVENT, FUTURE
from anomaly.streaming.ledger import WindowDelta

ROWS, LATEST, FUTURE_ROWS = Size(), Maximum(EVENT), Size(where=FUTURE)
"""The analyzers every batch adds: rows per window, the largest event time, and the rows whose
event time is implausibly far ahead (all in the group without a window)."""


@dataclass(frozen=True)
class BatchSplit:
    """A batch's states by window start, its late rows by window start, and its counts
    (``late_other``: late rows of no window, e.g. targets no open window can match;
    ``future``: rows with an implausible event time, not counted as untimed)."""

    deltas: dict[int, WindowDelta] = field(default_factory=dict)
    late: dict[int, int] = field(default_factory=dict)
    untimed: int = 0
    rows: int = 0
    max_event: int | None = None
    late_other: int = 0
    future: int = 0


def split_batch(
    context: AnalyzerContext,
    analyzers: list[Analyzer[Any]],
    closed: Callable[[int], bool],
    stream: str,
) -> BatchSplit:
    """Split a batch's `context` (grouped by window first, keep_states) into window deltas.

    Rows of windows for which `closed` is true are late: counted, not merged. Rows without an
    event time (window None) are counted as untimed. A metric that failed in this batch is
    recorded as a failure of each window the batch touched.

    Examples
    --------
    >>> from anomaly.analyzers import Mean, MeanState
    >>> from anomaly.metrics import Metric
    >>> mean = Mean("x")
    >>> states = {(ROWS, (0,)): CountState(2), (LATEST, (0,)): MaxState(59.0),
    ...           (mean, (0,)): MeanState(3.0, 2), (ROWS, (-60,)): CountState(1),
    ...           (LATEST, (-60,)): MaxState(-1.0), (mean, (-60,)): MeanState(1.0, 1)}
    >>> metrics = {k: Metric("", "", "", "") for k in states}
    >>> split = split_batch(AnalyzerContext(metrics, ("__window",), states), [mean],
    ...                     closed=lambda start: start < 0, stream="s")
    >>> split.deltas[0].states[("Mean(x)", ())], split.late, split.max_event
    (MeanState(total=3.0, count=2), {-60: 1}, 59)
    """
    by_window: dict[int, dict[StateKey, State]] = {}
    late: dict[int, int] = {}
    untimed = rows = future = 0
    latest: int | None = None
    wanted = set(analyzers)
    failures: dict[str, str] = {}
    for key, metric in context.metrics.items():
        if key in context.states:
            continue  # a metric may fail on a batch's state alone (no values yet): that merges
        if key[0] in (ROWS, LATEST, FUTURE_ROWS):
            raise StreamError(f"stream {stream!r}: cannot count the batch's rows: {metric.error}")
        if key[0] in wanted:
            failures.setdefault(key[0].metric_id, metric.error or "failed")
    for (analyzer, group), state in context.states.items():
        start, rest = group[0], tuple(group[1:])
        if analyzer == FUTURE_ROWS and isinstance(state, CountState):
            future += state.rows
            continue
        if analyzer == ROWS and isinstance(state, CountState):
            rows += state.rows
            if start is None:
                untimed += state.rows
            elif closed(int(start)):
                late[int(start)] = late.get(int(start), 0) + state.rows
        if start is None or closed(int(start)):
            continue
        if analyzer == LATEST and isinstance(state, MaxState) and state.value is not None:
            latest = max(int(state.value), latest if latest is not None else int(state.value))
        if analyzer in wanted or analyzer == ROWS:  # ROWS: every touched window has a delta
            by_window.setdefault(int(start), {})[(analyzer.metric_id, rest)] = state
    deltas = {start: WindowDelta(states, dict(failures)) for start, states in by_window.items()}
    # Rows of the windowless group are untimed, but for those implausibly far ahead.
    return BatchSplit(deltas, late, untimed - future, rows, latest, future=future)

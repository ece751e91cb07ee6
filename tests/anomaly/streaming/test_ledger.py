"""The stream's stored state: clock, per-batch window states, replays, markers (no Spark)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from anomaly.analyzers import CountState, MeanState
from anomaly.streaming.clock import Clock, Progress
from anomaly.streaming.errors import StreamStateError
from anomaly.streaming.ledger import COMPACT_AT, StreamLedger, WindowDelta
from anomaly.streaming.windows import Window, millis
from repository import MetricsRepository

SIZE, MEAN = ("Size(*)", ()), ("Mean(x)", ())


@pytest.fixture
def ledger() -> Iterator[StreamLedger]:
    repo = MetricsRepository(":memory:")
    yield StreamLedger(repo, "clicks")
    repo.close()


def delta(rows: int, total: float = 0.0) -> WindowDelta:
    return WindowDelta({SIZE: CountState(rows), MEAN: MeanState(total, rows)})


def run_batch(
    ledger: StreamLedger, batch: int, deltas: dict[int, WindowDelta], max_event: int
) -> Progress:
    base = ledger.begin(batch)
    progress = base.advanced(max_event)
    ledger.commit(batch, base, progress, deltas)
    return progress


@pytest.mark.parametrize(
    ("event", "length", "start"),
    [(0, 60_000, 0), (59_999, 60_000, 0), (60_000, 60_000, 60_000), (-1, 60_000, -60_000)],
)
def test_window_of_an_instant(event: int, length: int, start: int) -> None:
    window = Window.of(event, length)
    assert (window.start, window.end) == (start, start + length)
    assert window.start <= event < window.end


@pytest.mark.parametrize(("text", "ms"), [("1h", 3_600_000), ("90s", 90_000), (0.25, 250)])
def test_durations_in_milliseconds(text: str | float, ms: int) -> None:
    assert millis(text, "window") == ms


@pytest.mark.parametrize("bad", ["-1h", "soon", 0, "0.0001s"])
def test_bad_durations_name_the_setting(bad: object) -> None:
    with pytest.raises(ValueError, match=r"^watermark: "):
        millis(bad, "watermark")  # type: ignore[arg-type]


def test_the_clock_restarts_a_replayed_batch_from_before_it() -> None:
    clock = Clock(7, Progress(100, {"rows": 1}), Progress(200, {"rows": 3}))
    assert clock.base(8) == clock.after and clock.base(12) == clock.after
    assert clock.base(7) == clock.before
    with pytest.raises(StreamStateError, match="micro-batch 7, but its query is at batch 3"):
        clock.base(3, "clicks")


@settings(max_examples=50, deadline=None)
@given(st.lists(st.one_of(st.none(), st.integers(-(10**12), 10**12)), max_size=8))
def test_the_watermark_never_goes_back(events: list[int | None]) -> None:
    progress, marks = Progress(), []
    for event in events:
        progress = progress.advanced(event)
        marks.append(progress.watermark(5))
    seen = [m for m in marks if m is not None]
    assert seen == sorted(seen)
    assert Progress.from_dict(progress.to_dict()) == progress


def test_a_replayed_batch_replaces_its_states(ledger: StreamLedger) -> None:
    run_batch(ledger, 0, {0: delta(2, 4.0)}, 10)
    run_batch(ledger, 1, {0: delta(3, 3.0), 60: delta(1, 1.0)}, 70)
    # Batch 1 again, as after a crash before Spark recorded it: the same data, stored once.
    assert ledger.begin(1).max_event == 10
    run_batch(ledger, 1, {0: delta(3, 3.0), 60: delta(1, 1.0)}, 70)
    merged = ledger.window_states(0)
    assert merged.states[SIZE] == CountState(5) and merged.states[MEAN] == MeanState(7.0, 5)
    assert ledger.window_states(60).states[SIZE] == CountState(1)
    assert ledger.begin(2).max_event == 70


def test_a_replay_that_touches_other_windows_leaves_nothing_of_the_first_attempt(
    ledger: StreamLedger,
) -> None:
    run_batch(ledger, 0, {0: delta(2), 60: delta(1)}, 70)
    run_batch(ledger, 0, {0: delta(2)}, 10)
    assert ledger.open_windows() == [0]


def test_many_batches_are_compacted_without_changing_the_merge(ledger: StreamLedger) -> None:
    batches = 3 * COMPACT_AT
    for batch in range(batches):
        run_batch(ledger, batch, {0: delta(1, float(batch))}, batch)
    assert len(ledger.partitions()) <= COMPACT_AT + 2  # the clock, some batches, one merge
    merged = ledger.window_states(0).states
    assert merged[SIZE] == CountState(batches)
    assert merged[MEAN] == MeanState(float(sum(range(batches))), batches)
    # A replay of the batch that compacted keeps the same merge.
    last = batches - 1
    run_batch(ledger, last, {0: delta(1, float(last))}, last)
    assert ledger.window_states(0).states[SIZE] == CountState(batches)


def test_late_rows_count_once_per_batch_even_when_replayed(ledger: StreamLedger) -> None:
    run_batch(ledger, 0, {0: delta(2)}, 10)
    ledger.mark_closed([0], 0)
    for batch, late in ((1, 3), (1, 3), (2, 4), (2, 4), (3, 1)):
        base = ledger.begin(batch)
        ledger.commit(batch, base, base.advanced(None, {"rows": late}), {}, {0: late})
    assert ledger.markers()[0].late == 8
    assert ledger.clock().after.late == {"rows": 8}  # type: ignore[union-attr]


def test_closing_deletes_a_window_and_sweeping_its_replayed_leftovers(
    ledger: StreamLedger,
) -> None:
    run_batch(ledger, 0, {0: delta(2), 60: delta(1)}, 70)
    ledger.mark_closed([0], 0)
    assert ledger.open_windows() == [60]
    run_batch(ledger, 0, {0: delta(2), 60: delta(1)}, 70)  # the replay rewrites window 0
    assert ledger.open_windows() == [60]
    assert ledger.sweep(forget_before=None) == 1
    assert ledger.sweep(forget_before=60) == 1 and ledger.markers() == {}


def test_reset_forgets_the_stream(ledger: StreamLedger) -> None:
    run_batch(ledger, 0, {0: delta(2)}, 10)
    assert ledger.reset() == 2
    assert ledger.clock() is None and ledger.begin(0) == Progress()

"""StreamingMetrics on micro-batches given directly (as Spark's foreachBatch gives them): merged
windows equal a batch recompute, replays count once, late and untimed rows are counted."""

from __future__ import annotations

import itertools
import logging
import random
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from pyspark.sql import SparkSession

from anomaly.analyzers import Mean, Size
from anomaly.streaming import LATE_ROWS, StreamError, StreamingMetrics, Window
from repository import MetricsRepository
from tests.anomaly.streaming.data import (
    CLOSE,
    EXACT,
    MINUTE,
    T0,
    Row,
    assert_same,
    at,
    frame,
    recompute,
    stored,
    window_rows,
)

START = int(T0.timestamp() * 1000)


@pytest.fixture
def repo() -> Iterator[MetricsRepository]:
    repository = MetricsRepository(":memory:")
    yield repository
    repository.close()


def arrival_order(rows: list[Row], jitter_s: float, seed: int) -> list[Row]:
    """Rows in the order they arrive: each up to `jitter_s` seconds after its event time."""
    rng = random.Random(seed)
    return sorted(rows, key=lambda r: r["ts"].timestamp() + rng.random() * jitter_s)


def test_windows_merged_over_batches_and_replays_equal_a_batch_recompute(
    spark: SparkSession, repo: MetricsRepository
) -> None:
    rows = [r for m in range(6) for r in window_rows(m, 30, seed=1)]
    # Arrivals up to 25 s after their event time, under a 30 s watermark: out of order and
    # behind the watermark's event time, but never after their window closed.
    arrivals = arrival_order(rows, jitter_s=25, seed=2)
    cuts = [0, 17, 40, 41, 90, 131, 160, 180]
    stream = StreamingMetrics(
        "orders", [*EXACT, *CLOSE], time_column="ts", window="1m", watermark="30s",
        repository=repo, group_by=["country"], detector=None,
    )  # fmt: skip
    closed: list[Window] = []
    for batch, (low, high) in enumerate(itertools.pairwise(cuts)):
        df = frame(spark, arrivals[low:high])
        closed += [w.window for w in stream.process_batch(df, batch).closed]
        if batch in (2, 5):  # a crash after our commit, before Spark's: the batch runs again
            replay = stream.process_batch(df, batch)
            assert replay.rows == high - low and replay.late_rows == 0
            closed += [w.window for w in replay.closed]
    assert [w.start for w in closed] == [START + m * MINUTE for m in range(5)]  # once each
    assert stream.open_windows() == [Window(START + 5 * MINUTE, MINUTE)]
    expected = recompute(spark, frame(spark, rows), [*EXACT, *CLOSE], ["country"])
    expected = {k: v for k, v in expected.items() if k[0] < START + 5 * MINUTE}
    assert_same(stored(repo, "orders", ["country"]), expected, [a.metric_id for a in CLOSE])


def test_rows_of_a_closed_window_are_counted_and_reported_not_merged(
    spark: SparkSession, repo: MetricsRepository, caplog: pytest.LogCaptureFixture
) -> None:
    stream = StreamingMetrics(
        "late", [Size(), Mean("amount")], time_column="ts", window="1m", watermark="10s",
        repository=repo, detector=None,
    )  # fmt: skip
    first = window_rows(0, 10, seed=3) + window_rows(1, 10, seed=3)
    report = stream.process_batch(frame(spark, first), 0)
    assert [w.window.start for w in report.closed] == [START]  # watermark 00:01:50
    late = window_rows(0, 4, seed=4)
    # Within the watermark's delay of the newest event but in a closed window: too late.
    untimed = [{**late[0], "ts": None}]
    inside = [{**r, "ts": at(1.5)} for r in late[:2]]  # window 1 is still open: merged
    with caplog.at_level(logging.WARNING, logger="anomaly.streaming"):
        report = stream.process_batch(frame(spark, late + untimed + inside), 1)
    assert report.late == {Window(START, MINUTE): 4} and report.untimed == 1
    assert "4 late, 1 without event time" in caplog.text
    again = stream.process_batch(frame(spark, late[:3]), 2)
    assert again.late_rows == 3
    values = stored(repo, "late")
    assert values[(START, ())]["Size(*)"] == 10 and values[(START, ())][LATE_ROWS] == 7
    clock = stream.ledger.clock()
    assert clock is not None and clock.after.late == {"rows": 7}
    assert clock.after.untimed == {"rows": 1}
    # Window 1 merged the two rows that arrived inside it, once it closes.
    closing = stream.process_batch(frame(spark, window_rows(3, 2, seed=5)), 3)
    assert [w.window.start for w in closing.closed] == [START + MINUTE]
    assert stored(repo, "late")[(START + MINUTE, ())]["Size(*)"] == 12


def test_a_metric_that_fails_in_one_batch_fails_its_window(
    spark: SparkSession, repo: MetricsRepository
) -> None:
    stream = StreamingMetrics(
        "typed", [Size(), Mean("amount")], time_column="ts", window="1m", watermark="0s",
        repository=repo, detector=None,
    )  # fmt: skip
    stream.process_batch(frame(spark, window_rows(0, 5, seed=6)), 0)
    # Numbers held as text are judged (a value that does not parse is a violation), but a
    # boolean column is no number at all: that batch's Mean fails.
    flags = spark.createDataFrame([(at(0.5), "DE", True, "u1")], "ts timestamp, country string, "
                                  "amount boolean, user string")  # fmt: skip
    stream.process_batch(flags, 1)
    stream.process_batch(frame(spark, window_rows(1, 5, seed=6) + window_rows(2, 1, seed=6)), 2)
    values = stored(repo, "typed")
    assert values[(START, ())] == {"Size(*)": 6.0, "Mean(amount)": None}
    assert values[(START + MINUTE, ())]["Mean(amount)"] is not None
    failed = repo.load().with_tags({"stream": "typed"}).include_failures().get()
    errors = [r.error for run in failed for r in run if r.error]
    assert len(errors) == 1 and "amount" in errors[0] and "numeric" in errors[0]


@pytest.mark.parametrize(
    ("schema", "message"),
    [
        ("when timestamp, x long", "time_column 'ts' does not exist; columns: when, x"),
        ("ts boolean, x long", "time_column 'ts' has type boolean"),
    ],
)
def test_an_unusable_time_column_stops_the_batch_with_a_clear_error(
    spark: SparkSession, repo: MetricsRepository, schema: str, message: str
) -> None:
    stream = StreamingMetrics(
        "bad", [Size()], time_column="ts", window="1m", watermark="0s", repository=repo
    )
    with pytest.raises(StreamError, match=message):
        stream.process_batch(spark.createDataFrame([], schema), 0)
    assert stream.ledger.clock() is None  # nothing stored


def test_a_batch_dataframe_is_refused_as_a_stream(
    spark: SparkSession, repo: MetricsRepository, tmp_path: Path
) -> None:
    stream = StreamingMetrics(
        "batch", [Size()], time_column="ts", window="1m", watermark="0s", repository=repo
    )
    with pytest.raises(StreamError, match=r"not a streaming DataFrame .* use AnalysisRunner"):
        stream.start(frame(spark, window_rows(0, 2, seed=7)), str(tmp_path / "checkpoint"))


@pytest.mark.parametrize(
    ("schema", "value"),
    [
        ("ts string, x long", "2024-05-01T00:00:30Z"),
        ("ts bigint, x long", START + 30_000),
        ("ts date, x long", T0.date()),
    ],
)
def test_event_time_types(
    spark: SparkSession, repo: MetricsRepository, schema: str, value: object
) -> None:
    stream = StreamingMetrics(
        "typed", [Size()], time_column="ts", window="1m", watermark="0s", repository=repo
    )
    report = stream.process_batch(spark.createDataFrame([(value, 1), (None, 2)], schema), 0)
    assert report.untimed == 1 and stream.open_windows() == [Window(START, MINUTE)]


def test_an_implausible_future_event_time_is_counted_and_moves_no_watermark(
    spark: SparkSession, repo: MetricsRepository, caplog: pytest.LogCaptureFixture
) -> None:
    stream = StreamingMetrics(
        "typo", [Size(), Mean("amount")], time_column="ts", window="1m", watermark="10s",
        repository=repo, detector=None,
    )  # fmt: skip
    typo = {**window_rows(0, 1, seed=8)[0], "ts": datetime(9999, 12, 31, tzinfo=UTC)}
    with caplog.at_level(logging.WARNING, logger="anomaly.streaming"):
        first = stream.process_batch(frame(spark, [*window_rows(0, 5, seed=8), typo]), 0)
    assert first.future == 1 and first.untimed == 0 and first.rows == 6
    assert first.watermark is not None and first.watermark < START + MINUTE
    assert "1 with an implausible future event time" in caplog.text
    # The rows after it are on time: none late, and their windows close as the data moves.
    later = stream.process_batch(frame(spark, window_rows(0, 3, seed=9) + window_rows(2, 2, 9)), 1)
    assert later.late_rows == 0 and later.future == 0
    assert [w.window.start for w in later.closed] == [START]
    assert stored(repo, "typo")[(START, ())]["Size(*)"] == 8
    clock = stream.ledger.clock()
    assert clock is not None and clock.after.future == {"rows": 1} and clock.after.untimed == {}


@pytest.mark.parametrize(("max_future", "ahead"), [("1h", 1), ("1d", 0)])
def test_how_far_ahead_an_event_time_may_be_is_configurable(
    spark: SparkSession, repo: MetricsRepository, max_future: str, ahead: int
) -> None:
    stream = StreamingMetrics(
        "clock", [Size()], time_column="ts", window="1m", watermark="0s",
        repository=repo, detector=None, max_future=max_future,
    )  # fmt: skip
    soon = datetime.now(UTC) + timedelta(hours=2)
    report = stream.process_batch(frame(spark, [{**window_rows(0, 1, seed=1)[0], "ts": soon}]), 0)
    assert report.future == ahead and (report.watermark is None) == bool(ahead)

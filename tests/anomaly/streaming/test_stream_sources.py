"""Real streaming queries: JSON-lines and Parquet directories (availableNow) and the rate
source (processing-time trigger); an incident in one window is flagged once."""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from pyspark.sql import SparkSession

from anomaly.analyzers import Completeness, Mean, Size
from anomaly.config.alert_config import AlertSinkConfig
from anomaly.streaming import BatchReport, StreamingMetrics
from detectors import AlertBudget
from repository import MetricsRepository
from tests.anomaly.streaming.data import (
    DAY,
    EXACT,
    MINUTE,
    SCHEMA,
    T0,
    assert_same,
    recompute,
    stored,
    window_rows,
    write_json,
    write_parquet,
)

START = int(T0.timestamp() * 1000)


@pytest.fixture
def repo(tmp_path: Path) -> Iterator[MetricsRepository]:
    repository = MetricsRepository(tmp_path / "metrics.duckdb")
    yield repository
    repository.close()


def test_an_incident_in_one_window_of_a_json_stream_is_flagged_once(
    spark: SparkSession, repo: MetricsRepository, tmp_path: Path,
    caplog: pytest.LogCaptureFixture,
) -> None:  # fmt: skip
    # Daily windows: the default detector (Adaptive) with min_history 7 judges a daily series
    # from its 8th day (the default min_history, 14, would wait past the incident's day 12).
    incoming = tmp_path / "incoming"
    windows, incident = 16, 12
    for day in range(windows):
        rows = window_rows(day, 28, 11, 500 if day == incident else 50, minutes=DAY)
        write_json(incoming / f"{day:04d}.json", rows, day)
    write_json(incoming / "closer.json", window_rows(windows + 1, 1, 11, minutes=DAY), 99)
    df = spark.readStream.schema(SCHEMA).option("maxFilesPerTrigger", 6).json(str(incoming))
    stream = StreamingMetrics(
        "orders", [Size(), Completeness("amount"), Mean("amount")], time_column="ts",
        window="1d", watermark="1h", repository=repo, min_history=7,
        sinks={"log": AlertSinkConfig(type="log")},
        alert_budget=AlertBudget(false_alerts_per_week=0.5),
    )  # fmt: skip
    with caplog.at_level(logging.WARNING, logger="anomaly.alerts"):
        stream.start(df, str(tmp_path / "checkpoint")).awaitTermination()
    assert stream.error is None
    closed = [w for report in stream.reports for w in report.closed]
    assert [w.window.start for w in closed] == [START + d * DAY * MINUTE for d in range(windows)]
    verdicts = repo.load_verdicts(tags={"stream": "orders"})
    assert set(verdicts["status"]) == {"insufficient_history", "normal", "anomaly"}
    anomalies = verdicts[verdicts["status"] == "anomaly"]
    assert anomalies[["metric_id"]].to_dict("records") == [{"metric_id": "Mean(amount)"}]
    assert anomalies["timestamp"].iloc[0].timestamp() * 1000 == START + incident * DAY * MINUTE
    assert closed[incident].report.budget is not None  # the budget admitted it
    alerts = [r for r in caplog.records if r.name == "anomaly.alerts"]
    assert len(alerts) == 1 and "1 anomaly" in alerts[0].getMessage()


def test_a_parquet_stream_resumed_from_its_checkpoint_equals_a_batch_recompute(
    spark: SparkSession, repo: MetricsRepository, tmp_path: Path
) -> None:
    incoming, checkpoint = tmp_path / "incoming", str(tmp_path / "checkpoint")
    rows = {m: window_rows(m, 20, seed=12) for m in range(5)}
    stream = StreamingMetrics(
        "parquet", EXACT, time_column="ts", window="1m", watermark="30s", repository=repo,
        detector=None,
    )  # fmt: skip
    for round_, minutes in enumerate(((0, 1, 2), (3, 4))):
        for m in minutes:  # two files per window, the second one out of order
            write_parquet(incoming / f"{m}a.parquet", rows[m][:12], 10 * m)
            write_parquet(incoming / f"{m}b.parquet", rows[m][12:], 10 * m + 5)
        df = spark.readStream.schema(SCHEMA).option("maxFilesPerTrigger", 4)
        stream.start(df.parquet(str(incoming)), checkpoint).awaitTermination()
        assert stream.error is None, round_
    closed = [w.window.start for r in stream.reports for w in r.closed]
    assert closed == [START + m * MINUTE for m in range(4)]  # each once; window 4 stays open
    everything = spark.read.schema(SCHEMA).parquet(str(incoming))
    expected = recompute(spark, everything, EXACT)
    assert_same(stored(repo, "parquet"), {k: v for k, v in expected.items() if k[0] in closed})


def test_the_rate_source_with_a_processing_time_trigger(
    spark: SparkSession, repo: MetricsRepository, tmp_path: Path
) -> None:
    closed = threading.Event()

    def listen(report: BatchReport) -> None:  # called once the batch is in stream.reports
        if sum(len(r.closed) for r in stream.reports) >= 3:
            closed.set()

    rate = (
        spark.readStream.format("rate-micro-batch").option("rowsPerBatch", 20)
        .option("startTimestamp", START).option("advanceMillisPerBatch", 1000).load()
    )  # fmt: skip
    stream = StreamingMetrics(
        "rate", [Size(), Mean("value")], time_column="timestamp", window="2s", watermark="0s",
        repository=repo, detector=None, listener=listen,
    )  # fmt: skip
    query = stream.start(rate, str(tmp_path / "checkpoint"), trigger="0.2s")
    try:
        assert closed.wait(timeout=240), stream.error
    finally:
        query.stop()
    values = stored(repo, "rate")
    # Batch b has values 20b..20b+19 at START + b s: window w holds batches 2w and 2w+1.
    for w in range(3):
        low = 40 * w
        assert values[(START + 2000 * w, ())] == {"Size(*)": 40.0, "Mean(value)": low + 19.5}

"""Stream scans in the config file: errors at their key paths, ``anomaly scan`` (process what
is available), ``anomaly serve`` (queries until stopped, a failing one restarted)."""

from __future__ import annotations

import threading
from datetime import timedelta
from pathlib import Path

import pytest
from pyspark.sql import SparkSession

from anomaly.config.stream_config import StreamScanConfig
from anomaly.service import ConfigFileError, ScanRunner, ScanService, ScanStatus, load_config
from tests.anomaly.service.test_scheduler import wait_for
from tests.anomaly.streaming.data import T0, at, window_rows, write_json

START = int(T0.timestamp() * 1000)
CONFIG = """
repository: metrics.duckdb
sources:
  orders:
    stream: {format: json, path: incoming, schema: "ts timestamp, country string, amount long, user string", options: {maxFilesPerTrigger: 2}}
    time_column: ts
  orders_copy:
    stream: {format: json, path: copies, schema: "ts timestamp, country string, amount long, user string", options: {maxFilesPerTrigger: 2}}
    time_column: ts
  batch: {path: b.parquet}
scans:
  orders_minutely:
    source: orders
    metrics: [Size, {analyzer: Mean, column: amount}]
    detector: none
    stream: {window: 1m, watermark: 20s, checkpoint: checkpoints/orders, trigger: 0.2s}
  copied:
    source: orders
    detector: none
    metrics:
      - analyzer: Accuracy
        target: orders_copy
        rule: "$source.user = $target.user AND $source.ts = $target.ts"
    stream: {window: 1m, watermark: 0s, checkpoint: checkpoints/copied}
"""  # noqa: E501


def config_file(tmp_path: Path, text: str = CONFIG) -> Path:
    path = tmp_path / "anomaly.yml"
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        (', schema: "ts timestamp, country string, amount long, user string", options', ", options",
         "sources.orders.stream.schema: a streaming json source needs 'schema'"),
        ("    time_column: ts\n  orders_copy", "  orders_copy",
         "sources.orders: a stream source needs 'time_column'"),
        ("    stream: {window: 1m, watermark: 20s, checkpoint: checkpoints/orders, trigger: "
         "0.2s}\n", "", "scans.orders_minutely: source 'orders' is a stream: the scan needs"),
        ("trigger: 0.2s}", "trigger: often}",
         "scans.orders_minutely.stream.trigger: write available_now or an interval such as 30s"),
        ("{window: 1m, watermark: 20s", "{windw: 1m, watermark: 20s",
         "scans.orders_minutely.stream.windw: unknown key 'windw' (did you mean 'window'?)"),
        ("    stream: {window: 1m, watermark: 20s",
         "    schedule: {interval: 1h}\n    stream: {window: 1m, watermark: 20s",
         "scans.orders_minutely.schedule: a stream scan runs continuously"),
        ("target: orders_copy", "target: batch",
         "scans.copied.metrics[0].target: in a stream scan, Accuracy's target must name a stream"),
        (" AND $source.ts = $target.ts\"", "\"", "scans.copied.stream.tolerance: the rule does "
         "not bound how much later"),
        ("    source: orders\n    metrics: [Size", "    source: batch\n    metrics: [Size",
         "scans.orders_minutely.stream: source 'batch' is not a stream source"),
    ],
)  # fmt: skip
def test_config_errors_point_at_the_key(tmp_path: Path, old: str, new: str, message: str) -> None:
    assert old in CONFIG
    with pytest.raises(ConfigFileError) as raised:
        load_config(config_file(tmp_path, CONFIG.replace(old, new)))
    assert message in str(raised.value)


def test_scan_processes_what_is_available_and_accuracy_compares_two_streams(
    spark: SparkSession, tmp_path: Path
) -> None:
    runner = ScanRunner(load_config(config_file(tmp_path)), spark=spark)
    for minute in range(3):
        rows = window_rows(minute, 10, seed=41)
        write_json(tmp_path / "incoming" / f"{minute}.json", rows, minute)
        copied = [r for i, r in enumerate(rows) if i % 5]  # every 5th row is missing
        write_json(tmp_path / "copies" / f"{minute}.json", copied, minute)
    closer = [{**window_rows(5, 1, seed=42)[0], "ts": at(5)}]
    write_json(tmp_path / "incoming" / "closer.json", closer, 9)
    write_json(tmp_path / "copies" / "closer.json", closer, 9)

    report = runner.run("orders_minutely")
    assert report.status == ScanStatus.OK, report.error
    sizes = runner.repository.history("Size(*)", tags={"scan": "orders_minutely"})
    assert sizes.tolist() == [10.0, 10.0, 10.0]
    accuracy = runner.run("copied")
    assert accuracy.status == ScanStatus.OK, accuracy.error
    values = runner.repository.load().with_tags({"scan": "copied"}).to_pandas()
    totals = values[values["name"] == "Accuracy.total"]["value"].tolist()
    matched = values[values["name"] == "Accuracy.matched"]["value"].tolist()
    assert (totals, matched) == ([10.0] * 3, [8.0] * 3)
    assert set(values["dataset"]) == {"orders"} and set(values["stream"]) == {"copied"}
    # Again: nothing new, nothing stored twice.
    assert runner.run("orders_minutely").status == ScanStatus.OK
    assert runner.repository.history("Size(*)", tags={"scan": "orders_minutely"}).size == 3


def test_serve_runs_stream_queries_until_stopped_and_retries_a_failing_one(
    spark: SparkSession, tmp_path: Path
) -> None:
    broken = CONFIG.replace('copies, schema: "ts timestamp', 'copies, schema: "t timestamp')
    runner = ScanRunner(load_config(config_file(tmp_path, broken)), spark=spark)
    for directory in ("incoming", "copies"):
        (tmp_path / directory).mkdir()
    service = ScanService(runner)
    assert (service.names, service.streams.names) == ([], ["orders_minutely", "copied"])
    serving = threading.Thread(target=service.serve_forever, kwargs={"install_signals": False})
    serving.start()
    try:
        for minute in range(3):
            write_json(tmp_path / "incoming" / f"{minute}.json", window_rows(minute, 6, 43), minute)
        stored = wait_for(
            lambda: (
                runner.repository.history("Size(*)", tags={"scan": "orders_minutely"}).size >= 2
            ),
            timeout=240,
        )
    finally:
        service.request_stop()
        serving.join(timeout=120)
    assert stored and not serving.is_alive()
    assert not any(s.query.isActive for s in service.streams.scans.values() if s.query)
    log = runner.repository.scan_log.runs()
    failed = log[log["status"] == "failed"]
    assert set(failed["scan"]) == {"copied"}
    assert "source 'orders_copy': time_column 'ts' does not exist" in failed["error"].iloc[0]
    assert service.streams.retry_at.keys() == {"copied"}


def test_how_far_ahead_event_times_may_be_is_set_per_stream_scan() -> None:
    base = {"window": "1h", "watermark": "5m", "checkpoint": "/ck"}
    assert StreamScanConfig.model_validate(base).max_future == timedelta(days=1)
    chosen = StreamScanConfig.model_validate({**base, "max_future": "6h"})
    assert chosen.max_future == timedelta(hours=6)

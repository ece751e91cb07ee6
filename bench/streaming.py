"""Streaming metrics: ours vs a plain streaming aggregation of the same metrics (the floor).

* ours: `StreamingMetrics` (one shared aggregation per micro-batch, grouped by window and
  country, states merged into the repository's state store, each closed window stored as a
  run, judged by the default detector on 192 earlier windows of history, verdicts stored);
* floor: ``withWatermark(...).groupBy(window(ts), country).agg(...)`` of the same seven metrics
  in append mode into the ``noop`` sink (Spark's own state store, nothing stored or judged).

Both read the same Parquet directory one file per micro-batch (``availableNow``), 1-hour
windows of four micro-batches each, in the same session, interleaved, best of `--repeat`.
Rows per second per core are rows / CPU seconds (the Spark JVM plus this process): on a shared
machine CPU seconds are stable where wall times are not. Then the end-to-end latency: a live
query (processing-time trigger) gets files one at a time, each moving the watermark past the
previous window; from the moment a file lands to the window's metrics and verdicts being in
the repository. Prints tables and writes bench/results/streaming.json.

    python bench/streaming.py [--rows 4000000] [--files 16]
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
from common import CpuClock, print_table, write_results

from anomaly.analyzers import (
    Completeness,
    Compliance,
    Maximum,
    Mean,
    Minimum,
    Size,
    StandardDeviation,
)
from anomaly.spark import build_session
from anomaly.streaming import STREAM_TAG, WINDOW_TAG, BatchReport, StreamingMetrics, Window
from repository import MetricRecord, MetricsRepository, ResultKey

SCHEMA = "ts timestamp, country string, x double"
COUNTRIES = ["DE", "FR", "IT", "ES", "NL"]
START = 1_714_521_600  # 2024-05-01 00:00 UTC
WINDOW_MINUTES = 60
HISTORY = 192  # eight days of hourly windows: the default detector judges after a week
"""Earlier windows stored before each run, so every closing window is judged on a history."""
ANALYZERS = [
    Size(), Completeness("x"), Mean("x"), Minimum("x"), Maximum("x"), StandardDeviation("x"),
    Compliance("positive", "x > 0"),
]  # fmt: skip


def write_file(path: Path, index: int, rows: int, seed: int, minutes: float) -> None:
    """`rows` events over the `minutes` starting at `index * minutes`, in `index` order."""
    rng = np.random.default_rng(seed + index)
    seconds = START + (index + np.sort(rng.random(rows))) * minutes * 60
    x = rng.normal(10, 3, rows)
    table = pa.table({
        "ts": pa.array((seconds * 1e6).astype("int64"), pa.timestamp("us", tz="UTC")),
        "country": pa.array(np.array(COUNTRIES)[rng.integers(0, len(COUNTRIES), rows)]),
        "x": pa.array(x, mask=rng.random(rows) < 0.02),
    })  # fmt: skip
    pq.write_table(table, path)
    os.utime(path, (START + index, START + index))


def history(repo: MetricsRepository, stream: str, rows_per_window: int) -> None:
    """`HISTORY` windows before START, their metric values computed on data drawn as
    `write_file` draws it (so the detector sees the same noise it will judge)."""
    rng = np.random.default_rng(3)
    shares = [1 / len(COUNTRIES)] * len(COUNTRIES)
    for back in range(HISTORY, 0, -1):
        window = Window((START - back * WINDOW_MINUTES * 60) * 1000, WINDOW_MINUTES * 60_000)
        records = []
        for country, size in zip(COUNTRIES, rng.multinomial(rows_per_window, shares), strict=True):
            x = rng.normal(10, 3, size)
            x = x[rng.random(size) >= 0.02]  # the nulls
            positive = (x > 0).sum() / size  # a null is not compliant
            values = [size, len(x) / size, x.mean(), x.min(), x.max(), x.std(), positive]
            records += [
                MetricRecord(a.entity, a.instance, a.metric_name, a.metric_id, float(value),
                             {"country": country})
                for a, value in zip(ANALYZERS, values, strict=True)
            ]  # fmt: skip
        key = ResultKey(window.start_time, {STREAM_TAG: stream, WINDOW_TAG: window.label})
        repo.save(key, records)


def floor(spark: Any, incoming: Path, checkpoint: Path) -> None:
    from pyspark.sql import functions as F

    df = spark.readStream.schema(SCHEMA).option("maxFilesPerTrigger", 1).parquet(str(incoming))
    x = F.col("x")
    aggregated = (
        df.withWatermark("ts", "30 seconds")
        .groupBy(F.window("ts", f"{WINDOW_MINUTES} minutes"), "country")
        .agg(F.count(F.lit(1)), F.count(x), F.avg(x), F.min(x), F.max(x), F.stddev_pop(x),
             F.count_if(x > 0))
    )  # fmt: skip
    query = aggregated.writeStream.format("noop").outputMode("append")
    query = query.option("checkpointLocation", str(checkpoint)).trigger(availableNow=True)
    query.start().awaitTermination()


def ours(spark: Any, incoming: Path, checkpoint: Path, repo: MetricsRepository) -> Counter[str]:
    df = spark.readStream.schema(SCHEMA).option("maxFilesPerTrigger", 1).parquet(str(incoming))
    stream = StreamingMetrics(
        "bench", ANALYZERS, time_column="ts", window=f"{WINDOW_MINUTES}m", watermark="30s",
        repository=repo, group_by=["country"],
    )  # fmt: skip
    stream.start(df, str(checkpoint)).awaitTermination()
    assert stream.error is None, stream.error
    windows = [w for r in stream.reports for w in r.closed]
    return Counter(f.verdict.status for w in windows for f in w.report.findings)


def throughput(spark: Any, tmp: Path, rows: int, files: int, repeat: int) -> dict[str, Any]:
    incoming = tmp / "incoming"
    incoming.mkdir()
    for index in range(files):  # four micro-batches per window
        write_file(incoming / f"{index:04d}.parquet", index, rows // files, 7, WINDOW_MINUTES / 4)
    cpu = CpuClock(spark)
    runs: dict[str, dict[str, float]] = {}
    verdicts: Counter[str] = Counter()
    for attempt in range(repeat + 1):  # the first round warms the JVM up and is not counted
        for name in ("floor", "ours"):
            checkpoint = tmp / f"checkpoint-{name}-{attempt}"
            repo = MetricsRepository(tmp / f"metrics-{attempt}.duckdb")
            if name == "ours":
                history(repo, "bench", rows // files * 4)
            before, started = cpu(), time.perf_counter()
            if name == "floor":
                floor(spark, incoming, checkpoint)
            else:
                verdicts = ours(spark, incoming, checkpoint, repo)
            seconds, cpu_seconds = time.perf_counter() - started, cpu() - before
            if attempt:
                run = runs.setdefault(name, {"seconds": seconds, "cpu_seconds": cpu_seconds})
                run["seconds"] = min(run["seconds"], seconds)
                run["cpu_seconds"] = min(run["cpu_seconds"], cpu_seconds)
    for run in runs.values():
        run["rows_per_cpu_second"] = rows / run["cpu_seconds"]
    return {"rows": rows, "files": files, "verdicts": dict(verdicts), "runs": runs,
            "ours_over_floor_cpu": runs["ours"]["cpu_seconds"] / runs["floor"]["cpu_seconds"],
            "ours_over_floor_wall": runs["ours"]["seconds"] / runs["floor"]["seconds"]}  # fmt: skip


def latency(spark: Any, tmp: Path, rows: int, windows: int) -> dict[str, Any]:
    """A live query; each file (one window of events) lands once the previous one is
    processed, and moves the watermark past the previous window."""
    incoming = tmp / "live"
    incoming.mkdir()
    reports: list[BatchReport] = []
    done = threading.Event()

    def listen(report: BatchReport) -> None:
        reports.append(report)
        done.set()

    df = spark.readStream.schema(SCHEMA).parquet(str(incoming))
    repo = MetricsRepository(tmp / "live.duckdb")
    history(repo, "live", rows)
    stream = StreamingMetrics(
        "live", ANALYZERS, time_column="ts", window=f"{WINDOW_MINUTES}m", watermark="30s",
        repository=repo, group_by=["country"], listener=listen,
    )  # fmt: skip
    query = stream.start(df, str(tmp / "checkpoint-live"), trigger="0.5s")
    landed: dict[int, float] = {}
    try:
        for index in range(windows + 1):
            staging = tmp / f"staging-{index}.parquet"
            write_file(staging, index, rows, 11, WINDOW_MINUTES)
            done.clear()
            landed[index] = time.time()
            staging.rename(incoming / staging.name)  # atomic: the source never sees half a file
            if not done.wait(timeout=600):
                raise RuntimeError(f"no micro-batch within 600 s: {stream.error}")
    finally:
        query.stop()
    samples = []
    for index, report in enumerate(reports):
        for result in report.closed:
            samples.append({
                "end_to_end_s": result.stored_at - landed[index],
                "batch_start_s": report.started_at - landed[index],
                "store_and_judge_s": result.report.seconds or 0.0,
            })  # fmt: skip
    keys = ["end_to_end_s", "batch_start_s", "store_and_judge_s"]
    summary = {
        key: {"median": statistics.median(s[key] for s in samples),
              "max": max(s[key] for s in samples)}
        for key in keys
    }  # fmt: skip
    return {"rows_per_file": rows, "windows": len(samples), "trigger": "0.5s", **summary}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rows", type=int, default=4_000_000)
    parser.add_argument("--files", type=int, default=16)
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--latency-rows", type=int, default=50_000)
    parser.add_argument("--latency-windows", type=int, default=8)
    args = parser.parse_args()
    spark = build_session(
        master="local[*]",
        conf={"spark.driver.memory": "4g", "spark.sql.shuffle.partitions": "4"},
    )
    load = [os.getloadavg()[0]]
    with tempfile.TemporaryDirectory() as tmp:
        speed = throughput(spark, Path(tmp), args.rows, args.files, args.repeat)
        delay = latency(spark, Path(tmp), args.latency_rows, args.latency_windows)
    load.append(os.getloadavg()[0])
    runs = speed["runs"]
    print(f"streaming metrics: {args.rows:,} rows in {args.files} micro-batches, "
          f"{len(ANALYZERS)} metrics per {WINDOW_MINUTES}-minute window and country, "
          f"verdicts on the closed windows: {speed['verdicts']}")  # fmt: skip
    print_table(
        ["query", "wall s", "cpu s", "rows / s / core", "cpu / floor"],
        [[name, run["seconds"], run["cpu_seconds"], run["rows_per_cpu_second"],
          run["cpu_seconds"] / runs["floor"]["cpu_seconds"]] for name, run in runs.items()],
    )  # fmt: skip
    print(f"ours vs floor: {speed['ours_over_floor_cpu']:.2f}x CPU, "
          f"{speed['ours_over_floor_wall']:.2f}x wall (target <= 1.3)")  # fmt: skip
    print()
    print(f"latency, live query (trigger {delay['trigger']}, {args.latency_rows:,} rows a file, "
          f"{delay['windows']} windows):")  # fmt: skip
    print_table(
        ["from the file landing to", "median s", "max s"],
        [["the micro-batch starting", delay["batch_start_s"]["median"],
          delay["batch_start_s"]["max"]],
         ["the window's metrics and verdicts stored", delay["end_to_end_s"]["median"],
          delay["end_to_end_s"]["max"]],
         ["(of which storing and judging the window)", delay["store_and_judge_s"]["median"],
          delay["store_and_judge_s"]["max"]]],
    )  # fmt: skip
    print(f"1-minute load average: {load[0]:.1f} at start, {load[1]:.1f} at the end (2 cores)")
    write_results("streaming", {"throughput": speed, "latency": delay, "load_average": load})


if __name__ == "__main__":
    main()

"""Exactly once across real process kills: a streaming job is SIGKILLed twice (once right
after storing a batch Spark has not yet recorded, once at an arbitrary moment) and restarted
from its checkpoint each time (the last restart in this process); every window's metrics then
equal a batch recompute over the same data, late rows within the watermark included."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from pyspark.sql import SparkSession

from repository import MetricsRepository
from tests.anomaly.streaming import _job
from tests.anomaly.streaming.data import (
    MINUTE,
    SCHEMA,
    SHARED,
    T0,
    assert_same,
    at,
    recompute,
    stored,
    window_rows,
    write_json,
)

ROOT = Path(__file__).resolve().parents[3]
START = int(T0.timestamp() * 1000)
WINDOWS = 6


def job(tmp: Path, trigger: str, crash: int | None = None) -> subprocess.Popen[str]:
    args = [str(tmp / "incoming"), str(tmp / "checkpoint"), str(tmp / "metrics.duckdb"), trigger]
    return subprocess.Popen(
        [sys.executable, "-m", "tests.anomaly.streaming._job", *args,
         *([str(crash)] if crash is not None else [])],
        cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)}, stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL, text=True,
    )  # fmt: skip


def committed(tmp: Path) -> int:
    commits = tmp / "checkpoint" / "commits"
    return len([p for p in commits.iterdir() if p.name.isdigit()]) if commits.exists() else 0


def files_committed(tmp: Path) -> int:
    """How many input files the committed batches cover (the file source's log offset of the
    last committed batch, plus one). A kill after the source logged a file but before the batch
    was planned makes the restart plan that file with the next one: one batch of two files,
    every file still read once."""
    last = committed(tmp) - 1
    if last < 0:
        return 0
    offsets = (tmp / "checkpoint" / "offsets" / str(last)).read_text().splitlines()
    return int(json.loads(offsets[-1])["logOffset"]) + 1


@pytest.mark.slow
def test_killed_and_restarted_jobs_store_every_window_once(
    spark: SparkSession, tmp_path: Path
) -> None:
    rows = []
    for minute in range(WINDOWS):
        current = window_rows(minute, 24, seed=21)
        # Rows of the previous window, 10-15 s before its end, arrive with this window's file:
        # behind the newest event time, within the 45 s watermark: they must be merged.
        stragglers = [{**r, "ts": at(minute - 0.25 + i / 240)} for i, r in
                      enumerate(window_rows(minute - 1, 3, seed=22))] if minute else []  # fmt: skip
        write_json(tmp_path / "incoming" / f"{minute:04d}.json", current + stragglers, minute)
        rows += current + stragglers
    write_json(tmp_path / "incoming" / "closer.json", window_rows(WINDOWS + 2, 1, 23), 99)

    first = job(tmp_path, "0.1s", crash=2)  # dies after storing batch 2, before Spark's commit
    out, _ = first.communicate(timeout=600)
    assert first.returncode == -signal.SIGKILL, out
    assert out.splitlines()[-1].startswith("batch 2 ") and committed(tmp_path) == 2

    second = job(tmp_path, "0.1s")
    deadline = time.monotonic() + 600
    # Once it has replayed batch 2 (and recorded it): wherever it is then, in batch 3 or
    # between batches. The restart here runs the rest on this process's warm JVM.
    while committed(tmp_path) < 3 and time.monotonic() < deadline and second.poll() is None:
        time.sleep(0.05)
    second.send_signal(signal.SIGKILL)
    out, _ = second.communicate(timeout=60)
    assert second.returncode == -signal.SIGKILL
    assert out.startswith("batch 2 closed []"), out  # batch 2 replayed: its windows were closed

    # The last restart runs here, on this process's Spark, from the same checkpoint.
    with MetricsRepository(tmp_path / "metrics.duckdb") as repo:
        stream = _job.stream(repo)
        df = spark.readStream.schema(SCHEMA).option("maxFilesPerTrigger", 1)
        query = stream.start(df.json(str(tmp_path / "incoming")), str(tmp_path / "checkpoint"))
        query.awaitTermination()
        assert stream.error is None and files_committed(tmp_path) == WINDOWS + 1
        values = stored(repo, "orders", ["country"])
        runs = repo.load().with_tags({"stream": "orders"}).get()
    everything = spark.createDataFrame([tuple(r.values()) for r in rows], SCHEMA)
    expected = recompute(spark, everything, SHARED, ["country"])
    assert {k[0] for k in values} == {START + m * MINUTE for m in range(WINDOWS)}
    assert len({run.key.timestamp for run in runs}) == len(runs) == WINDOWS
    assert_same(values, expected)

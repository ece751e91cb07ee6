"""Many writers and readers on one PostgreSQL repository: processes racing, a writer killed by
SIGKILL mid-save, and the scan service running beside four pipelines."""

from __future__ import annotations

import multiprocessing
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pandas as pd
import psycopg
import pytest

from repository import MetricsRepository, ResultKey
from repository.backends.postgres.backend import LOCK_CLASS
from repository.backends.postgres.cluster import TemporaryCluster
from tests.repository import _workers
from tests.repository.conftest import ROOT, kill_inside_the_write, postgres_location, size

# Saves per worker. The eight workers race to create the same 49 groups and series on their
# first saves, and every later save contends for the writers' lock with seven others: 50 saves
# (400 contended ones) show a lost or doubled run as well as 200 did, in a quarter of the time.
SAVES = 50


@pytest.mark.slow
def test_eight_processes_saving_runs_of_50_points_each_lose_nothing(
    postgres: TemporaryCluster,
) -> None:
    url = postgres_location(postgres)
    MetricsRepository(url)  # create the tables once, before the race
    context = multiprocessing.get_context("spawn")  # as if on eight hosts
    start = context.Barrier(8)  # no worker saves before the last one is up: they all race
    workers = [
        context.Process(target=_workers.save_points, args=(url, w, SAVES, 50, start))
        for w in range(8)
    ]
    started = time.monotonic()
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(timeout=600)
    assert [w.exitcode for w in workers] == [0] * 8
    print(f"8 x {SAVES} saves of 50 points in {time.monotonic() - started:.1f} s")

    repo = MetricsRepository(url)
    runs = repo.load().get()
    assert len(runs) == 8 * SAVES and {len(run) for run in runs} == {50}
    for w in range(8):
        assert repo.history("Size(*)", tags={"worker": str(w)}).tolist() == [
            w * 1000.0 + i for i in range(SAVES)
        ]
    with repo.sql() as cur:  # no run, series or group was created twice
        assert cur.execute(
            "SELECT count(*), count(DISTINCT (ts, tags_key)) FROM runs"
        ).fetchall() == [(8 * SAVES, 8 * SAVES)]
        assert cur.execute("SELECT count(*) FROM points").fetchall() == [(8 * SAVES * 50,)]
        assert cur.execute("SELECT count(*) FROM series").fetchall() == [(50,)]
        assert cur.execute("SELECT count(*) FROM group_keys").fetchall() == [(50,)]


def _writer_holds_lock(url: str) -> bool:
    with psycopg.connect(url, autocommit=True) as connection:
        rows = connection.execute(
            "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND classid = %s "
            "AND granted",
            [LOCK_CLASS],
        ).fetchall()
    return bool(rows[0][0])


def test_a_process_killed_mid_save_leaves_no_partial_run(postgres: TemporaryCluster) -> None:
    url = postgres_location(postgres)
    MetricsRepository(url)
    output = kill_inside_the_write(lambda: _writer_holds_lock(url), "big-save", url, "1000", "150")
    assert "saved" not in output

    repo = MetricsRepository(url)
    runs = {run.key.tags["run"]: len(run) for run in repo.load().include_failures().get()}
    assert runs in ({"small": 1}, {"small": 1, "big": 150_000})  # all of the big run or none
    # The server rolls the killed transaction back and frees its lock: the next save gets it.
    repo.save(ResultKey(2, {"run": "after"}), [size(3.0)])
    assert repo.history("Size(*)", tags={"run": "after"}).tolist() == [3.0]
    with repo.sql() as cur:  # nor any of its series
        assert cur.execute("SELECT count(*) FROM series").fetchall() == [
            (1 + (150_000 if "big" in runs else 0),)
        ]


def test_a_process_killed_mid_replace_keeps_the_old_states(postgres: TemporaryCluster) -> None:
    url = postgres_location(postgres)
    MetricsRepository(url)
    kill_inside_the_write(lambda: _writer_holds_lock(url), "big-replace", url, "40")

    states = MetricsRepository(url).states.load("d")
    versions = {s.format_version for s in states}
    assert versions in ({1}, {2})  # either every new state or only the old one
    if versions == {1}:
        assert [(s.partition, s.payload) for s in states] == [("p0", b"old")]
    else:
        assert len(states) == 40


SERVICE = """
repository: ${ANOMALY_TEST_REPOSITORY}
spark: {master: "local[1]", conf: {spark.sql.shuffle.partitions: 1}}
sources:
  events: {path: events.parquet}
scans:
  quick:
    source: events
    group_by: country
    schedule: {interval: 2s}
    metrics: [Size, {analyzer: Mean, column: price}]
"""


@pytest.mark.slow
def test_the_scan_service_and_four_pipelines_write_and_read_together(
    postgres: TemporaryCluster, tmp_path: Path
) -> None:
    url = postgres_location(postgres)
    repo = MetricsRepository(url)
    pd.DataFrame({"country": ["DE", "FR"] * 20, "price": [float(i) for i in range(40)]}).to_parquet(
        tmp_path / "events.parquet", index=False
    )
    (tmp_path / "anomaly.yml").write_text(SERVICE)
    env = {**os.environ, "PYTHONPATH": str(ROOT), "ANOMALY_TEST_REPOSITORY": url}
    service = subprocess.Popen(
        [sys.executable, "-m", "anomaly", "serve", "anomaly.yml"],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env, cwd=tmp_path,
    )  # fmt: skip
    seen: list[str] = []  # the service's output so far

    def read() -> None:
        for line in service.stdout or []:
            seen.append(line)

    reader = threading.Thread(target=read)
    reader.start()
    stop = tmp_path / "stop"
    context = multiprocessing.get_context("spawn")
    # Each pipeline pauses 50 ms between runs, as its own work would: four pipelines spinning
    # back to back only starved the service's scans of CPU (and the test waits for two scans).
    pipelines = [
        context.Process(target=_workers.pipeline, args=(url, w, str(stop), 20, 0.05))
        for w in range(4)
    ]

    def wait_until(condition: Callable[[], bool]) -> None:
        deadline = time.monotonic() + 400
        while not condition():
            assert service.poll() is None and time.monotonic() < deadline, "".join(seen)
            time.sleep(0.5)

    def scheduled() -> bool:  # the service logs each scan's next run once its Spark is up
        return "next run at" in "".join(seen)

    def finished_scans() -> int:
        return int((repo.scan_log.runs()["status"] != "running").sum())

    try:
        # The pipelines start once the service's JVM is up: they race its scans, not its
        # start-up (four pipelines spinning through a JVM's start only slowed it down).
        wait_until(scheduled)
        for process in pipelines:
            process.start()
        wait_until(lambda: all(len(repo.history("Size(*)", tags={"pipeline": str(w)})) > 0
                               for w in range(4)))  # fmt: skip
        overlapped = finished_scans() + 2  # two scans that run while every pipeline writes
        wait_until(lambda: finished_scans() >= overlapped)
        stop.touch()
        for process in pipelines:
            process.join(timeout=300)
        service.send_signal(signal.SIGTERM)
        code = service.wait(timeout=120)
    finally:
        for process in pipelines:
            if process.pid is not None:
                process.kill()
        service.kill()
        reader.join()
    output = "".join(seen)
    assert [p.exitcode for p in pipelines] == [0] * 4
    assert code == 0 and "Traceback" not in output, output
    for w in range(4):
        tags = {"pipeline": str(w)}
        runs = len(repo.history("Size(*)", tags=tags))
        assert runs >= 20
        assert len(repo.load_outcomes(tags=tags)) == len(repo.load_verdicts(tags=tags)) == runs
    log = repo.scan_log.runs()
    assert set(log["status"]) == {"ok"}, log
    scanned = repo.load().with_tags({"scan": "quick"}).to_pandas()
    assert len(scanned) == len(log) * 4  # Size and Mean(price) of DE and FR per scan
    assert len(repo.load_verdicts(tags={"scan": "quick"})) == len(scanned)
    # The CLI's query commands read the same database by its URL (side by side: each is
    # mostly an interpreter starting).
    commands = (
        ["history", "-r", url, "Size(*)", "--scan", "quick", "--format", "json"],
        ["anomalies", "-r", url, "--scan", "quick", "--status", "all", "--format", "csv"],
    )
    pipe = subprocess.PIPE
    queries = [
        subprocess.Popen(
            [sys.executable, "-m", "anomaly", *argv], stdout=pipe, stderr=pipe, text=True, env=env
        )
        for argv in commands
    ]
    for query in queries:
        stdout, stderr = query.communicate(timeout=300)
        assert query.returncode == 0, stderr
        assert "DE" in stdout and "FR" in stdout

from __future__ import annotations

import multiprocessing
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from repository import MetricsRepository, RepositoryLockedError, ResultKey
from tests.repository import _workers
from tests.repository.conftest import mean, size

ROOT = Path(__file__).resolve().parents[2]


# Runs per worker. The workers start together and save back to back, so every save contends
# for the file with three others and the series and groups are raced for on the first saves:
# 240 contended saves. A copy without the cross-process lock (nor DuckDB's lock retries) failed
# 3 of 4 workers at 60 runs; 250 runs took four times as long to prove the same.
RUNS = 60


@pytest.mark.slow  # 240 runs in four processes
def test_four_processes_saving_runs_lose_nothing(repo_path: Path) -> None:
    MetricsRepository(repo_path)  # create the file once, before the race
    context = multiprocessing.get_context("spawn")  # no fork of a process running DuckDB threads
    start = context.Barrier(4)  # no worker saves before the last one is up: they all race
    workers = [
        context.Process(target=_workers.save_runs, args=(str(repo_path), w, RUNS, start))
        for w in range(4)
    ]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(timeout=240)
    assert [w.exitcode for w in workers] == [0, 0, 0, 0]

    repo = MetricsRepository(repo_path)
    for w in range(4):
        assert repo.history("Size(*)", tags={"worker": str(w)}).tolist() == [
            float(i) for i in range(RUNS)
        ]
    frame = repo.load().include_failures().to_pandas()
    assert len(frame) == 4 * RUNS * 3
    assert frame.groupby("worker").size().to_dict() == {str(w): RUNS * 3 for w in range(4)}
    with repo.sql() as cur:  # no run, series or group was created twice
        assert cur.execute(
            "SELECT count(*), count(DISTINCT (ts, tags_key)) FROM runs"
        ).fetchall() == [(4 * RUNS, 4 * RUNS)]
        assert cur.execute("SELECT count(*) FROM series").fetchall() == [(5,)]
        assert cur.execute("SELECT count(*) FROM group_keys").fetchall() == [(4,)]


def test_threads_writing_and_reading_one_file_lose_nothing(repo_path: Path) -> None:
    shared = MetricsRepository(repo_path)
    errors: list[BaseException] = []

    def write(worker: int) -> None:
        own = MetricsRepository(repo_path) if worker % 2 else shared
        try:
            for i in range(30):
                own.save(
                    ResultKey(i * 100 + worker, {"thread": str(worker)}),
                    [size(float(i)), mean("p", 1.0, g=str(i % 4))],
                )
                own.history("Size(*)", tags={"thread": str(worker)})
        except BaseException as error:  # surfaced below: a thread's failure must fail the test
            errors.append(error)

    threads = [threading.Thread(target=write, args=(w,)) for w in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    for w in range(6):
        assert shared.history("Size(*)", tags={"thread": str(w)}).tolist() == [
            float(i) for i in range(30)
        ]
    assert len(shared.groups("Mean(p)")) == 4


def _start(*args: str) -> subprocess.Popen[str]:
    process = subprocess.Popen(
        [sys.executable, "-m", "tests.repository._workers", *args],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert process.stdout is not None
    assert process.stdout.readline().strip() == "ready"
    return process


def test_a_busy_file_times_out_with_a_clear_error_then_works(repo_path: Path) -> None:
    repo = MetricsRepository(repo_path, lock_timeout=0.2)
    holder = _start("hold-session", str(repo_path), "1.5")
    try:
        started = time.monotonic()
        with pytest.raises(RepositoryLockedError, match=r"locked by another process for 0\.2 s"):
            repo.save(ResultKey(0), [size(1.0)])
        assert time.monotonic() - started < 1.0
        patient = MetricsRepository(repo_path, lock_timeout=30)  # waits for the session to end
        patient.save(ResultKey(0), [size(1.0)])
        assert patient.history("Size(*)").tolist() == [1.0]
    finally:
        holder.kill()
        holder.wait()


def test_a_foreign_duckdb_client_holding_the_file_is_named(repo_path: Path) -> None:
    repo = MetricsRepository(repo_path, lock_timeout=0.3)
    code = (
        "import duckdb, sys, time; con = duckdb.connect(sys.argv[1]); "
        "print('ready', flush=True); time.sleep(60)"
    )
    holder = subprocess.Popen(
        [sys.executable, "-c", code, str(repo_path)], stdout=subprocess.PIPE, text=True
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "ready"
        with pytest.raises(RepositoryLockedError, match=f"DuckDB client .*PID {holder.pid}"):
            repo.history("Size(*)")
    finally:
        holder.kill()
        holder.wait()
    assert repo.history("Size(*)").empty  # the lock died with the process

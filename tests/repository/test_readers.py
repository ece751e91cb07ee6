"""Readers share the file: shared lock and read-only attach; writers take it exclusively."""

from __future__ import annotations

import multiprocessing
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from repository import MetricsRepository, RepositoryError, RepositoryLockedError, ResultKey
from tests.repository import _workers
from tests.repository.conftest import size

ROOT = Path(__file__).resolve().parents[2]


def _start(*args: str, wait: bool = True) -> subprocess.Popen[str]:
    process = subprocess.Popen(
        [sys.executable, "-m", "tests.repository._workers", *args],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
    )
    if wait:
        _ready(process)
    return process


def _ready(process: subprocess.Popen[str]) -> str:
    assert process.stdout is not None
    assert process.stdout.readline().strip() == "ready"
    return process.stdout.readline().strip()


def _stop(*processes: subprocess.Popen[str]) -> None:
    for process in processes:
        process.kill()
        process.wait()


def test_readers_do_not_wait_for_each_other(repo_path: Path) -> None:
    repo = MetricsRepository(repo_path, lock_timeout=0.5)
    repo.save(ResultKey(0), [size(1.0)])
    hold = 4.0
    readers = [_start("hold-session", str(repo_path), str(hold), wait=False) for _ in range(2)]
    try:
        # Each reader reports when it got the file, then keeps it for `hold` seconds.
        got = sorted(float(_ready(reader).removeprefix("at ")) for reader in readers)
        reads = []
        for _ in range(5):  # this process reads too, while both hold it, within lock_timeout
            began = time.monotonic()
            assert repo.history("Size(*)").tolist() == [1.0]
            reads.append(time.monotonic() - began)
    finally:
        _stop(*readers)
    # Serialised, the second reader would have got the file `hold` seconds after the first.
    assert got[1] - got[0] < hold / 2, got
    assert max(reads) < 0.5, reads


def test_a_writer_waits_for_readers_and_readers_for_a_writer(repo_path: Path) -> None:
    repo = MetricsRepository(repo_path, lock_timeout=0.2)
    reader = _start("hold-session", str(repo_path), "30")
    try:
        with pytest.raises(RepositoryLockedError, match=r"waited 0\.\d+ s for exclusive access"):
            repo.save(ResultKey(0), [size(1.0)])
        assert repo.history("Size(*)").empty
    finally:
        _stop(reader)
    writer = _start("hold-write-session", str(repo_path), "30")
    try:
        with pytest.raises(RepositoryLockedError, match=f"{repo_path}.*a write is running"):
            repo.history("Size(*)")
    finally:
        _stop(writer)
    assert repo.history("Size(*)").tolist() == [1.0]


def test_many_readers_while_a_writer_saves_see_only_whole_runs(
    repo_path: Path, tmp_path: Path
) -> None:
    runs, points = 25, 400
    MetricsRepository(repo_path).save(
        ResultKey(0, {"dataset": "orders"}), _workers.uniform_run(points, 0.0)
    )
    context = multiprocessing.get_context("spawn")
    results = context.Queue()
    stop = tmp_path / "stop"
    readers = [
        context.Process(
            target=_workers.read_while, args=(str(repo_path), str(stop), points, results)
        )
        for _ in range(3)
    ]
    writer = context.Process(target=_workers.write_and_replace, args=(str(repo_path), runs, points))
    for process in readers:
        process.start()
    started = time.monotonic()
    writer.start()
    writer.join(timeout=240)
    writing = time.monotonic() - started
    stop.touch()
    reports = [results.get(timeout=120) for _ in readers]
    for process in readers:
        process.join(timeout=60)
    assert writer.exitcode == 0  # the readers never starved it
    assert [error for _, _, error in reports] == ["", "", ""]
    assert all(reads > 0 for reads, _, _ in reports), reports
    final = MetricsRepository(repo_path).load().get()
    assert [run.metrics[0].value for run in final] == [i + 0.5 for i in range(runs)]
    print(f"writer {writing:.1f} s for {2 * runs} saves; readers (reads, slowest s): {reports}")


def test_a_session_reads_shared_then_writes_and_reads_its_writes(repo_path: Path) -> None:
    repo = MetricsRepository(repo_path)
    repo.save(ResultKey(0), [size(1.0)])
    with repo.session():
        assert repo.history("Size(*)").tolist() == [1.0]
        repo.save(ResultKey(1), [size(2.0)])  # re-attaches the file read-write
        assert repo.history("Size(*)").tolist() == [1.0, 2.0]
        repo.save(ResultKey(2), [size(3.0)])
    assert MetricsRepository(repo_path).history("Size(*)").tolist() == [1.0, 2.0, 3.0]


def test_a_write_waits_for_reads_of_other_threads_in_a_session(repo_path: Path) -> None:
    repo = MetricsRepository(repo_path)
    repo.save(ResultKey(0), [size(0.0)])
    errors: list[BaseException] = []

    def read() -> None:
        try:
            for _ in range(40):
                values = repo.history("Size(*)").tolist()
                assert values == [float(i) for i in range(len(values))]
        except BaseException as error:  # surfaced below
            errors.append(error)

    with repo.session():
        threads = [threading.Thread(target=read) for _ in range(3)]
        for thread in threads:
            thread.start()
        for i in range(1, 15):
            repo.save(ResultKey(i), [size(float(i))])
        for thread in threads:
            thread.join()
    assert errors == []
    assert repo.history("Size(*)").tolist() == [float(i) for i in range(15)]


def test_writing_inside_a_read_cursor_of_the_same_thread_is_refused(repo_path: Path) -> None:
    repo = MetricsRepository(repo_path)
    with repo.sql() as cur:
        assert cur.execute("SELECT count(*) FROM runs").fetchall() == [(0,)]
        with pytest.raises(RepositoryError, match="cannot write while this thread is reading"):
            repo.save(ResultKey(0), [size(1.0)])
    repo.save(ResultKey(0), [size(1.0)])  # fine once the cursor is closed
    assert repo.history("Size(*)").tolist() == [1.0]

"""The scan log's executions left ``running`` by a process that died (issue 31, finding 23)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from repository import MetricsRepository
from repository.scan_log import ABANDONED, RUNNING
from tests.repository.conftest import ROOT, day, raw_sql

pytestmark = pytest.mark.faults

# Starts a scan execution, says its id, then waits to be killed (or for its stdin to close).
STARTER = """
import sys
from repository import MetricsRepository
repo = MetricsRepository(sys.argv[1])
print(repo.scan_log.start(sys.argv[2]), flush=True)
sys.stdin.read()
"""


@pytest.fixture
def starter(repo_location: str | Path) -> Iterator[object]:
    processes: list[subprocess.Popen[str]] = []

    def start(scan: str) -> tuple[subprocess.Popen[str], int]:
        process = subprocess.Popen(
            [sys.executable, "-c", STARTER, str(repo_location), scan],
            cwd=ROOT,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            env={**os.environ, "PYTHONPATH": str(ROOT)},
        )
        processes.append(process)
        assert process.stdout is not None
        return process, int(process.stdout.readline())

    yield start
    for process in processes:
        process.kill()
        process.wait()


def _statuses(repo: MetricsRepository) -> dict[str, str]:
    return dict(zip(repo.scan_log.runs()["scan"], repo.scan_log.runs()["status"], strict=True))


def test_a_killed_scan_is_abandoned_and_live_ones_stay_running(
    repo_location: str | Path, starter: object
) -> None:
    repo = MetricsRepository(repo_location)
    killed, _ = starter("killed")  # type: ignore[operator]
    alive, _ = starter("alive in another process")  # type: ignore[operator]
    mine = repo.scan_log.start("alive in this process")
    killed.send_signal(signal.SIGKILL)
    killed.wait()
    # Rows the process identity cannot vouch for: a pid reused by a later process (here: this
    # one's pid with another start), another host, and a row from before processes were kept.
    raw_sql(
        repo_location,
        "INSERT INTO scan_log (scan_id, scan, started_at, status, host, pid, process_start) "
        f"VALUES (101, 'pid reused', '2024-05-01 00:00:00+00', 'running', "
        f"'{os.uname().nodename}', {os.getpid()}, 'an earlier boot:1'),"
        "(102, 'other host', '2024-05-01 00:00:00+00', 'running', 'elsewhere', 1, NULL),"
        "(103, 'before version 6', '2024-05-03 00:00:00+00', 'running', NULL, NULL, NULL)",
    )
    assert repo.scan_log.abandon_dead() == 2
    assert _statuses(repo) == {
        "killed": ABANDONED,
        "pid reused": ABANDONED,
        "alive in another process": RUNNING,
        "alive in this process": RUNNING,
        "other host": RUNNING,
        "before version 6": RUNNING,
    }
    [row] = repo.scan_log.runs(scan="killed").to_dict("records")
    assert row["ended_at"] is not None and f"pid {killed.pid}" in row["error"]
    assert repo.scan_log.abandon_dead() == 0  # idempotent
    # An age limit also clears what this host cannot check.
    assert repo.scan_log.abandon_dead(started_before=day(1)) == 1
    assert _statuses(repo)["other host"] == ABANDONED
    assert _statuses(repo)["before version 6"] == RUNNING
    repo.scan_log.finish(mine, "succeeded")
    alive.kill()
    alive.wait()
    assert repo.scan_log.abandon_dead() == 1
    repo.close()

"""SIGTERM to the process group (what systemd, Docker and a terminal's Ctrl-C send) while a scan
computes (finding 6 of docs/security.md). ``serve`` finishes the running scan, which Spark's JVM
survives to complete, and stops; a second SIGTERM abandons it; a one-shot ``scan`` abandons its
run. None records a failure that did not happen nor sends an alert for it. (A SIGTERM to the
Python process alone reaches the same handler, with the JVM left undisturbed: the group's
signal is the harder case.)"""

from __future__ import annotations

import signal
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from repository import MetricsRepository

from .conftest import Hook, stop_when, write_config

# The three children run side by side, on one xdist worker: most of each child's time is its
# JVM starting and a scan sleeping in it, so one module's worth of children costs about one
# child's time instead of three (three tests' fixture, started once).
pytestmark = [pytest.mark.faults, pytest.mark.slow, pytest.mark.xdist_group("graceful stop")]
ROOT = Path(__file__).resolve().parents[3]
# One task sleeping 28 x 0.25 s in the JVM: the scan computes for seven seconds or more after
# its "computing" line (the line comes first), so that the last SIGTERM (4 s after the line)
# still finds it running; the finished scan of `serve` waits out the rest.
SLOW = """
spark: {{master: "local[1]", conf: {{spark.sql.shuffle.partitions: 1}}}}
sources:
  slow:
    sql: "SELECT id, reflect('java.lang.Thread', 'sleep', CAST(250 AS BIGINT)) AS nap
          FROM range(0, 28, 1, 1)"
scans:
  slow:
    source: slow
    schedule: {{interval: 2s}}
    metrics: [Size, {{analyzer: Completeness, column: nap}}]
alerts:
  hook: {{type: webhook, url: '{url}', format: json}}
"""
# Each child: the command, and how many SIGTERMs (a second apart) its process group gets.
CHILDREN = {"serve": ("serve", 1), "serve twice": ("serve", 2), "scan": ("scan", 1)}


@dataclass
class Stopped:
    """What a child stopped by SIGTERM left: exit code, output, repository, webhook bodies."""

    code: int
    output: str
    repository: Path
    alerts: list[dict[str, Any]]


def _run_and_stop(directory: Path, command: str, signals: int) -> Stopped:
    with Hook() as hook:
        config = write_config(directory, SLOW.format(url=hook.url))
        # 3 s into the Spark job, SIGTERM to the whole group: Python, spark-submit and the JVM.
        code, output = stop_when(
            [command, str(config)], directory, "slow: computing", after=3, group=True,
            signals=signals,
        )  # fmt: skip
    return Stopped(code, output, directory / "metrics.duckdb", hook.bodies)


@pytest.fixture(scope="module")
def stopped(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Future[Stopped]]]:
    """Every child of `CHILDREN`, started at once, by name (a test fails on its own child's
    error only)."""
    with ThreadPoolExecutor(len(CHILDREN)) as pool:
        yield {
            name: pool.submit(_run_and_stop, tmp_path_factory.mktemp("stop"), command, signals)
            for name, (command, signals) in CHILDREN.items()
        }


def test_sigterm_to_the_group_lets_serve_finish_the_running_scan(
    stopped: dict[str, Future[Stopped]],
) -> None:
    child = stopped["serve"].result()
    code, output = child.code, child.output
    assert code == 0, output
    # The signal came while the scan computed, and the scan's own headline followed it.
    received = output.index("SIGTERM received: stopping after the running scans")
    assert output.index("slow: computing") < received, output
    headline = output.index("slow 20", received)  # "slow <year>-...: 0 anomalies (...)"
    assert "0 anomalies" in output[headline:], output
    assert output.rstrip().endswith("anomaly.service: stopped"), output
    assert "failed metric" not in output and "Traceback" not in output, output
    runs = MetricsRepository(child.repository).scan_log.runs()
    assert runs["status"].tolist() == ["ok"], output  # one run (a scan never overlaps itself)
    assert child.alerts == []  # nothing failed, nothing alerted


def test_a_second_sigterm_abandons_the_running_scan_of_serve(
    stopped: dict[str, Future[Stopped]],
) -> None:
    child = stopped["serve twice"].result()
    code, output = child.code, child.output
    assert code == 0, output
    assert "SIGTERM received again: abandoning the running scans" in output, output
    assert "failed metric" not in output and "Traceback" not in output, output
    runs = MetricsRepository(child.repository).scan_log.runs()
    assert runs[["status", "error"]].to_dict("records") == [
        {"status": "abandoned", "error": "abandoned: stopped by SIGTERM before it ended"}
    ], output
    with MetricsRepository(child.repository) as repo:
        assert repo.load().to_pandas().empty  # nothing of the cancelled run is stored
    assert child.alerts == []


def test_sigterm_to_the_group_abandons_a_one_shot_scan(stopped: dict[str, Future[Stopped]]) -> None:
    child = stopped["scan"].result()
    code, output = child.code, child.output
    assert code == 128 + signal.SIGTERM, output
    assert "stopped by SIGTERM; the running scan was abandoned" in output, output
    assert "Traceback" not in output, output
    runs = MetricsRepository(child.repository).scan_log.runs()
    assert runs[["status", "error"]].to_dict("records") == [
        {"status": "abandoned", "error": "abandoned: stopped by SIGTERM before it ended"}
    ], output
    assert child.alerts == []

"""SIGTERM to the process group (what systemd, Docker and a terminal's Ctrl-C send) while a scan
computes (finding 6 of docs/security.md). ``serve`` finishes the running scan, which Spark's JVM
survives to complete; a one-shot ``scan`` abandons its run. Neither records a failure that did
not happen nor sends an alert for it."""

from __future__ import annotations

import signal
from pathlib import Path

import pytest

from repository import MetricsRepository

from .conftest import Hook, stop_when, write_config

pytestmark = [pytest.mark.faults, pytest.mark.slow]
ROOT = Path(__file__).resolve().parents[3]
# One task sleeping 40 x 0.25 s in the JVM: the scan computes for about ten seconds.
SLOW = """
spark: {{master: "local[1]", conf: {{spark.sql.shuffle.partitions: 1}}}}
sources:
  slow:
    sql: "SELECT id, reflect('java.lang.Thread', 'sleep', CAST(250 AS BIGINT)) AS nap
          FROM range(0, 40, 1, 1)"
scans:
  slow:
    source: slow
    schedule: {{interval: 2s}}
    metrics: [Size, {{analyzer: Completeness, column: nap}}]
alerts:
  hook: {{type: webhook, url: '{url}', format: json}}
"""


def _run_and_stop(tmp_path: Path, command: str, hook: Hook, signals: int = 1) -> tuple[int, str]:
    config = write_config(tmp_path, SLOW.format(url=hook.url))
    # 3 s into the Spark job, SIGTERM to the whole group: Python, spark-submit and the JVM.
    return stop_when(
        [command, str(config)], tmp_path, "slow: computing", after=3, group=True, signals=signals
    )


def test_sigterm_to_the_group_lets_serve_finish_the_running_scan(
    tmp_path: Path, hook: Hook
) -> None:
    code, output = _run_and_stop(tmp_path, "serve", hook)
    assert code == 0, output
    assert "SIGTERM received: stopping after the running scans" in output
    assert "slow 20" in output and "0 anomalies" in output, output  # the scan's own headline
    assert "failed metric" not in output and "Traceback" not in output, output
    runs = MetricsRepository(tmp_path / "metrics.duckdb").scan_log.runs()
    assert runs["status"].tolist() == ["ok"], output  # one run (a scan never overlaps itself)
    assert hook.bodies == []  # nothing failed, nothing alerted


def test_a_second_sigterm_abandons_the_running_scan_of_serve(tmp_path: Path, hook: Hook) -> None:
    code, output = _run_and_stop(tmp_path, "serve", hook, signals=2)
    assert code == 0, output
    assert "SIGTERM received again: abandoning the running scans" in output, output
    assert "failed metric" not in output and "Traceback" not in output, output
    runs = MetricsRepository(tmp_path / "metrics.duckdb").scan_log.runs()
    assert runs[["status", "error"]].to_dict("records") == [
        {"status": "abandoned", "error": "abandoned: stopped by SIGTERM before it ended"}
    ], output
    with MetricsRepository(tmp_path / "metrics.duckdb") as repo:
        assert repo.load().to_pandas().empty  # nothing of the cancelled run is stored
    assert hook.bodies == []


def test_sigterm_to_the_group_abandons_a_one_shot_scan(tmp_path: Path, hook: Hook) -> None:
    code, output = _run_and_stop(tmp_path, "scan", hook)
    assert code == 128 + signal.SIGTERM, output
    assert "stopped by SIGTERM; the running scan was abandoned" in output, output
    assert "Traceback" not in output, output
    runs = MetricsRepository(tmp_path / "metrics.duckdb").scan_log.runs()
    assert runs[["status", "error"]].to_dict("records") == [
        {"status": "abandoned", "error": "abandoned: stopped by SIGTERM before it ended"}
    ], output
    assert hook.bodies == []

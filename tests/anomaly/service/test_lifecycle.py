"""A run's life from start to alert (docs/security.md findings 3, 23 and the outbox): a
repository that cannot record the run still fails it with an alert, runs a killed process left
``running`` are abandoned when a session starts, and an alert that cannot be delivered is kept,
shown in the report and delivered by a later run."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from anomaly.report import collect_snapshot
from anomaly.service import ScanRunner, ServiceConfig
from repository import MetricsRepository
from tests.anomaly.judging.test_webhook import Server

from .conftest import Hook, day

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

pytestmark = pytest.mark.faults
ROOT = Path(__file__).resolve().parents[3]


def config(path: Path, url: str, timeout: str = "10s") -> ServiceConfig:
    """A scan of a source that is not there (it fails at once) alerting `url` in JSON."""
    return ServiceConfig.model_validate({
        "repository": str(path),
        "sources": {"events": {"path": str(path.parent / "missing.parquet")}},
        "scans": {"daily": {"source": "events", "metrics": ["Size"]}},
        "alerts": {"hook": {"type": "webhook", "url": url, "format": "json",
                            "timeout": timeout}},
    })  # fmt: skip


def python(*code: str) -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.Popen([sys.executable, *code], stdout=subprocess.PIPE, text=True, env=env,
                            cwd=ROOT)  # fmt: skip


def test_a_locked_repository_fails_the_run_and_the_failure_is_alerted(
    tmp_path: Path, hook: Hook
) -> None:
    path = tmp_path / "metrics.duckdb"
    repo = MetricsRepository(path, lock_timeout=0.5)
    holder = python("-m", "tests.repository._workers", "hold-write-session", str(path), "60")
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "ready"
        report = ScanRunner(config(path, hook.url), repository=repo).run("daily", at=day(5))
    finally:
        holder.kill()
        holder.wait()
    assert report.status.label == "failed"
    assert report.error is not None and "lock" in report.error.lower()
    [body] = hook.bodies
    assert (body["status"], body["scan"], body["error"]) == ("failed", "daily", report.error)


def test_a_session_marks_runs_left_running_by_a_killed_process_abandoned(
    spark: SparkSession, tmp_path: Path, hook: Hook
) -> None:
    path = tmp_path / "metrics.duckdb"
    MetricsRepository(path).close()
    start = "import sys; from repository import MetricsRepository as R; "
    start += "R(sys.argv[1]).scan_log.start('daily')"
    assert python("-c", start, str(path)).wait() == 0  # started, then its process ended
    runner = ScanRunner(config(path, hook.url), spark=spark)
    runner.run("daily", at=day(5))
    runs = runner.repository.scan_log.runs().sort_values("scan_id")
    assert runs["status"].tolist() == ["abandoned", "failed"]
    assert "its process (pid" in runs["error"].iloc[0]
    assert len(hook.bodies) == 1  # the abandoned run is not alerted; the failed one is


def test_an_undelivered_alert_is_kept_shown_and_delivered_later(
    spark: SparkSession, tmp_path: Path
) -> None:
    path = tmp_path / "metrics.duckdb"
    down = Server((503, {}))
    try:
        ScanRunner(config(path, down.url, "1s"), spark=spark).run("daily", at=day(5))
    finally:
        down.close()
    assert len(down.requests) >= 2  # retried before it was kept
    with MetricsRepository(path) as repo:
        [section] = [s for s in collect_snapshot(repo)["sections"] if s["title"] ==
                     "Alerts not delivered"]  # fmt: skip
    [row] = section["rows"]
    assert row[1] == "daily" and row[3] == "hook" and "HTTP 503" in row[6]
    up = Server()
    try:
        ScanRunner(config(path, up.url), spark=spark).run("daily", at=day(6))
    finally:
        up.close()
    kept, new = [b for _, b in up.requests]
    assert b'"time": "2026-03-06' in kept and b'"time": "2026-03-07' in new
    with MetricsRepository(path) as repo:
        assert repo.deliveries.undelivered().empty
        titles = [s["title"] for s in collect_snapshot(repo)["sections"]]
        assert "Alerts not delivered" not in titles

"""``anomaly serve``: real APScheduler jobs; a failing scan never stops its sibling. (SIGTERM
stopping the service after the running scan: test_graceful_stop.py.)"""

from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING

import pandas as pd
import pytest

from anomaly.errors import ConfigurationError
from anomaly.service import ScanRunner, ScanService, load_config

from .conftest import write_config, write_events

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

ROOT = Path(__file__).resolve().parents[3]
TWO_SCANS = """
sources:
  events: {path: events.parquet}
  gone: {path: missing.parquet}
scans:
  good:
    source: events
    schedule: {interval: 1s}
    metrics: [Size]
  bad:
    source: gone
    schedule: {interval: 1s, misfire_grace: 30s}
    metrics: [Size]
  manual:
    source: events
    metrics: [Size]
"""


def wait_for(condition: object, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():  # type: ignore[operator]
            return True
        time.sleep(0.2)
    return False


def test_an_interval_job_fires_twice_while_its_sibling_fails(
    spark: SparkSession, tmp_path: Path
) -> None:
    write_events(tmp_path / "events.parquet", days=1)
    runner = ScanRunner(load_config(write_config(tmp_path, TWO_SCANS)), spark=spark)
    service = ScanService(runner)
    assert service.names == ["good", "bad"]  # "manual" has no schedule

    def counts() -> pd.Series:
        runs = runner.repository.scan_log.runs()
        return runs.groupby(["scan", "status"]).size()

    service.start()
    try:
        jobs = {job.id: job for job in service.scheduler.get_jobs()}
        assert (jobs["good"].max_instances, jobs["good"].coalesce) == (1, True)
        assert jobs["bad"].misfire_grace_time == 30
        fired = wait_for(
            lambda: min(counts().get(("good", "ok"), 0), counts().get(("bad", "failed"), 0)) >= 2,
            timeout=120,
        )
    finally:
        service.stop(wait=True)
    assert fired, counts()
    runs = runner.repository.scan_log.runs()
    assert set(runs["status"]) == {"ok", "failed"}  # nothing left running after stop()
    errors = set(runs.loc[runs["scan"] == "bad", "error"])
    assert len(errors) == 1 and "cannot read parquet" in errors.pop()
    stored = runner.repository.load().with_tags({"scan": "good"}).get()
    assert len(stored) >= 2  # each run has its own time


def test_serve_refuses_scans_without_schedule(spark: SparkSession, tmp_path: Path) -> None:
    runner = ScanRunner(load_config(write_config(tmp_path, TWO_SCANS)), spark=spark)
    with pytest.raises(ConfigurationError, match="scan 'manual' has no schedule"):
        ScanService(runner, ["manual"])

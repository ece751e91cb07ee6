"""Backfill: one Spark job grouped by partition gives the history and verdicts that day-by-day
scans give."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import TYPE_CHECKING

import pandas as pd
import pytest

from anomaly.service import ScanRunner, ScanStatus, backfill, load_config
from repository import MetricsRepository

from .conftest import DailyScans, day, scan_config, write_config, write_events

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

POINTS = ["metric_id", "name", "country", "timestamp", "value"]
VERDICTS = ["timestamp", "metric_id", "country", "status", "value", "lower", "upper",
            "history_length", "detector", "score"]  # fmt: skip


def frames(repo: MetricsRepository) -> tuple[pd.DataFrame, pd.DataFrame]:
    points = repo.load().to_pandas()[POINTS].sort_values(POINTS[:4], ignore_index=True)
    verdicts = repo.load_verdicts()[VERDICTS].sort_values(VERDICTS[:3], ignore_index=True)
    return points, verdicts


def test_backfill_equals_day_by_day_scans(
    daily_scans: DailyScans, spark: SparkSession, tmp_path: Path
) -> None:
    shutil.copy(daily_scans.directory / "events.parquet", tmp_path / "events.parquet")
    runner = ScanRunner(load_config(scan_config(tmp_path)), spark=spark)
    report = backfill(runner, "daily", until=day(5))
    assert report.status == ScanStatus.OK
    assert [r.when for r in report.partitions] == [f"2026-03-0{d}" for d in range(1, 7)]
    assert [(r.when, f.verdict.metric_id, dict(f.verdict.group)) for r, f in report.anomalies] == [
        ("2026-03-06", "Size(*)", {"country": "FR"}),
        ("2026-03-06", "Completeness(price)", {"country": "FR"}),
    ]  # fmt: skip

    filled = frames(runner.repository)
    scanned = frames(MetricsRepository(daily_scans.config.repository))
    assert len(filled[0]) == 6 * 2 * 3
    pd.testing.assert_frame_equal(filled[0], scanned[0], rtol=1e-12)
    assert len(filled[1]) == 6 * 2 * 2  # Mean(price) has detector none
    pd.testing.assert_frame_equal(filled[1], scanned[1], rtol=1e-12)
    runs = runner.repository.scan_log.runs()
    assert runs[["scan", "status"]].values.tolist() == [["daily backfill", "ok"]]


def test_backfill_bounds_and_a_source_without_time_column(
    spark: SparkSession, tmp_path: Path
) -> None:
    write_events(tmp_path / "events.parquet", days=6)
    runner = ScanRunner(load_config(scan_config(tmp_path)), spark=spark)
    report = backfill(runner, "daily", since=day(2), until=day(3).replace(hour=12))
    assert [r.when for r in report.partitions] == ["2026-03-03", "2026-03-04"]
    assert report.headline().startswith(
        "daily backfill: 2 partitions (2026-03-03 .. 2026-03-04) in "
    )

    text = scan_config(tmp_path).read_text().replace(", time_column: ts", "")
    untimed = ScanRunner(load_config(write_config(tmp_path, text, "untimed.yml")), spark=spark)
    failed = backfill(untimed, "daily")
    assert failed.status == ScanStatus.FAILED
    assert failed.error == (
        "scan 'daily': backfill needs a source with time_column; source 'events' has none"
    )


@pytest.mark.parametrize("column", ["day", "ts_text"])
def test_dates_and_iso_text_are_partitioned_like_timestamps(
    spark: SparkSession, tmp_path: Path, column: str
) -> None:
    write_events(tmp_path / "events.parquet", days=3)
    frame = pd.read_parquet(tmp_path / "events.parquet")
    frame["ts_text"] = frame["ts"].dt.strftime("%Y-%m-%dT%H:%M:%S")
    frame.to_parquet(tmp_path / "events.parquet", index=False, coerce_timestamps="us")
    text = scan_config(tmp_path).read_text().replace("time_column: ts", f"time_column: {column}")
    runner = ScanRunner(load_config(write_config(tmp_path, text)), spark=spark)
    report = backfill(runner, "daily", until=day(2))
    assert [r.when for r in report.partitions] == ["2026-03-01", "2026-03-02", "2026-03-03"]
    sizes = runner.repository.history("Size(*)", group={"country": "DE"})
    assert sizes.tolist() == [20.0, 21.0, 22.0]
    scanned = runner.run("daily", period=day(1), alert=False)
    assert scanned.status == ScanStatus.OK
    assert runner.repository.history("Size(*)", group={"country": "DE"}).tolist() == sizes.tolist()

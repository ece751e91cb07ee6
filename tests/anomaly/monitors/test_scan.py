"""Monitors through the scan service: a backfill, daily scans, a schema change, a stale day.

One history is built once (module fixture) and the tests read what it stored and reported.
"""

from __future__ import annotations

import math
import os
import time
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from pyspark.sql import SparkSession

from anomaly.judging.report import ScanStatus
from anomaly.service import ScanReport, ScanRunner, backfill, load_config
from repository import MetricsRepository
from tests.anomaly.service.conftest import write_config

DAY0 = datetime(2026, 3, 1, tzinfo=UTC)
CONFIG = """
repository: metrics.duckdb
sources:
  orders: {path: orders, time_column: ts}
scans:
  orders:
    source: orders
    min_history: 3
    detector: {type: RobustMAD, min_history: 3}
    monitors: auto
"""


def day(n: int) -> datetime:
    return DAY0 + timedelta(days=n)


def write_orders(directory: Path, days: range, skip: int | None = None,
                 changed: bool = False) -> None:  # fmt: skip
    """About 40 orders a day (none on day `skip`), loaded 10-20 minutes after they happen;
    `changed`: the table lost its `status` column and gained `quantity`."""
    rng = np.random.default_rng(3)
    frames = []
    for d in days:
        n = 0 if d == skip else 40 + d % 3
        seconds = np.sort(rng.integers(0, 86_000, n))
        ts = pd.to_datetime(day(d)) + pd.to_timedelta(seconds, "s")
        frame = pd.DataFrame({
            "ts": ts,
            "loaded_at": ts + pd.to_timedelta(rng.integers(600, 1200, n), "s"),
            "price": np.round(rng.normal(20, 2, n), 2),
            "status": rng.choice(["ok", "refund"], n, p=[0.9, 0.1]),
        })  # fmt: skip
        if changed:
            frame = frame.drop(columns=["status"]).assign(quantity=rng.integers(1, 5, n))
        frames.append(frame)
    directory.mkdir(parents=True, exist_ok=True)
    for old in directory.glob("*.parquet"):
        old.unlink()
    pd.concat(frames).to_parquet(directory / f"part-{time.monotonic_ns()}.parquet", index=False,
                                 coerce_timestamps="us")  # fmt: skip


@dataclass
class History:
    directory: Path
    backfilled: list[ScanReport]
    scans: dict[int, ScanReport]

    @property
    def repository(self) -> MetricsRepository:
        return MetricsRepository(self.directory / "metrics.duckdb")


@pytest.fixture(scope="module")
def history(spark: SparkSession, tmp_path_factory: pytest.TempPathFactory) -> History:
    """Days 0-6 backfilled (day 3 has no rows), day 7 scanned, then the table changes
    (status dropped, quantity added) and day 8 is scanned; day 9 has no rows at all."""
    directory = tmp_path_factory.mktemp("monitored")
    data = directory / "orders"
    write_orders(data, range(8), skip=3)
    runner = ScanRunner(load_config(write_config(directory, CONFIG)), spark=spark)
    filled = backfill(runner, "orders", until=day(6))
    assert filled.error is None, filled.error
    scans = {7: runner.run("orders", period=day(7), alert=False)}
    write_orders(data, range(9), skip=3, changed=True)
    spark.catalog.refreshByPath(str(data))
    scans[8] = runner.run("orders", period=day(8), alert=False)
    scans[9] = runner.run("orders", period=day(9), alert=False)
    return History(directory, filled.partitions, scans)


def test_every_monitor_stores_its_series(history: History) -> None:
    with history.repository as repo:
        ids = set(repo.metrics(tags={"scan": "orders"})["metric_id"])
        freshness = repo.history("Freshness(ts)")
    assert {
        "Size(*)",
        "Freshness(ts)",
        "ColumnHealth(price)[mean]",
        "ColumnHealth(status)[share:ok]",
        "ColumnHealth(loaded_at)[completeness]",
        "Timeliness(ts, loaded_at)[mean]",
        "Timeliness(ts, loaded_at)[max]",
    } <= ids
    # About 40 orders a day: the newest is within a few hours of midnight.
    assert (freshness[freshness.index < day(3)] < 4 * 3600).all()


def test_a_day_without_rows_in_a_backfill_is_a_run_with_volume_zero(history: History) -> None:
    with history.repository as repo:
        sizes = repo.history("Size(*)")
        lags = repo.history("Freshness(ts)")
    assert [t.day for t in sizes.index[:5]] == [1, 2, 3, 4, 5]
    assert sizes[day(3)] == 0.0
    assert lags[day(3)] > 86_400  # nothing arrived: the lag runs on from day 2's last order


def test_schema_snapshots_and_changes(history: History) -> None:
    report = history.scans[8]
    schema = {f.verdict.metric_id: f for f in report.findings if f.verdict.detector ==
              "SchemaChange"}  # fmt: skip
    assert set(schema) == {"Schema(status)", "Schema(quantity)"}
    assert schema["Schema(status)"].severity == "error"
    assert schema["Schema(quantity)"].severity == "warning"
    detail = schema["Schema(status)"].verdict.detail or ""
    assert detail.startswith("column status removed (was string)")
    assert "Previous schema" in detail and "quantity bigint?" in detail
    assert report.status == ScanStatus.ERROR
    with history.repository as repo:
        assert len(repo.schemas(tags={"scan": "orders"})) == 10  # one per run
    no_change = [f for r in [*history.backfilled, history.scans[7]] for f in r.findings
                 if f.verdict.detector == "SchemaChange"]  # fmt: skip
    assert no_change == []


def test_new_columns_start_a_history_and_dropped_ones_end_theirs_quietly(
    history: History,
) -> None:
    findings = history.scans[8].findings
    added = [f.verdict for f in findings if f.verdict.metric_id.startswith("ColumnHealth(quantity")]
    assert added and {v.status for v in added} == {"insufficient_history"}
    assert not [f for f in findings if f.verdict.metric_id.startswith("ColumnHealth(status")]
    with history.repository as repo:
        status = repo.history("ColumnHealth(status)[completeness]")
    assert status.index[-1] == day(7)


def test_a_stale_day_alerts_with_nothing_to_profile(history: History) -> None:
    report = history.scans[9]
    problems = {f.verdict.metric_id: f.verdict for f in report.problems}
    assert set(problems) == {"Freshness(ts)", "Size(*)"}
    lag = problems["Freshness(ts)"]
    assert lag.detector == "UpperOnly(RobustMAD)" and lag.value is not None
    assert lag.value > 86_400 and lag.lower == -math.inf
    assert report.notes == ["no rows in orders for 2026-03-10"]
    assert not [f for f in report.findings if f.verdict.status == "error"]


def test_only_late_data_is_a_freshness_anomaly(history: History) -> None:
    """Fresher than usual is no anomaly: the band has no lower edge."""
    verdicts = [
        f.verdict for r in history.backfilled for f in r.findings
        if f.verdict.metric_id == "Freshness(ts)" and f.verdict.status == "normal"
    ]  # fmt: skip
    assert verdicts and all(v.lower == -math.inf for v in verdicts)


def test_a_column_pattern_matching_no_column_fails_the_scan_with_its_key_path(
    spark: SparkSession, history: History, tmp_path: Path
) -> None:
    text = CONFIG.replace("monitors: auto", "monitors: {columns: {include: [prise]}}").replace(
        "path: orders", f"path: {history.directory / 'orders'}"
    )
    runner = ScanRunner(load_config(write_config(tmp_path, text)), spark=spark)
    report = runner.run("orders", period=day(7), alert=False)
    assert report.status == ScanStatus.FAILED
    assert report.error == (
        "scans.orders.monitors.columns.include[0]: pattern 'prise' matches no column; columns: "
        "ts, loaded_at, price, quantity"
    )


def test_without_time_column_freshness_is_the_files_age(
    spark: SparkSession, tmp_path: Path
) -> None:
    write_orders(tmp_path / "orders", range(2))
    three_days_ago = time.time() - 3 * 86_400
    for file in (tmp_path / "orders").glob("*.parquet"):
        os.utime(file, (three_days_ago, three_days_ago))
    text = CONFIG.replace(", time_column: ts", "").replace(
        "monitors: auto", "monitors: [freshness, volume]\n    group_by: status"
    )
    runner = ScanRunner(load_config(write_config(tmp_path, text)), spark=spark)
    report = runner.run("orders", alert=False)
    assert report.error is None
    with MetricsRepository(tmp_path / "metrics.duckdb") as repo:
        frame = repo.load().to_pandas()
    lag = frame.loc[frame["metric_id"] == "Freshness(*)", "value"].item()
    assert 3 * 86_400 - 60 < lag < 3 * 86_400 + 600
    sizes = frame[frame["metric_id"] == "Size(*)"]
    assert set(sizes["status"]) == {"ok", "refund"} and sizes["value"].sum() == 81

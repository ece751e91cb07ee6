"""``anomaly monitor PATH_OR_TABLE``: no config, history in the default repository."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pyspark.sql import SparkSession

from anomaly.cli import main
from repository import MetricsRepository
from tests.anomaly.monitors.test_scan import day, write_orders

OPTIONS = ["--master", "local[1]", "-q"]


def test_monitor_a_path_with_backfill_then_its_last_day(
    spark: SparkSession,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """In this process, on the session's Spark (a process of its own would start a second JVM
    for nothing this test checks: tests/anomaly/test_cli.py runs a scan as a real subprocess)."""
    monkeypatch.chdir(tmp_path)  # the default repository is ./metrics.duckdb
    monkeypatch.delenv("ANOMALY_REPOSITORY", raising=False)
    write_orders(tmp_path / "orders", range(6))
    code = main(["monitor", "orders", "--time-column", "ts", "--backfill",
                 "--at", day(5).isoformat(), "--format", "json", *OPTIONS])  # fmt: skip
    out, err = capsys.readouterr()
    assert code in (0, 1, 2), err
    report = json.loads(out)
    assert report["scan"] == "orders" and report["partition"] == "2026-03-06"
    with MetricsRepository(tmp_path / "metrics.duckdb") as repo:
        sizes = repo.history("Size(*)", tags={"dataset": "orders"})
        assert len(sizes) == 6 and len(repo.schemas()) == 6
    code = main(["monitor", "orders", "--time-column", "ts", "--at", day(5).isoformat(),
                 "--monitors", "volume,columns", "--include", "pr*", *OPTIONS])  # fmt: skip
    out, err = capsys.readouterr()
    assert code == 0, err
    assert out.startswith("orders 2026-03-06: 0 anomalies (2 metrics x 1 group")


def test_bad_arguments_fail_before_spark(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The command's own entry point, in this process: these fail before any Spark or file is
    touched, so a process of their own (a Python start and imports each) proves nothing more."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("ANOMALY_REPOSITORY", raising=False)

    def monitor_here(*args: str) -> tuple[int, str]:
        code = main(["monitor", *args, *OPTIONS])
        return code, capsys.readouterr().err

    code, err = monitor_here("orders.parquet", "--backfill")
    assert code == 3
    assert "--backfill needs --time-column" in err
    code, err = monitor_here("orders.parquet", "--monitors", "volume,colums")
    assert code == 3
    assert "scans.orders.monitors[1]: unknown monitor 'colums'" in err
    _, err = monitor_here("orders.parquet", "--monitors", "volume", "--include", "a*")
    assert "--include and --exclude choose the columns of the columns monitor" in err
    assert not (tmp_path / "metrics.duckdb").exists()  # nothing was run, nothing stored

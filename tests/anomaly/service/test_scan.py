"""A scan end to end: Parquet source -> one AnalysisRunner call -> DuckDB file -> verdicts ->
one alert per scan; re-runs replace; failures are reports, never exceptions."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from anomaly.service import ScanRunner, ScanStatus, load_config
from repository import MetricsRepository

from .conftest import DailyScans, day, scan_config, write_config, write_events

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

TAGS = {"scan": "daily"}


def test_a_scan_stores_metrics_and_verdicts_and_alerts_the_anomalies(
    daily_scans: DailyScans,
) -> None:
    reports = daily_scans.reports
    assert [r.status for r in reports] == [ScanStatus.OK] * 5 + [ScanStatus.ERROR]
    last = reports[-1]
    assert (last.metrics, last.groups, last.when) == (3, 2, "2026-03-06")
    found = [(f.severity, f.verdict.metric_id, dict(f.verdict.group)) for f in last.problems]
    assert found == [
        ("error", "Size(*)", {"country": "FR"}),
        ("warning", "Completeness(price)", {"country": "FR"}),
    ]
    size = last.problems[0].verdict
    assert size.value == 2.0
    assert size.history_length == 5
    assert size.lower is not None and size.upper is not None and size.lower > 2.0

    repo = MetricsRepository(daily_scans.config.repository)
    fr = repo.history("Size(*)", tags=TAGS, group={"country": "FR"})
    assert fr.tolist() == [10.0, 11.0, 10.0, 11.0, 10.0, 2.0]
    assert fr.index[0].isoformat() == "2026-03-01T00:00:00+00:00"
    assert repo.datasets() == ["events"]
    verdicts = repo.load_verdicts(tags=TAGS, metrics=["Size(*)"], group={"country": "FR"})
    assert verdicts["status"].tolist() == ["insufficient_history"] * 3 + ["normal", "normal",
                                                                          "anomaly"]  # fmt: skip
    assert repo.load_verdicts(tags=TAGS, metrics=["Mean(price)"]).empty  # detector: none
    log = repo.scan_log.runs(scan="daily")
    assert log["status"].tolist() == ["error"] + ["ok"] * 5
    assert log["ended_at"].notna().all()


def test_one_alert_per_scan_reaches_the_webhook_and_the_command(daily_scans: DailyScans) -> None:
    [body] = daily_scans.hook.bodies  # the five quiet days sent nothing
    assert body["text"] == ":rotating_light: anomaly scan " + daily_scans.reports[-1].headline()
    table = body["blocks"][1]["text"]["text"]
    assert table.startswith("```severity")
    assert "ERROR     country=FR  Size(*)" in table
    assert "WARNING   country=FR  Completeness(price)" in table
    assert "history" in table and "RobustMAD" in table
    assert daily_scans.hook.headers[0]["Content-Type"] == "application/json"
    [line] = daily_scans.command_output.read_text().splitlines()
    alert = json.loads(line)
    assert (alert["status"], alert["severity"]) == ("anomaly", "error")
    assert alert["problems"][0]["metric"] == "Size(*)"
    assert alert["problems"][0]["group"] == {"country": "FR"}
    assert alert["problems"][0]["value"] == 2.0
    assert alert["problems"][0]["history"] == 5


def test_rerunning_a_partition_replaces_its_points_and_verdicts(
    daily_scans: DailyScans, spark: SparkSession, tmp_path: Path
) -> None:
    shutil.copy(daily_scans.config.repository, tmp_path / "copy.duckdb")
    repo = MetricsRepository(tmp_path / "copy.duckdb")
    runs_before = len(repo.load().with_tags(TAGS).get())
    verdicts_before = len(repo.load_verdicts(tags=TAGS))
    skip = shutil.ignore_patterns("*.duckdb*")
    shutil.copytree(daily_scans.directory, tmp_path / "same", ignore=skip)
    config = load_config(tmp_path / "same" / "anomaly.yml")
    runner = ScanRunner(config, spark=spark, repository=repo)

    again = runner.run("daily", period=day(5), alert=False)
    assert again.status == ScanStatus.ERROR
    assert len(repo.load().with_tags(TAGS).get()) == runs_before
    assert len(repo.load_verdicts(tags=TAGS)) == verdicts_before
    assert repo.history("Size(*)", tags=TAGS, group={"country": "FR"}).tolist()[-1] == 2.0

    write_events(tmp_path / "same" / "events.parquet", days=6)  # the late rows arrived
    fixed = runner.run("daily", period=day(5), alert=False)
    assert fixed.status == ScanStatus.OK
    assert repo.history("Size(*)", tags=TAGS, group={"country": "FR"}).tolist() == [
        10.0, 11.0, 10.0, 11.0, 10.0, 11.0
    ]  # fmt: skip
    assert len(repo.load_verdicts(tags=TAGS)) == verdicts_before
    last = repo.load_verdicts(tags=TAGS, after=day(5), statuses=["anomaly"])
    assert last.empty


def test_an_unreadable_source_fails_the_scan_with_a_message_and_a_log_row(
    spark: SparkSession, tmp_path: Path
) -> None:
    runner = ScanRunner(load_config(scan_config(tmp_path)), spark=spark)
    report = runner.run("daily", period=day(0))
    assert report.status == ScanStatus.FAILED
    assert report.error is not None
    assert report.error.startswith("source 'events': cannot read parquet ")
    assert "PATH_NOT_FOUND" in report.error and "\n" not in report.error
    [row] = runner.repository.scan_log.runs().to_dict("records")
    assert (row["scan"], row["status"], row["error"]) == ("daily", "failed", report.error)


def test_a_missing_group_by_column_and_an_empty_partition(
    spark: SparkSession, tmp_path: Path
) -> None:
    write_events(tmp_path / "events.parquet", days=2)
    text = scan_config(tmp_path).read_text().replace("group_by: country", "group_by: region")
    runner = ScanRunner(load_config(write_config(tmp_path, text)), spark=spark)
    failed = runner.run("daily", period=day(0))
    assert failed.status == ScanStatus.FAILED
    assert failed.error is not None and "group_by columns ['region'] do not exist" in failed.error

    runner = ScanRunner(load_config(scan_config(tmp_path)), spark=spark)
    empty = runner.run("daily", period=day(30))
    assert empty.status == ScanStatus.WARNING
    assert empty.notes == ["no rows in events for 2026-03-31"]
    assert empty.headline().startswith("daily 2026-03-31: 0 anomalies, no rows in events for ")

    ungrouped = scan_config(tmp_path).read_text().replace("    group_by: country\n", "")
    runner = ScanRunner(load_config(write_config(tmp_path, ungrouped)), spark=spark)
    totals = runner.run("daily", period=day(30))
    assert totals.notes == ["no rows in events for 2026-03-31"]  # Size(*) is 0
    # ... and the mean and completeness of no rows could not be computed: failed metrics
    assert totals.status == ScanStatus.ERROR
    assert [(f.verdict.metric_id, f.severity) for f in totals.problems] == [
        ("Mean(price)", "error"),
        ("Completeness(price)", "warning"),
    ]


@pytest.mark.parametrize("period", [None, day(1)])
def test_a_source_without_time_column_is_keyed_by_the_scan_time(
    spark: SparkSession, tmp_path: Path, period: object
) -> None:
    write_events(tmp_path / "events.parquet", days=2)
    text = scan_config(tmp_path).read_text().replace(", time_column: ts", "")
    runner = ScanRunner(load_config(write_config(tmp_path, text)), spark=spark)
    report = runner.run("daily", at=day(40).replace(hour=7, microsecond=123), period=period)  # type: ignore[arg-type]
    if period is None:
        assert report.status == ScanStatus.OK
        assert report.time == day(40).replace(hour=7)
        assert runner.repository.history("Size(*)", group={"country": "DE"}).tolist() == [41.0]
    else:
        assert report.status == ScanStatus.FAILED
        assert report.error == (
            "scan 'daily': a partition was given but source 'events' has no time_column"
        )

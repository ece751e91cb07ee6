"""Scans and backfills leave points annotated ``excluded`` out of detector baselines, as
``has_no_anomalies`` does: a fixed past outage no longer hides the next drop."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path
from typing import TYPE_CHECKING

import pandas as pd

from anomaly.analyzers import Size
from anomaly.config.plans import MetricPlan
from anomaly.judging.history import history_frame
from anomaly.judging.verdicts import judge
from anomaly.service import ScanReport, ScanRunner, ScanStatus, backfill, load_config
from detectors import OnlineNormal
from repository import MetricRecord, MetricsRepository, ResultKey

from .conftest import day, write_config

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

# FR rows per day: stable around 100, an outage on day 6 (a broken load, since fixed), then on
# day 10 a real drop to 90. DE stays around 50 throughout.
FR = [100, 102, 98, 101, 99, 100, 10, 101, 99, 100, 90]
DE = [50, 51, 52] * 3 + [50, 51]
OUTAGE, DROP = day(6), day(10)
CONFIG = """
repository: metrics.duckdb
sources:
  events: {path: events.parquet, time_column: ts}
scans:
  daily:
    source: events
    group_by: country
    tags: {env: prod}
    min_history: 5
    detector: {type: OnlineNormal, ignore_anomalies: false}
    metrics: [Size]
"""


def runner(spark: SparkSession, directory: Path) -> ScanRunner:
    rows = [
        {"ts": day(d) + timedelta(minutes=7 * i), "country": country}
        for country, counts in (("FR", FR), ("DE", DE))
        for d, count in enumerate(counts)
        for i in range(count)
    ]
    pd.DataFrame(rows).to_parquet(directory / "events.parquet", index=False, coerce_timestamps="us")
    return ScanRunner(load_config(write_config(directory, CONFIG)), spark=spark)


def size(report: ScanReport, country: str = "FR") -> tuple[str, int | None]:
    """Status and history length of the Size verdict of one country in a report."""
    [verdict] = [f.verdict for f in report.findings if f.verdict.group == {"country": country}]
    return verdict.status, verdict.history_length


def test_a_scan_judges_against_history_without_the_excluded_outage(
    spark: SparkSession, tmp_path: Path
) -> None:
    scans = runner(spark, tmp_path)
    assert backfill(scans, "daily", until=day(9)).status == ScanStatus.OK
    missed = scans.run("daily", period=DROP, alert=False)
    assert size(missed) == ("normal", 10)  # the outage widened the band past 90

    scans.repository.annotate("excluded", OUTAGE, metric="Size(*)", group={"country": "FR"},
                              tags={"env": "prod"}, note="broken load, reloaded")  # fmt: skip
    caught = scans.run("daily", period=DROP, alert=False)  # a re-run replaces the verdicts
    assert caught.status == ScanStatus.ERROR
    assert size(caught) == ("anomaly", 9)
    [problem] = caught.problems
    assert problem.verdict.lower is not None and 90 < problem.verdict.lower < 98
    # DE is untouched by an annotation of FR.
    assert size(caught, "DE") == ("normal", 10)


def test_a_backfill_judges_the_excluded_point_but_never_learns_from_it(
    spark: SparkSession, tmp_path: Path
) -> None:
    scans = runner(spark, tmp_path)
    # Annotations are independent of runs: this one is written before its points exist.
    scans.repository.annotate("excluded", OUTAGE, metric="Size(*)")
    report = backfill(scans, "daily", until=DROP)
    found = [(r.when, dict(f.verdict.group), f.verdict.status) for r, f in report.anomalies]
    assert found == [("2026-03-07", {"country": "FR"}, "anomaly"),  # judged, like any run
                     ("2026-03-11", {"country": "FR"}, "anomaly")]  # fmt: skip
    assert size(report.partitions[-1]) == ("anomaly", 9)
    # DE's day 6 is excluded too (the annotation covers every group): one point less.
    assert size(report.partitions[-1], "DE") == ("normal", 9)

    stored = scans.repository.load_verdicts(metrics=["Size(*)"], group={"country": "FR"})
    filled = stored.iloc[-1][["status", "lower", "upper", "history_length"]].tolist()
    rescanned = scans.run("daily", period=DROP, alert=False)  # what a scan that day gives
    [verdict] = [f.verdict for f in rescanned.problems]
    assert filled == [verdict.status, verdict.lower, verdict.upper, verdict.history_length]


def test_only_excluded_annotations_in_scope_leave_the_history(tmp_path: Path) -> None:
    repo = MetricsRepository(tmp_path / "metrics.duckdb")
    tags = {"dataset": "events", "env": "prod", "scan": "daily"}
    for d, (fr, de) in enumerate(zip(FR, DE, strict=True)):
        repo.save(ResultKey(day(d), tags), [
            MetricRecord("Dataset", "*", "Size", "Size(*)", float(fr), {"country": "FR"}),
            MetricRecord("Dataset", "*", "Size", "Size(*)", float(de), {"country": "DE"}),
        ])  # fmt: skip
    plans = {"Size(*)": MetricPlan(Size(), OnlineNormal(ignore_anomalies=False), "On", "error", 5)}

    def fr_verdict() -> tuple[str, int | None]:
        frame = history_frame(repo, tags, ["Size(*)"], DROP)
        [verdict] = [v for v in judge(frame, DROP, plans) if v.group == {"country": "FR"}]
        return verdict.status, verdict.history_length

    # Labels for backtests and annotations of other series or runs keep the history whole.
    repo.annotate("incident", OUTAGE, metric="Size(*)", group={"country": "FR"})
    repo.annotate("expected", OUTAGE, metric="Size(*)")
    repo.annotate("excluded", OUTAGE, metric="Mean(price)")
    repo.annotate("excluded", OUTAGE, group={"country": "DE"})
    repo.annotate("excluded", OUTAGE, tags={"env": "staging"})
    repo.annotate("excluded", day(3), day(5), group={"country": "FR"}, tags={"env": "staging"})
    assert fr_verdict() == ("normal", 10)
    frame = history_frame(repo, tags, ["Size(*)"], DROP)
    assert frame.loc[frame["excluded"], "group"].tolist() == ['[["country","DE"]]']

    repo.annotate("excluded", day(6), day(6) + timedelta(hours=1), tags={"env": "prod"})
    assert fr_verdict() == ("anomaly", 9)
    # The current point is always judged, even when excluded itself.
    repo.annotate("excluded", DROP, metric="Size(*)", group={"country": "FR"})
    assert fr_verdict() == ("anomaly", 9)
    repo.close()

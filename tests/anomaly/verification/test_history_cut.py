"""has_no_anomalies judges a run on the history before the run's time only: runs stored later
(a backfill, another writer with the same tags) never count and cannot make it ambiguous."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from pyspark.sql import SparkSession

from anomaly import Size
from anomaly.checks import Check, CheckLevel, ConstraintStatus
from anomaly.verification import VerificationSuite
from detectors import OnlineNormal
from repository import MetricRecord, MetricsRepository, ResultKey

DAY0 = datetime(2024, 5, 6, tzinfo=UTC)
ORDERS = {"dataset": "orders"}
NIGHTLY_SCAN = {"dataset": "orders", "scan": "nightly"}  # the tags a scan's runs carry


def size(value: float) -> MetricRecord:
    return MetricRecord("Dataset", "*", "Size", "Size(*)", value)


@pytest.mark.parametrize("rerun", [False, True], ids=["backfill", "re-run"])
def test_runs_stored_after_the_judged_day_neither_count_nor_make_it_ambiguous(
    spark: SparkSession, tmp_path: Path, rerun: bool
) -> None:
    repo = MetricsRepository(tmp_path / "metrics.duckdb")
    # The pipeline's checks stored days 0-9 and 11-13; a scan of the same dataset started on
    # day 10 and stores its runs at the same times, with the dataset's tag.
    for day in [*range(10), 11, 12, 13]:
        repo.save(ResultKey(DAY0 + timedelta(days=day), ORDERS), [size(100.0 + day % 3)])
    for day in range(10, 14):
        repo.save(ResultKey(DAY0 + timedelta(days=day), NIGHTLY_SCAN), [size(100.0)])
    key = ResultKey(DAY0 + timedelta(days=10), ORDERS)
    if rerun:  # the pipeline ran day 10 already: the day has the scan's run and its own
        repo.save(key, [size(101.0)])
    check = Check(CheckLevel.ERROR, "orders").has_no_anomalies(Size(), OnlineNormal(), tags=ORDERS)
    result = (
        VerificationSuite(spark).on_data(spark.range(101)).add_check(check)
        .use_repository(repo).save_or_append_result(key).run()
    )  # fmt: skip
    (row,) = result.rows
    assert row.status is ConstraintStatus.SUCCESS, row.message
    assert row.history_length == 10  # days 0-9: neither day 10 itself nor anything later
    assert row.verdict is not None and row.verdict.detector == "OnlineNormal"

"""Accuracy as a metric like any other: stored by the suite, judged by has_no_anomalies and by a
scheduled scan from a config file."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import pandas as pd

from anomaly.accuracy import Accuracy
from anomaly.checks import Check, CheckLevel, CheckStatus
from anomaly.service import ScanRunner, ScanStatus, load_config
from anomaly.verification import VerificationSuite
from detectors import OnlineNormal
from repository import MetricsRepository, ResultKey
from tests.anomaly.service.conftest import day, write_config

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

RULE = "$source.id = $target.id AND $source.amount = $target.amount"
MISSING_PER_DAY = [1, 2, 1, 0, 2, 30]  # of 100 source rows; the last day loses 30


def day_pair(n: int) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Day `n`'s 100 source rows and its copy missing the first ``MISSING_PER_DAY[n]`` rows."""
    source = pd.DataFrame({"id": range(100), "amount": [float(i % 7) for i in range(100)]})
    source["ts"] = pd.Timestamp(day(n)).as_unit("us") + pd.to_timedelta(source["id"], "min")
    return source, source.iloc[MISSING_PER_DAY[n] :]


def test_has_no_anomalies_on_accuracy_sees_the_stored_series(
    spark: SparkSession, tmp_path: Path
) -> None:
    repo = MetricsRepository(str(tmp_path / "metrics.duckdb"))
    accuracy = Accuracy("orders_copy", RULE)
    check = Check(CheckLevel.ERROR, "copy is complete").has_no_anomalies(
        accuracy, OnlineNormal(), min_history=3
    )
    statuses = []
    for n in range(len(MISSING_PER_DAY)):
        source, target = day_pair(n)
        spark.createDataFrame(target).createOrReplaceTempView("orders_copy")
        result = (
            VerificationSuite().on_data(spark.createDataFrame(source)).add_check(check)
            .use_repository(repo).save_or_append_result(ResultKey(day(n), {"table": "orders"}))
            .run()
        )  # fmt: skip
        statuses.append(result.status)
    spark.catalog.dropTempView("orders_copy")
    assert statuses == [CheckStatus.SUCCESS] * 5 + [CheckStatus.ERROR]
    (row,) = result.rows
    assert (row.value, row.history_length) == (0.7, 5)
    assert repo.history(accuracy.metric_id).round(2).tolist() == [0.99, 0.98, 0.99, 1.0, 0.98, 0.7]
    assert repo.history(f"{accuracy.metric_id}[matched]").tolist()[-1] == 70.0
    assert repo.history(f"{accuracy.metric_id}[total]").tolist() == [100.0] * 6


SCAN = """
repository: metrics.duckdb
sources:
  orders: {{path: orders.parquet, time_column: ts}}
scans:
  copy:
    source: orders
    min_history: 3
    detector: OnlineNormal
    metrics:
      - analyzer: Accuracy
        target: "parquet.`{copy}`"
        rule: >
          $source.id = $target.id AND
          $source.amount = $target.amount
        sample_size: 5
"""


def test_a_scan_config_measures_and_judges_accuracy(spark: SparkSession, tmp_path: Path) -> None:
    copy = tmp_path / "copy.parquet"
    config = load_config(write_config(tmp_path, SCAN.format(copy=copy)))
    runner = ScanRunner(config, spark=spark)
    reports = []
    for n in range(len(MISSING_PER_DAY)):
        # the data of each day replaces the last: the scan's period selects it either way
        source, target = day_pair(n)
        source.to_parquet(tmp_path / "orders.parquet", index=False, coerce_timestamps="us")
        target.to_parquet(copy, index=False, coerce_timestamps="us")
        reports.append(runner.run("copy", period=day(n)))
    assert [r.status for r in reports] == [ScanStatus.OK] * 5 + [ScanStatus.ERROR]
    assert [len(r.problems) for r in reports] == [0] * 5 + [1]
    verdict = reports[-1].problems[0].verdict
    assert verdict.metric_id == f"Accuracy(parquet.`{copy}`: {RULE})"
    assert (verdict.value, verdict.history_length) == (0.7, 5)
    repo = MetricsRepository(config.repository)
    assert repo.history(verdict.metric_id, tags={"scan": "copy"}).tolist()[-1] == 0.7

from __future__ import annotations

from typing import TYPE_CHECKING

import pandas as pd
import pytest

from detectors import Adaptive, OnlineNormal, SeasonalArima, detect_frame, detect_frame_spark
from tests.detectors.data import weekly

if TYPE_CHECKING:
    from pyspark.sql import SparkSession


def _frame() -> pd.DataFrame:
    days = pd.date_range("2024-01-01", periods=43, freq="D")
    a = [*weekly(6, seed=1), 30.0]
    b = [*weekly(6, seed=2), 10.0]
    return pd.concat(
        [
            pd.DataFrame({"board": "a", "timestamp": days, "value": a}),
            pd.DataFrame({"board": "b", "timestamp": days, "value": b}),
        ],
        ignore_index=True,
    )


@pytest.mark.parametrize(
    ("detector", "newest_only"),
    [
        (OnlineNormal(), True),
        (SeasonalArima(seasonal_order=(0, 1, 1, 7)), True),
        (Adaptive(), True),
        (Adaptive(), False),
    ],
    ids=["online", "sarima", "adaptive-newest", "adaptive-all"],
)
def test_fan_out_over_spark_gives_the_local_frame(
    spark: SparkSession, detector: object, newest_only: bool
) -> None:
    local = _frame()
    remote = detect_frame(
        spark.createDataFrame(local),
        detector,
        by="board",
        newest_only=newest_only,
        anomalies_only=False,
    )
    got = remote.toPandas().sort_values(["board", "timestamp"], ignore_index=True)
    want = detect_frame(local, detector, by="board", newest_only=newest_only, anomalies_only=False)
    if newest_only:
        assert got["status"].tolist() == ["anomaly", "ok"]
    if "p_value" not in want.columns:  # a Spark schema has the column whatever the detector
        assert got.pop("p_value").isna().all()
    else:
        assert want["p_value"].notna().any()
    assert list(got.columns) == list(want.columns)
    pd.testing.assert_frame_equal(got, want, check_dtype=False)


def test_spark_anomalies_only(spark: SparkSession) -> None:
    sdf = spark.createDataFrame(_frame())
    remote = detect_frame_spark(sdf, OnlineNormal(), "board", newest_only=True)
    rows = remote.collect()
    assert [(r["board"], r["history"], r["value"]) for r in rows] == [("a", 42, 30.0)]

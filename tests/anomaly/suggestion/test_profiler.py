"""Profiling: the statistics are right and the passes do not grow with the columns (seed §4.2)."""

from __future__ import annotations

import pytest
from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F

from anomaly import AnalysisRunner, DataType
from anomaly.errors import ConfigurationError
from anomaly.suggestion import ColumnProfile, profile_columns
from anomaly.suggestion.type_set import TypeSet
from tests.anomaly.suggestion.conftest import ROWS
from tests.anomaly.test_runner_passes import count_jobs


def test_profiles_hold_types_completeness_and_summaries(
    profiles: dict[str, ColumnProfile],
) -> None:
    types = {c: p.data_type for c, p in profiles.items()}
    assert types == {
        "id": "Integral", "statuses_count": "Integral", "dup": "Integral",
        "complete_text": "String", "partial": "String", "mixed": "String", "signed": "Integral",
        "ratio": "Fractional", "price": "Fractional", "category": "String",
        "many_rare": "String", "count": "Integral", "flag": "Boolean",
    }  # fmt: skip
    assert all(p.rows == ROWS for p in profiles.values())
    assert profiles["partial"].non_null == 280 and profiles["id"].non_null == ROWS
    signed = profiles["signed"]
    assert (signed.minimum, signed.maximum, signed.mean) == (-200.0, 199.0, -0.5)
    assert signed.quartiles is not None and -110 < signed.quartiles[0] < -90
    assert abs(profiles["id"].approx_distinct - ROWS) <= 0.05 * ROWS
    assert profiles["category"].histogram == {"black": 100, "blue": 100, "green": 100, "red": 100}
    assert profiles["flag"].histogram == {"true": 266, "false": 134}
    # no numeric summaries for text, no histogram above the low-cardinality threshold
    assert profiles["mixed"].minimum is None and profiles["id"].histogram is None


def test_low_cardinality_threshold_bounds_the_histograms(shaped: DataFrame) -> None:
    few = profile_columns(shaped, ["dup", "category"], low_cardinality=10)
    assert few["dup"].histogram is None
    assert few["category"].histogram is not None


def test_bad_arguments_fail_before_any_job(shaped: DataFrame) -> None:
    with pytest.raises(ConfigurationError, match=r"columns \['nope'\] do not exist"):
        profile_columns(shaped, ["id", "nope"])
    with pytest.raises(ConfigurationError, match="low_cardinality must be at least 1, got 0"):
        profile_columns(shaped, low_cardinality=0)


def test_three_passes_whatever_the_number_of_columns(spark: SparkSession) -> None:
    def wide(columns: int) -> DataFrame:
        """`columns` text columns cycling through integral, categorical, sparse and word values."""
        kinds = [
            lambda i: (F.col("id") * 7 + i).cast("string"),
            lambda i: (F.col("id") % 5).cast("string"),
            lambda i: F.when(F.col("id") % 3 > 0, F.concat(F.lit("x"), F.col("id") % 40)),
            lambda i: F.concat(F.lit("w"), F.col("id")),
        ]
        return spark.range(0, 300).select(
            *[kinds[i % 4](i).cast("string").alias(f"c{i}") for i in range(columns)]
        )

    one_scan = count_jobs(spark, lambda: wide(4).agg(F.count(F.lit(1))).collect())
    narrow = count_jobs(spark, lambda: profile_columns(wide(4)))
    broad = count_jobs(spark, lambda: profile_columns(wide(20)))
    assert narrow == broad == 3 * one_scan
    # only text columns: one pass fewer when nothing is numeric or categorical
    words = count_jobs(spark, lambda: profile_columns(wide(4).select("c3")))
    assert words == one_scan


def test_type_set_agrees_with_data_type(spark: SparkSession) -> None:
    values = ["1", " -2 ", "3.5", ".5", "1e3", "true", "FALSE", "abc", "", "x@y.z", None]
    frame = spark.createDataFrame([(v, i % 4) for i, v in enumerate(values)], "s string, g int")
    runner = AnalysisRunner(spark).on_data(frame).group_by("g")
    context = runner.add_analyzers([TypeSet("s"), DataType("s"), TypeSet("g")]).run()
    for group in [(0,), (1,), (2,), (3,)]:
        counts = context.metric(DataType("s"), group).value
        assert isinstance(counts, dict)
        seen = {
            k[4:] for k, v in counts.items() if k.startswith("abs.") and v and k != "abs.Unknown"
        }
        assert set(context.metric(TypeSet("s"), group).value or {}) == seen
    assert "TypeSet reads text" in (context.metric(TypeSet("g"), (0,)).error or "")

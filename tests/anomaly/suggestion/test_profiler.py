"""Profiling: the statistics are right and the passes do not grow with the columns (seed §4.2)."""

from __future__ import annotations

import pytest
from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F

from anomaly import AnalysisRunner, DataType
from anomaly.analyzers import ApproxQuantiles, Maximum, Mean, Minimum, StandardDeviation
from anomaly.errors import ConfigurationError
from anomaly.suggestion import ColumnProfile, profile_columns
from anomaly.suggestion.type_set import TypeSet
from tests.anomaly.engine.test_runner_passes import count_jobs
from tests.anomaly.suggestion.conftest import ROWS


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


@pytest.mark.parametrize("column", ["signed", "ratio", "price", "statuses_count"])
def test_numeric_summaries_are_those_of_the_analyzers(
    shaped: DataFrame, profiles: dict[str, ColumnProfile], column: str
) -> None:
    data = shaped.withColumn(column, F.col(column).try_cast("double"))
    quartiles = ApproxQuantiles(column, (0.25, 0.5, 0.75))
    analyzers = [Minimum(column), Maximum(column), Mean(column), StandardDeviation(column)]
    context = AnalysisRunner().on_data(data).add_analyzers([*analyzers, quartiles]).run()
    profile = profiles[column]
    found = (profile.minimum, profile.maximum, profile.mean, profile.stddev)
    assert found == pytest.approx([context[a].value for a in analyzers], rel=1e-12)
    # KLL sketches are randomised: both quartile sets are within the sketch's rank error.
    values = [r[0] for r in data.select(column).collect() if r[0] is not None]
    sketched = context[quartiles].value
    assert isinstance(sketched, dict) and profile.quartiles is not None
    for q, ours in zip((0.25, 0.5, 0.75), profile.quartiles, strict=True):
        for estimate in (ours, sketched[repr(q)]):
            rank = sum(v <= estimate for v in values) / len(values)
            below = sum(v < estimate for v in values) / len(values)
            assert below - 0.0165 <= q <= rank + 0.0165


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
    # tricky values: each must get DataType's type from TypeSet's one regex
    values += [" 12", "1e5", "0x1F", "NaN", "\u0663", "2024-01-01", " True\t", "1.", ".5e3"]
    values += ["+.5", "12\u2028", "-", "tRuE", "truee", "1e", "1.5E-3", "fa", "+-1", "1.2.3"]
    frame = spark.createDataFrame([(v, i) for i, v in enumerate(values)], "s string, g int")
    runner = AnalysisRunner(spark).on_data(frame).group_by("g")
    context = runner.add_analyzers([TypeSet("s"), DataType("s"), TypeSet("g")]).run()
    for group in [(i,) for i in range(len(values)) if values[i] is not None]:
        counts = context.metric(DataType("s"), group).value
        assert isinstance(counts, dict)
        seen = {
            k[4:] for k, v in counts.items() if k.startswith("abs.") and v and k != "abs.Unknown"
        }
        assert set(context.metric(TypeSet("s"), group).value or {}) == seen
    assert "TypeSet reads text" in (context.metric(TypeSet("g"), (0,)).error or "")


def test_profiling_restores_the_callers_codegen_setting(spark: SparkSession) -> None:
    key = "spark.sql.codegen.maxFields"
    spark.conf.set(key, "123")
    try:
        profile_columns(spark.range(5).selectExpr("CAST(id AS STRING) AS s"))
        assert spark.conf.get(key) == "123"
    finally:
        spark.conf.unset(key)

"""Numbers held as text (a CSV read without a schema), under ANSI mode on and off.

Numeric analyzers read a text column as numbers when every value parses, and fail with a clear
message (how many values, an example) when one does not; numeric constraints count a value that
does not parse as a violation. Never Spark's CAST_INVALID_INPUT, in either mode.
"""

from __future__ import annotations

import math
from collections.abc import Iterator

import numpy as np
import pytest
from pyspark.sql import DataFrame, SparkSession

from anomaly import (
    AnalysisRunner,
    ApproxQuantile,
    Check,
    CheckLevel,
    Correlation,
    Maximum,
    Mean,
    Minimum,
    StandardDeviation,
    Sum,
    VerificationSuite,
)
from anomaly.spark import runtime_conf

# g, clean (text, all numbers), amount (text, one word), n (the clean numbers as doubles)
ROWS = [
    ("a", "1.5", "1.5", 1.5),
    ("a", " 2 ", " 2 ", 2.0),
    ("a", "-3", "-3", -3.0),
    ("b", "1e2", "1e2", 100.0),
    ("b", None, None, None),
    ("b", "0", "n/a", 0.0),
]
SCHEMA = "g string, clean string, amount string, n double"
CLEAN = [1.5, 2.0, -3.0, 100.0, 0.0]


@pytest.fixture(scope="module")
def data(spark: SparkSession) -> DataFrame:
    return spark.createDataFrame(ROWS, SCHEMA)


@pytest.fixture(params=["true", "false"], ids=["ansi", "no-ansi"])
def ansi(spark: SparkSession, request: pytest.FixtureRequest) -> Iterator[str]:
    with runtime_conf(spark, {"spark.sql.ansi.enabled": request.param}):
        yield request.param


def test_numeric_analyzers_read_text_that_holds_numbers(
    spark: SparkSession, data: DataFrame, ansi: str
) -> None:
    analyzers = [
        Mean("clean"), Sum("clean"), Minimum("clean"), Maximum("clean"),
        StandardDeviation("clean"), ApproxQuantile("clean", 0.5), Correlation("clean", "n"),
    ]  # fmt: skip
    context = AnalysisRunner(spark).on_data(data).add_analyzers(analyzers).run()
    expected = [
        np.mean(CLEAN), sum(CLEAN), min(CLEAN), max(CLEAN), np.std(CLEAN), 1.5, 1.0,
    ]  # fmt: skip
    for analyzer, value in zip(analyzers, expected, strict=True):
        assert context[analyzer].value == pytest.approx(value), context[analyzer]


def test_text_that_is_no_number_fails_the_metric_clearly(
    spark: SparkSession, data: DataFrame, ansi: str
) -> None:
    failing = [Mean("amount"), Maximum("amount"), Correlation("n", "amount")]
    context = AnalysisRunner(spark).on_data(data).add_analyzers([*failing, Mean("clean")]).run()
    for analyzer in failing:
        error = context[analyzer].error or ""
        assert error.startswith(f"{analyzer.metric_id}: 1 value of text column 'amount'")
        assert "does not parse as numbers (e.g. 'n/a')" in error
        assert "CAST_INVALID_INPUT" not in error
    assert context[Mean("clean")].value == pytest.approx(np.mean(CLEAN))


def test_where_and_groups_scope_the_failure(
    spark: SparkSession, data: DataFrame, ansi: str
) -> None:
    filtered = Mean("amount", where="g = 'a'")
    grouped = AnalysisRunner(spark).on_data(data).add_analyzer(Mean("amount")).group_by("g").run()
    plain = AnalysisRunner(spark).on_data(data).add_analyzer(filtered).run()
    assert plain[filtered].value == pytest.approx(np.mean([1.5, 2.0, -3.0]))
    assert grouped.metric(Mean("amount"), ("a",)).value == pytest.approx(np.mean([1.5, 2, -3]))
    assert "'n/a'" in (grouped.metric(Mean("amount"), ("b",)).error or "")


@pytest.mark.parametrize(
    ("constraint", "column", "holds"),
    [
        ("is_non_negative", "clean", lambda v: v >= 0),
        ("is_non_negative", "amount", lambda v: v >= 0),
        ("is_positive", "amount", lambda v: v > 0),
        ("is_in_range", "amount", lambda v: -5 <= v <= 50),
    ],
)
def test_numeric_constraints_judge_text_values(
    spark: SparkSession, data: DataFrame, ansi: str, constraint: str, column: str, holds: object
) -> None:
    """The share of rows passing, against a reference: null passes, a word is a violation."""
    check = Check(CheckLevel.ERROR, "numbers")
    method = getattr(check, constraint)
    method(column, -5, 50) if constraint == "is_in_range" else method(column)
    (row,) = VerificationSuite(spark).on_data(data).add_check(check).run().rows
    index = ["g", "clean", "amount", "n"].index(column)
    values = [r[index] for r in ROWS]
    expected = [v is None or (_number(v) is not None and holds(_number(v))) for v in values]  # type: ignore[operator]
    assert row.value == pytest.approx(sum(expected) / len(expected)), row
    assert "CAST_INVALID_INPUT" not in (row.message or "")


def _number(text: str) -> float | None:
    try:
        value = float(text)
    except ValueError:
        return None
    return None if math.isnan(value) else value

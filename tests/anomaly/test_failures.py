"""Failure semantics: a metric that cannot be computed is a failed metric with a clear message.

Missing columns, wrong types, invalid SQL (found before any Spark job), runtime failures of a
Spark job (invalid regex, ANSI cast errors), empty input and all-null columns: each gives a failed
metric naming the column (its type and what is allowed, where a type is the problem), while the
other metrics of the same run still succeed. No message carries JVM or Py4J text.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F

from anomaly import AnalysisError, AnalysisRunner, AnalyzerContext, ConfigurationError
from anomaly.analyzers import (
    Analyzer,
    ApproxCountDistinct,
    ApproxQuantile,
    ApproxQuantiles,
    Completeness,
    Compliance,
    Correlation,
    CountDistinct,
    DataType,
    Distinctness,
    Entropy,
    Histogram,
    Maximum,
    Mean,
    Minimum,
    MutualInformation,
    PatternMatch,
    Size,
    StandardDeviation,
    Sum,
    Uniqueness,
)
from tests.anomaly.conftest import (
    FAIL,
    ROWS,
    WHERE,
    Expected,
    RunAnalyzers,
    assert_clean_message,
    assert_metric,
    check_all,
    groups_of,
    reference,
)

NUMERIC = (
    "numeric column (tinyint, smallint, int, bigint, float, double, decimal) or text holding "
    "numbers"
)

# Analyzers that cannot run on the schema or whose SQL does not resolve: no Spark job needed to
# know. Each with the fragments its message must contain.
BEFORE_ANY_JOB: list[tuple[Analyzer[Any], list[str]]] = [
    (Mean("missing"), ["'missing' does not exist", "available columns", "'x'"]),
    (Completeness("missing"), ["'missing' does not exist"]),
    (ApproxCountDistinct("missing"), ["'missing' does not exist"]),
    (DataType("missing"), ["'missing' does not exist"]),
    (Histogram("missing"), ["'missing' does not exist"]),
    (CountDistinct(("s", "missing")), ["'missing' does not exist"]),
    (MutualInformation("missing", "s"), ["'missing' does not exist"]),
    (Sum("f"), ["'f' has type boolean", f"Sum needs a {NUMERIC}"]),
    (Minimum("v"), ["'v' has type void", "numeric"]),
    (Correlation("x", "f"), ["'f' has type boolean", "numeric"]),
    (PatternMatch("i", "^1"), ["'i' has type int", "string"]),
    (Compliance("unknown column", "nosuch > 1"), ["invalid expression 'nosuch > 1'", "nosuch"]),
    (Compliance("syntax", "x >"), ["invalid expression 'x >'"]),
    (Size(where="nosuch = 1"), ["invalid expression 'nosuch = 1'"]),
    (Mean("x", where="x = = 1"), ["invalid expression 'x = = 1'", "PARSE_SYNTAX_ERROR"]),
    (Entropy("s", where="nosuch = 'a'"), ["invalid expression \"nosuch = 'a'\""]),
]

# Analyzers whose Spark job fails at run time: the shared scan retries the others without them.
AT_RUN_TIME: list[tuple[Analyzer[Any], list[str]]] = [
    (PatternMatch("s", "["), ["PatternMatch(s, [)", "Unclosed character class"]),
    (Compliance("cast", "cast(s AS int) > 0"), ["Compliance(cast", "CAST_INVALID_INPUT"]),
    (Compliance("not a predicate", "s"), ["Compliance(not a predicate", "BOOLEAN"]),
    (Entropy("s", where="s rlike '['"), ["Entropy(s)", "Unclosed character class"]),
]

# Analyzers that succeed next to the failing ones (shared scan and frequency passes).
GOOD: list[Analyzer[Any]] = [
    Size(),
    Mean("x"),
    Completeness("s", where=WHERE),
    ApproxQuantile("y", 0.5),
    CountDistinct("s"),
    Histogram("t"),
]

# Next to run-time failures: every shareable one reruns alone after the shared job fails, so few.
GOOD_AT_RUN_TIME: list[Analyzer[Any]] = [Size(), Mean("x"), CountDistinct("s")]

# An all-null double column "n": defined values where the definition allows, failures otherwise.
ALL_NULL: list[tuple[Analyzer[Any], Expected]] = [
    (Completeness("n"), 0.0),
    (Mean("n"), FAIL),
    (Sum("n"), FAIL),
    (Minimum("n"), FAIL),
    (Maximum("n"), FAIL),
    (StandardDeviation("n"), FAIL),
    (ApproxQuantile("n", 0.5), FAIL),
    (Correlation("n", "x"), FAIL),
    (ApproxCountDistinct("n"), 0.0),
    (CountDistinct("n"), 0.0),
    (Distinctness("n"), FAIL),
    (Uniqueness("n"), FAIL),
    (Entropy("n"), FAIL),
    (MutualInformation("n", "t"), 0.0),  # t alone carries no information about constant n
    (Histogram("n"), {"bins": 1.0, "abs.NullValue": float(len(ROWS)), "ratio.NullValue": 1.0}),
    (
        DataType("n"),
        {
            **{f"abs.{t}": 0.0 for t in ("Fractional", "Integral", "Boolean", "String")},
            **{f"ratio.{t}": 0.0 for t in ("Fractional", "Integral", "Boolean", "String")},
            "abs.Unknown": float(len(ROWS)),
            "ratio.Unknown": 1.0,
        },
    ),
]


@pytest.fixture(scope="module")
def with_nulls(rows_df: DataFrame) -> DataFrame:
    """The generated data plus an all-null double column ``n`` and a void column ``v``."""
    return rows_df.withColumn("n", F.lit(None).cast("double")).withColumn("v", F.lit(None))


def metrics_of(context: AnalyzerContext, analyzer: Analyzer[Any], grouped: bool) -> list[Any]:
    """The analyzer's metrics: one per group (failures included), or one."""
    metrics = list(context.for_analyzer(analyzer).values())
    assert len(metrics) == (len(groups_of(ROWS)) if grouped else 1), metrics
    return metrics


def assert_failed_with(metric: Any, fragments: list[str]) -> None:
    assert not metric.succeeded, f"{metric.metric_id} succeeded with {metric.value!r}"
    assert metric.value is None
    assert metric.error.startswith(metric.metric_id), metric.error
    for fragment in fragments:
        assert fragment in metric.error, f"{fragment!r} not in {metric.error!r}"
    assert_clean_message(metric.error)


def check_failures(
    context: AnalyzerContext, table: list[tuple[Analyzer[Any], list[str]]], grouped: bool
) -> None:
    def check(case: tuple[Analyzer[Any], list[str]]) -> None:
        for metric in metrics_of(context, case[0], grouped):
            assert_failed_with(metric, case[1])

    check_all(table, check, lambda case: str(case[0]))


def check_correct(context: AnalyzerContext, analyzers: list[Analyzer[Any]], grouped: bool) -> None:
    def check(analyzer: Analyzer[Any]) -> None:
        if not grouped:
            assert_metric(context[analyzer], reference(analyzer, ROWS))
        for key, rows in groups_of(ROWS).items() if grouped else ():
            assert_metric(context.metric(analyzer, key), reference(analyzer, rows))

    check_all(analyzers, check)


def check_all_null(context: AnalyzerContext, path: str) -> None:
    def check(case: tuple[Analyzer[Any], Expected]) -> None:
        metric = context[case[0]]
        assert_metric(metric, case[1], path)
        if not metric.succeeded:
            assert "(n" in (metric.error or "") and ": no " in (metric.error or "")

    check_all(ALL_NULL, check, lambda case: str(case[0]))


@pytest.mark.parametrize("grouped", [False, True], ids=["ungrouped", "grouped"])
def test_schema_and_sql_problems_fail_only_their_metric(
    run_analyzers: RunAnalyzers, with_nulls: DataFrame, grouped: bool
) -> None:
    """Found before any job; the other metrics of the run (and the all-null ones) still succeed."""
    all_null = [] if grouped else [a for a, _ in ALL_NULL]
    analyzers = [*(a for a, _ in BEFORE_ANY_JOB), *GOOD, *all_null]
    context = run_analyzers(with_nulls, analyzers, grouped, False)
    check_failures(context, BEFORE_ANY_JOB, grouped)
    check_correct(context, GOOD, grouped)
    if not grouped:
        check_all_null(context, "spark")


@pytest.mark.parametrize(
    ("grouped", "keep"), [(False, True), (True, False)], ids=["ungrouped-states", "grouped"]
)
def test_run_time_errors_fail_only_their_metric(
    run_analyzers: RunAnalyzers, with_nulls: DataFrame, grouped: bool, keep: bool
) -> None:
    """A failed Spark job is retried without the failing analyzer; the others still succeed."""
    analyzers = [*(a for a, _ in AT_RUN_TIME), *GOOD_AT_RUN_TIME]
    context = run_analyzers(with_nulls, analyzers, grouped, keep)
    check_failures(context, AT_RUN_TIME, grouped)
    check_correct(context, GOOD_AT_RUN_TIME, grouped)


def test_all_null_column_from_states(run_analyzers: RunAnalyzers, with_nulls: DataFrame) -> None:
    """The all-null analyzers on the ``keep_states()`` path (the default path: above)."""
    check_all_null(run_analyzers(with_nulls, [a for a, _ in ALL_NULL], False, True), "states")


EMPTY_MESSAGES: list[tuple[Analyzer[Any], str]] = [
    (Completeness("x"), "Completeness(x): no rows; the metric needs at least one"),
    (Completeness("x", where=WHERE), f"no rows matching where: {WHERE}"),
    (Mean("x"), "Mean(x): no non-null values; the metric needs at least one"),
    (ApproxQuantile("x", 0.5), "ApproxQuantile(x, 0.5): no non-null values"),
    (Correlation("x", "y"), "no rows where both columns are non-null"),
    (Entropy("s", where=WHERE), f"Entropy(s) where: {WHERE}: no non-null values matching where"),
    (Histogram("s"), "Histogram(s): no non-null values"),
]


def test_empty_frame_fails_with_clear_messages(
    run_analyzers: RunAnalyzers, empty_df: DataFrame
) -> None:
    context = run_analyzers(empty_df, [a for a, _ in EMPTY_MESSAGES] + [Size()])
    check_all(
        EMPTY_MESSAGES, lambda c: assert_failed_with(context[c[0]], [c[1]]), lambda c: str(c[0])
    )
    assert context[Size()].value == 0.0


def test_correlation_of_a_constant_column_names_it() -> None:
    from anomaly.analyzers import CorrelationState

    metric = Correlation("a", "b").metric(CorrelationState(3, 1.0, 2.0, 0.0, 0.0, 2.0))
    assert_failed_with(metric, ["column 'a' is constant over 3 rows", "needs variation"])


# ---------------------------------------------------------------------------------------------
# Errors that stop a run before it starts: raised, with a clear message
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("columns", [("nope",), ("g", "nope"), ("nope", "other")])
def test_group_by_a_missing_column_raises_analysis_error(
    spark: SparkSession, rows_df: DataFrame, columns: tuple[str, ...]
) -> None:
    runner = AnalysisRunner(spark).on_data(rows_df).add_analyzers([Size()]).group_by(*columns)
    with pytest.raises(AnalysisError, match=r"group_by columns \['nope'") as raised:
        runner.run()
    assert "available columns" in str(raised.value) and "'g'" in str(raised.value)
    assert_clean_message(str(raised.value))


def test_run_without_data_raises_analysis_error() -> None:
    with pytest.raises(AnalysisError, match=r"on_data\(df\)"):
        AnalysisRunner().add_analyzers([Size()]).run()


@pytest.mark.parametrize("value", ["Size", Size, None, 3])
def test_adding_something_else_than_an_analyzer_raises(value: Any) -> None:
    with pytest.raises(ConfigurationError, match="expected an analyzer"):
        AnalysisRunner().add_analyzers([Size(), value])


@pytest.mark.parametrize(
    ("build", "fragment"),
    [
        (lambda: ApproxQuantile("x", 1.5), "quantile must be in [0, 1], got 1.5"),
        (lambda: ApproxQuantile("x", -0.1), "got -0.1"),
        (lambda: ApproxQuantiles("x", ()), "at least one quantile"),
        (lambda: ApproxQuantiles("x", (0.5, 2.0)), "got 2.0"),
        (lambda: ApproxCountDistinct("x", lg_k=30), "lg_k must be between 4 and 21, got 30"),
        (lambda: Histogram("x", max_bins=0), "max_bins must be at least 1, got 0"),
        (lambda: CountDistinct(()), "one or more column names"),
        (lambda: Uniqueness(("a", "")), "one or more column names"),
    ],
    ids=lambda v: v if isinstance(v, str) else "",
)
def test_bad_parameters_fail_at_construction(build: Callable[[], Any], fragment: str) -> None:
    with pytest.raises(ConfigurationError) as raised:
        build()
    assert fragment in str(raised.value)

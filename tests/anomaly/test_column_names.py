"""Column names with dots, spaces, backticks, keywords, non-ASCII letters and leading digits.

The rule (`anomaly.analyzers.columns`): a top-level column is taken literally, whatever its name;
otherwise a dotted name that is a nested struct field path is that path (Deequ's ``a.b``);
otherwise the metric fails saying the column does not exist. Every analyzer class runs on every
name its type allows, on both execution paths, grouped (by an awkward name) and ungrouped, and is
compared with the pure-Python reference of `tests.anomaly.conftest`.

``a.b`` is both a top-level column and a field of struct ``a``, with other values: the literal
column must win (reading the struct field instead is the silent wrong result this guards against).
"""

from __future__ import annotations

from typing import Any

import pytest
from pyspark.sql import DataFrame, SparkSession

from anomaly import AnalysisRunner
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
    UniqueValueRatio,
)
from anomaly.analyzers.columns import quote
from anomaly.checks import Check, CheckLevel, ConstraintStatus
from anomaly.errors import AnalysisError
from anomaly.verification import VerificationSuite
from tests.anomaly.conftest import (
    Expected,
    Row,
    RunAnalyzers,
    assert_clean_message,
    assert_metric,
    check_all,
    fraction,
    groups_of,
    reference,
)

# The last of each list is a field of struct `a` (nested path); "a.b" is also a struct field.
NUMERIC = ["a.b", "first name", "a`b", "order", "größe", "1st", "a.n"]
TEXT = ["user.name", "last name", "c`d", "select", "straße", "2nd", "a.t"]
GROUP = "grp.key"
TOP_LEVEL = [*NUMERIC[:-1], *TEXT[:-1], GROUP]
SCHEMA = ", ".join(
    [
        *(f"{quote(n)} int" for n in NUMERIC[:-1]),
        *(f"{quote(n)} string" for n in TEXT[:-1]),
        f"{quote(GROUP)} string",
        "a struct<b: int, n: int, t: string>",
    ]
)
WORDS = ["ab", "x@y.z", "", None, "12", "ab", "3.5"]


def make_rows(n: int = 24) -> list[Row]:
    """Rows keyed by the names users write; nulls, duplicates, a null group value."""
    rows: list[Row] = []
    for i in range(n):
        row: Row = {GROUP: ["x", "y", None][i % 3], "struct a.b": 1000 + i}
        for j, name in enumerate(NUMERIC):
            row[name] = None if (i + j) % 7 == 0 else (i * (j + 2)) % 5 + j
        for j, name in enumerate(TEXT):
            row[name] = WORDS[(i + j) % len(WORDS)]
        rows.append(row)
    return rows


ROWS = make_rows()


def spark_row(r: Row) -> tuple[Any, ...]:
    nested = (r["struct a.b"], r[NUMERIC[-1]], r[TEXT[-1]])
    return (*(r[n] for n in TOP_LEVEL), nested)


def shareable(numeric: str, text: str, other: str) -> list[Analyzer[Any]]:
    """Every scan-shared analyzer on the names its type allows (`other`: another number)."""
    return [
        *(cls(n) for n in (numeric, text) for cls in (Completeness, ApproxCountDistinct, DataType)),
        *(cls(numeric) for cls in (Mean, Sum, Minimum, Maximum, StandardDeviation)),
        ApproxQuantile(numeric, 0.5),
        ApproxQuantiles(numeric, (0.25, 0.75)),
        Correlation(numeric, other),
        PatternMatch(text, "@"),
        Compliance(f"{numeric} > 2", f"{quote(numeric)} > 2", columns=(numeric,)),
    ]


# Frequency analyzers cost one Spark pass per (columns, where, nulls) set: every name goes through
# the frequency table of the multi-column set; the other classes get a backtick or a dotted name.
FREQUENCY: list[Analyzer[Any]] = [
    *(cls([*NUMERIC, *TEXT]) for cls in (CountDistinct, Uniqueness, Distinctness)),
    UniqueValueRatio([*NUMERIC, *TEXT]),
    Entropy("a`b"),
    Histogram("a.b"),  # the shadowing top-level column, not the struct field
    Histogram("a.t"),
    MutualInformation("a.n", "user.name"),
]
ANALYZERS: list[Analyzer[Any]] = [
    Size(),
    *(
        a
        for i, (numeric, text) in enumerate(zip(NUMERIC, TEXT, strict=True))
        for a in shareable(numeric, text, NUMERIC[i - 1])
    ),
    *FREQUENCY,
]


def expected(analyzer: Analyzer[Any], rows: list[Row]) -> Expected:
    if isinstance(analyzer, Compliance):  # the only predicate here: "<column> > 2"
        (name,) = analyzer.columns
        return fraction((r[name] is not None and r[name] > 2 for r in rows), rows)
    return reference(analyzer, rows)


@pytest.fixture(scope="module")
def df(spark: SparkSession) -> DataFrame:
    return spark.createDataFrame([spark_row(r) for r in ROWS], SCHEMA)


def test_names_are_what_the_test_means() -> None:
    assert len(ANALYZERS) == len(set(ANALYZERS))
    metric_ids = [a.metric_id for a in ANALYZERS]
    assert "Mean(a.b)" in metric_ids and "Completeness(first name)" in metric_ids
    assert "Entropy(a`b)" in metric_ids and "Mean(größe)" in metric_ids
    # The shadowed struct field has other values, so reading it would show.
    assert all(r["struct a.b"] != r["a.b"] for r in ROWS)


@pytest.mark.parametrize(
    ("analyzers", "keep"), [(ANALYZERS, False), (FREQUENCY, True)], ids=["spark", "states"]
)
def test_ungrouped_metrics_equal_reference(
    run_analyzers: RunAnalyzers, df: DataFrame, analyzers: list[Analyzer[Any]], keep: bool
) -> None:
    context = run_analyzers(df, analyzers, False, keep)
    check_all(analyzers, lambda a: assert_metric(context[a], expected(a, ROWS)))
    assert context.to_pandas()["instance"].str.contains("first name").any()


def test_grouped_by_an_awkward_name_metrics_equal_reference(
    run_analyzers: RunAnalyzers, df: DataFrame
) -> None:
    context = run_analyzers(df, ANALYZERS, (GROUP,))
    groups = groups_of(ROWS, GROUP)

    def check(analyzer: Analyzer[Any]) -> None:
        assert set(context.for_analyzer(analyzer)) == set(groups)
        for key, rows in groups.items():
            metric = context.metric(analyzer, key)
            assert dict(metric.group) == {GROUP: key[0]}
            assert_metric(metric, expected(analyzer, rows))

    check_all(ANALYZERS, check)
    assert GROUP in context.to_pandas().columns


def test_group_by_a_nested_field(spark: SparkSession, df: DataFrame) -> None:
    analyzers: list[Analyzer[Any]] = [Size(), Mean("first name"), CountDistinct("a`b")]
    context = AnalysisRunner(spark).on_data(df).add_analyzers(analyzers).group_by("a.t").run()
    groups = groups_of(ROWS, "a.t")
    for analyzer in analyzers:
        for key, rows in groups.items():
            assert_metric(context.metric(analyzer, key), expected(analyzer, rows))


MISSING: list[tuple[Analyzer[Any], str]] = [
    (Mean("nope"), "nope"),
    (Completeness("a.zz"), "a.zz"),  # struct `a` exists, field `zz` does not
    (Histogram("user.name.x"), "user.name.x"),  # a string column is no struct
    (Correlation("order", "a.b.c"), "a.b.c"),
    (Compliance("n", "`nope` > 0", columns=("nope",)), "nope"),
    (Uniqueness(["1st", "a`b`"]), "a`b`"),
]


def test_missing_columns_fail_as_values(spark: SparkSession, df: DataFrame) -> None:
    analyzers: list[Analyzer[Any]] = [Size(), Mean("a.b"), *(a for a, _ in MISSING)]
    context = AnalysisRunner(spark).on_data(df).add_analyzers(analyzers).run()
    assert context[Size()].value == len(ROWS)
    assert_metric(context[Mean("a.b")], expected(Mean("a.b"), ROWS))

    def check(case: tuple[Analyzer[Any], str]) -> None:
        analyzer, name = case
        metric = context[analyzer]
        assert not metric.succeeded and metric.error, metric
        assert metric.error.startswith(f"{analyzer.metric_id}: column {name!r} does not exist")
        assert "available columns: [" in metric.error and "'first name'" in metric.error
        assert_clean_message(metric.error)

    check_all(MISSING, check, lambda case: case[0].metric_id)
    with pytest.raises(AnalysisError, match=r"group_by columns \['a.zz'\] do not exist"):
        AnalysisRunner(spark).on_data(df).add_analyzer(Size()).group_by("a.zz").run()


S, F = ConstraintStatus.SUCCESS, ConstraintStatus.FAILURE
CHECKS: list[tuple[str, Check, ConstraintStatus]] = [
    ("complete", Check(CheckLevel.ERROR, "c").is_complete(GROUP), F),
    ("contained", Check(CheckLevel.ERROR, "c").is_contained_in("a.t", WORDS[:3] + WORDS[4:]), S),
    ("contained fail", Check(CheckLevel.ERROR, "c").is_contained_in("select", ["ab"]), F),
    ("range", Check(CheckLevel.ERROR, "c").is_in_range("a`b", 2, 6), S),
    ("non-negative", Check(CheckLevel.ERROR, "c").is_non_negative("a.n"), S),
    ("positive", Check(CheckLevel.ERROR, "c").is_positive("a.b"), F),
    ("less than", Check(CheckLevel.ERROR, "c").is_less_than("order", "a.b"), F),
    ("mean", Check(CheckLevel.ERROR, "c").has_mean("a.b", lambda v: v < 10), S),
    ("unique", Check(CheckLevel.ERROR, "c").is_unique("größe", "1st", "a.n"), F),
    ("pattern", Check(CheckLevel.ERROR, "c").has_pattern("user.name", "@", lambda v: v > 0), S),
    ("missing", Check(CheckLevel.ERROR, "c").is_non_negative("a.zz"), F),
]


def test_check_constraints_on_awkward_and_nested_names(spark: SparkSession, df: DataFrame) -> None:
    checks = [check for _, check, _ in CHECKS]
    result = VerificationSuite(spark).on_data(df).add_checks(checks).run()
    rows = [r for c in result.check_results for r in c.rows]
    assert len(rows) == len(CHECKS)

    def check(i: int) -> None:
        name, _, status = CHECKS[i]
        assert rows[i].status is status, (name, rows[i].predicate, rows[i].message)
        if status is S:
            assert rows[i].message is None

    check_all(range(len(CHECKS)), check, lambda i: CHECKS[i][0])
    assert "column 'a.zz' does not exist" in (rows[-1].message or "")
    assert rows[5].predicate.startswith("Compliance(a.b is positive: `a.b` IS NULL OR TRY_CAST(")

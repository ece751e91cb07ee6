"""Every constraint of Table 1, shaped to pass and shaped to fail, in one verification run."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from pyspark.sql import DataFrame, SparkSession

from anomaly.checks import Check, CheckLevel, CheckStatus, ConstraintStatus, at_least, at_most
from anomaly.errors import VerificationFailed
from anomaly.verification import VerificationResult, VerificationSuite

ROWS = [
    # id, title, email, count, start, end, priority, kind, score, zip
    (1, "a", "x@y.com", 3, 1, 2, "hi", "phone", 1.0, "10115"),
    (2, "b", "bad", 0, 2, 5, "lo", "phone", 2.0, "80331"),
    (3, "c", None, 7, 3, 4, "hi", "tv", 3.0, "20095"),
    (4, "d", "p@q.org", 1, 0, 9, "lo", "phone", 4.0, "50667"),
    (4, None, "m@n.de", 2, 5, 5, "mid", "tablet", 5.0, "zip?"),
]
SCHEMA = (
    "id int, title string, email string, count int, start int, end int, priority string, "
    "kind string, score double, zip string"
)

Case = tuple[str, Callable[[Check], Check], ConstraintStatus]


def _type_consistency(check: Check, column: str, assertion: Callable[[float], bool]) -> Check:
    with pytest.warns(DeprecationWarning, match="use has_consistent_type"):
        return check.has_type_consistency(column, assertion)


S, F = ConstraintStatus.SUCCESS, ConstraintStatus.FAILURE
CASES: list[Case] = [
    ("is_complete pass", lambda c: c.is_complete("id", "count"), S),
    ("is_complete fail", lambda c: c.is_complete("title"), F),
    ("has_completeness pass", lambda c: c.has_completeness("email", at_least(0.8)), S),
    ("has_completeness fail", lambda c: c.has_completeness("email", at_least(0.9)), F),
    ("is_unique pass", lambda c: c.is_unique("id", "title"), S),
    ("is_unique fail", lambda c: c.is_unique("id"), F),
    ("has_uniqueness pass", lambda c: c.has_uniqueness("id", at_least(0.6)), S),
    ("has_uniqueness fail", lambda c: c.has_uniqueness("id", at_least(0.7)), F),
    ("has_distinctness pass", lambda c: c.has_distinctness(["id"], lambda v: v == 0.8), S),
    ("has_distinctness fail", lambda c: c.has_distinctness(["kind"], at_least(0.9)), F),
    ("has_unique_value_ratio pass", lambda c: c.has_unique_value_ratio("id", at_least(0.75)), S),
    ("has_unique_value_ratio fail", lambda c: c.has_unique_value_ratio("kind", at_least(0.9)), F),
    ("is_contained_in pass", lambda c: c.is_contained_in("priority", ["hi", "lo", "mid"]), S),
    ("is_contained_in fail", lambda c: c.is_contained_in("priority", ["hi", "lo"]), F),
    ("is_in_range pass", lambda c: c.is_in_range("count", 0, 7), S),
    ("is_in_range fail", lambda c: c.is_in_range("count", 0, 7, include_bounds=False), F),
    ("has_consistent_type pass", lambda c: c.has_consistent_type("id"), S),
    ("has_consistent_type fail", lambda c: c.has_consistent_type("zip"), F),
    ("has_type_consistency pass", lambda c: _type_consistency(c, "zip", at_least(0.8)), S),
    ("is_non_negative pass", lambda c: c.is_non_negative("count"), S),
    ("is_positive fail", lambda c: c.is_positive("count"), F),
    ("is_less_than fail", lambda c: c.is_less_than("start", "end"), F),
    ("is_less_than or equal pass", lambda c: c.is_less_than("start", "end", or_equal=True), S),
    ("satisfies pass", lambda c: c.satisfies("score > 0", "positive score"), S),
    ("satisfies fail", lambda c: c.satisfies("score > 1", "big score", at_least(0.9)), F),
    ("satisfies_if pass", lambda c: c.satisfies_if("kind = 'tv'", "priority = 'hi'"), S),
    ("satisfies_if fail", lambda c: c.satisfies_if("kind = 'phone'", "priority = 'hi'"), F),
    ("has_pattern pass", lambda c: c.has_pattern("email", r"@", at_least(0.6)), S),
    ("has_pattern fail", lambda c: c.has_pattern("email", r"^\S+@\S+\.\S+$"), F),
    ("has_size pass", lambda c: c.has_size(lambda n: n == 5), S),
    ("has_size fail", lambda c: c.has_size(at_least(6)), F),
    ("has_size where", lambda c: c.has_size(lambda n: n == 3, where="kind = 'phone'"), S),
    ("has_min pass", lambda c: c.has_min("score", lambda v: v == 1.0), S),
    ("has_max fail", lambda c: c.has_max("score", at_most(4.0)), F),
    ("has_mean pass", lambda c: c.has_mean("score", lambda v: v == 3.0), S),
    ("has_sum pass", lambda c: c.has_sum("count", lambda v: v == 13), S),
    ("has_standard_deviation pass", lambda c: c.has_standard_deviation("score", at_most(1.5)), S),
    ("has_standard_deviation fail", lambda c: c.has_standard_deviation("score", at_most(1)), F),
    (
        "has_approx_quantile pass",
        lambda c: c.has_approx_quantile("score", 0.5, lambda v: v == 3),
        S,
    ),
    ("has_count_distinct pass", lambda c: c.has_count_distinct("kind", lambda v: v == 3), S),
    ("has_count_distinct fail", lambda c: c.has_count_distinct("kind", at_most(2)), F),
    ("has_approx_count_distinct pass", lambda c: c.has_approx_count_distinct("id", at_most(4)), S),
    ("has_entropy pass", lambda c: c.has_entropy("kind", lambda v: 0.9 < v < 1.0), S),
    (
        "has_mutual_information pass",
        lambda c: c.has_mutual_information("kind", "priority", at_least(0.0)),
        S,
    ),
    ("has_correlation pass", lambda c: c.has_correlation("id", "score", at_least(0.9)), S),
    ("has_correlation fail", lambda c: c.has_correlation("count", "score", at_least(0.9)), F),
    (
        "has_histogram_values pass",
        lambda c: c.has_histogram_values("kind", lambda d: d.ratio("phone") == 0.6),
        S,
    ),
    (
        "has_histogram_values fail",
        lambda c: c.has_histogram_values("kind", lambda d: d.abs("tv") > 1),
        F,
    ),
    ("assertion raising", lambda c: c.has_size(lambda n: n < 1 / 0), F),
    ("missing column", lambda c: c.is_complete("nope"), F),
]


@pytest.fixture(scope="module")
def data(spark: SparkSession) -> DataFrame:
    return spark.createDataFrame(ROWS, SCHEMA)


@pytest.fixture(scope="module")
def result(spark: SparkSession, data: DataFrame) -> VerificationResult:
    checks = [build(Check(CheckLevel.ERROR, name)) for name, build, _ in CASES]
    return VerificationSuite(spark).on_data(data).add_checks(checks).run()


@pytest.mark.parametrize(("name", "expected"), [(n, e) for n, _, e in CASES])
def test_constraint_outcome(
    result: VerificationResult, name: str, expected: ConstraintStatus
) -> None:
    (check,) = [r for r in result.check_results if r.check.description == name]
    statuses = {row.status for row in check.rows}
    assert statuses == {expected}, [(r.predicate, r.value, r.message) for r in check.rows]
    assert check.status is (CheckStatus.SUCCESS if expected is S else CheckStatus.ERROR)


def test_failed_rows_say_why(result: VerificationResult) -> None:
    rows = {r.check: r for r in result.rows}
    assert "ZeroDivisionError" in (rows["assertion raising"].message or "")
    assert "column 'nope' does not exist" in (rows["missing column"].message or "")
    assert rows["is_unique fail"].predicate == "Uniqueness(id) == 1.0"
    assert rows["is_unique fail"].value == pytest.approx(0.6)


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("has_size fail", "Size(*) is 5, required >= 6"),
        ("is_unique fail", "Uniqueness(id) is 0.6, required == 1.0"),
        ("has_completeness fail", "Completeness(email) is 0.8, required >= 0.9"),
        ("satisfies fail", "Compliance(big score: score > 1) is 0.8, required >= 0.9"),
    ],
)
def test_a_failed_rule_names_its_metric_value_and_what_was_allowed(
    result: VerificationResult, name: str, message: str
) -> None:
    (row,) = [r for r in result.rows if r.check == name]
    assert row.message == message


def test_rows_and_statuses(result: VerificationResult) -> None:
    frame = result.to_pandas()
    expected_rows = sum(2 if n == "is_complete pass" else 1 for n, _, _ in CASES)
    assert len(frame) == expected_rows
    assert {"check", "constraint", "status", "message", "value", "lower", "upper"} <= set(frame)
    assert result.status is CheckStatus.ERROR


def test_levels_map_to_statuses(spark: SparkSession, data: DataFrame) -> None:
    warning = Check(CheckLevel.WARNING, "warn").is_complete("title")
    passing = Check(CheckLevel.ERROR, "ok").is_complete("id")
    result = VerificationSuite(spark).on_data(data).add_checks([warning, passing]).run()
    assert [r.status for r in result.check_results] == [CheckStatus.WARNING, CheckStatus.SUCCESS]
    assert result.status is CheckStatus.WARNING
    result.raise_for_status(CheckLevel.ERROR)  # a warning does not halt at ERROR level
    with pytest.raises(VerificationFailed) as raised:
        result.raise_for_status(CheckLevel.WARNING)
    assert str(raised.value).splitlines() == [
        "verification warning: 1 constraint(s) failed",
        "- warn: is_complete(title): Completeness(title) is 0.8, required == 1.0",
    ]


def test_bad_check_definitions_fail_early() -> None:
    with pytest.raises(ValueError, match="level must be one of"):
        Check("fatal", "x")
    with pytest.raises(ValueError, match="allowed_values must not be empty"):
        Check(CheckLevel.ERROR, "x").is_contained_in("c", [])
    with pytest.raises(TypeError, match="assertion must be callable"):
        Check(CheckLevel.ERROR, "x").has_size(5)  # type: ignore[arg-type]

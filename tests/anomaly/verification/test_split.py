"""VerificationResult.split: the passed and failed rows add up to the input, and say why."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator

import pytest
from pyspark.sql import DataFrame, SparkSession

from anomaly import (
    AnalysisError,
    Check,
    CheckLevel,
    VerificationResult,
    VerificationSuite,
    at_least,
)
from anomaly.spark import runtime_conf

ROWS = [
    # id, email, status, price (text), `a.b` (a name with a dot)
    (1, "x@y.z", "ok", "1.5", 1),
    (1, None, "ok", "2", 2),
    (2, "bad", "lost", "-3", None),
    (3, "p@q.r", None, "n/a", 4),
    (4, "m@n.o", "ok", None, 5),
    (None, "a@b.c", "refund", " 7 ", 6),
]
SCHEMA = "id int, email string, status string, price string, `a.b` int"
CHECKS = [
    Check(CheckLevel.ERROR, "orders")
    .is_unique("id")
    .is_contained_in("status", ["ok", "refund"])
    .is_non_negative("price")
    .has_completeness("email", at_least(0.5)),  # tolerates missing emails: not deciding
    Check(CheckLevel.WARNING, "emails").has_pattern("email", "@").is_complete("a.b"),
]
# The deciding constraints each row violates (None = not applicable counts as no violation).
EXPECTED = [
    ["is_unique(id)"],
    ["is_unique(id)", "has_pattern(email)"],
    ["is_contained_in(status)", "is_non_negative(price)", "has_pattern(email)", "is_complete(a.b)"],
    ["is_non_negative(price)"],
    [],
    [],
]


@pytest.fixture(scope="module")
def data(spark: SparkSession) -> DataFrame:
    return spark.createDataFrame(ROWS, SCHEMA)


@pytest.fixture(scope="module")
def result(spark: SparkSession, data: DataFrame) -> VerificationResult:
    return VerificationSuite(spark).on_data(data).add_checks(CHECKS).run()


@pytest.fixture(params=["true", "false"], ids=["ansi", "no-ansi"])
def ansi(spark: SparkSession, request: pytest.FixtureRequest) -> Iterator[None]:
    with runtime_conf(spark, {"spark.sql.ansi.enabled": request.param}):
        yield


def test_parts_add_up_to_the_input_and_name_the_failures(
    result: VerificationResult, data: DataFrame, ansi: None
) -> None:
    passed, failed = result.split(data)
    assert passed.columns == data.columns
    assert failed.columns == [*data.columns, "failed_constraints"]
    passed_rows = [tuple(r) for r in passed.collect()]
    failed_list = [(tuple(r)[:-1], r.failed_constraints) for r in failed.collect()]
    assert Counter(passed_rows) + Counter(row for row, _ in failed_list) == Counter(ROWS)
    failed_rows = dict(failed_list)
    for row, names in zip(ROWS, EXPECTED, strict=True):
        if names:
            assert failed_rows[row] == names, row
        else:
            assert row in passed_rows


def test_flag_marks_every_row_in_one_pass(result: VerificationResult, data: DataFrame) -> None:
    flagged = result.flag(data).collect()
    assert len(flagged) == len(ROWS)
    assert {tuple(r)[:-1]: r.failed_constraints for r in flagged} == dict(
        zip(ROWS, EXPECTED, strict=True)
    )


def test_named_constraints_decide(result: VerificationResult, data: DataFrame) -> None:
    passed, failed = result.split(data, constraints=["has_completeness(email)"], column="why")
    assert [tuple(r) for r in failed.collect()] == [(*ROWS[1], ["has_completeness(email)"])]
    assert passed.count() == len(ROWS) - 1
    with pytest.raises(AnalysisError, match=r"\['nope'\] are not row-level constraints"):
        result.split(data, constraints=["nope"])


def test_row_level_names_columns_after_constraints(
    result: VerificationResult, data: DataFrame
) -> None:
    added = result.row_level(data).columns[len(data.columns) :]
    assert added == [
        "is_unique(id)", "is_contained_in(status)", "is_non_negative(price)",
        "has_completeness(email)", "has_pattern(email)", "is_complete(a.b)",
    ]  # fmt: skip


def test_shared_names_and_clashes(spark: SparkSession, data: DataFrame) -> None:
    twice = [Check(CheckLevel.ERROR, d).is_unique("id") for d in ("first", "second")]
    result = VerificationSuite(spark).on_data(data).add_checks(twice).run()
    added = result.row_level(data).columns[len(data.columns) :]
    assert added == ["is_unique(id) [first]", "is_unique(id) [second]"]
    clash = data.withColumnRenamed("status", "is_unique(id) [first]")
    with pytest.raises(AnalysisError, match="would replace a column of the data"):
        result.row_level(clash)
    with pytest.raises(AnalysisError, match="flag: the data already has a column 'email'"):
        result.split(data, column="email")


def test_a_constraint_on_a_missing_column_cannot_be_judged(
    spark: SparkSession, data: DataFrame
) -> None:
    check = Check(CheckLevel.ERROR, "c").is_complete("nope")
    result = VerificationSuite(spark).on_data(data).add_check(check).run()
    with pytest.raises(AnalysisError, match="is_complete\\(nope\\) cannot be judged per row"):
        result.row_level(data)


def test_no_row_level_constraints_passes_everything(spark: SparkSession, data: DataFrame) -> None:
    check = Check(CheckLevel.ERROR, "size").has_size(at_least(1))
    result = VerificationSuite(spark).on_data(data).add_check(check).run()
    passed, failed = result.split(data)
    assert (passed.count(), failed.count()) == (len(ROWS), 0)

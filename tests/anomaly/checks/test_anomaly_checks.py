"""has_no_anomalies on stored history: Deequ's cases, groups, tags, failures."""

from __future__ import annotations

from pathlib import Path

import pytest
from pyspark.sql import DataFrame, SparkSession

from anomaly import Mean, Size
from anomaly.checks import Check, CheckLevel, CheckStatus, ConstraintStatus
from anomaly.verification import VerificationSuite
from detectors import AbsoluteChange, OnlineNormal, SimpleThreshold
from repository import MetricRecord, MetricsRepository, ResultKey


def size_record(value: float, group: dict[str, str | None] | None = None) -> MetricRecord:
    return MetricRecord("Dataset", "*", "Size", "Size(*)", value, group or {})


@pytest.fixture
def repo(tmp_path: Path) -> MetricsRepository:
    return MetricsRepository(str(tmp_path / "metrics.duckdb"))


@pytest.fixture(scope="module")
def eleven_rows(spark: SparkSession) -> DataFrame:
    return spark.range(11).withColumnRenamed("id", "x")


def size_check(level: CheckLevel, detector: object, **kwargs: object) -> Check:
    return Check(level, "size").has_no_anomalies(Size(), detector, **kwargs)  # type: ignore[arg-type]


def test_deequ_absolute_change_case(repo: MetricsRepository, eleven_rows: DataFrame) -> None:
    for t in range(1, 5):
        repo.save(ResultKey(t * 1000, {}), [size_record(t)])
    key = ResultKey(5000, {})
    strict = size_check(
        CheckLevel.WARNING, AbsoluteChange(max_rate_decrease=-2, max_rate_increase=2)
    )
    result = (
        VerificationSuite().on_data(eleven_rows).add_check(strict).use_repository(repo)
        .save_or_append_result(key).run()
    )  # fmt: skip
    assert result.status is CheckStatus.WARNING
    (row,) = result.rows
    assert row.history_length == 4 and row.value == 11.0
    assert (row.lower, row.upper) == (2.0, 6.0)
    assert repo.history("Size(*)").tolist() == [1.0, 2.0, 3.0, 4.0, 11.0]

    relaxed = size_check(
        CheckLevel.WARNING, AbsoluteChange(max_rate_decrease=-7, max_rate_increase=7)
    )
    again = (
        VerificationSuite().on_data(eleven_rows).add_check(relaxed).use_repository(repo)
        .save_or_append_result(key).run()
    )  # fmt: skip
    assert again.status is CheckStatus.SUCCESS
    assert again.rows[0].history_length == 4  # the re-run never sees its own earlier point


def test_tag_filter_sees_only_matching_history(
    repo: MetricsRepository, eleven_rows: DataFrame
) -> None:
    for t, region in [(1, "EU"), (2, "EU"), (3, "NA"), (4, "NA")]:
        repo.save(ResultKey(t * 1000, {"region": region}), [size_record(t)])
    # A threshold on the sum of the history proves which points it saw: [1, 2] only.
    seen: list[list[float]] = []

    class Spy(SimpleThreshold):
        def evaluate(self, values, interval=None):  # type: ignore[no-untyped-def]
            seen.append(list(values))
            return super().evaluate(values, interval)

    check = size_check(CheckLevel.ERROR, Spy(upper_bound=100), tags={"region": "EU"})
    VerificationSuite().on_data(eleven_rows).add_check(check).use_repository(repo).run()
    assert seen == [[1.0, 2.0, 11.0]]


def test_grouped_anomaly_check_one_outcome_per_group(
    spark: SparkSession, repo: MetricsRepository
) -> None:
    history = {"a": [0.1, 0.11, 0.09, 0.1, 0.12, 0.1], "b": [0.5, 0.52, 0.49, 0.51, 0.5, 0.5]}
    for t in range(6):
        records = [
            MetricRecord("Column", "c", "Mean", "Mean(c)", history[g][t], {"sub": g})
            for g in history
        ]
        repo.save(ResultKey((t + 1) * 1000, {}), records)
    rows = [("a", 0.9)] * 5 + [("b", 0.5)] * 5 + [("new", 0.3)] * 5
    data = spark.createDataFrame(rows, "sub string, c double")
    check = Check(CheckLevel.ERROR, "per sub", group_by=["sub"]).has_no_anomalies(
        Mean("c"), OnlineNormal(upper_deviation_factor=3)
    )
    result = VerificationSuite().on_data(data).add_check(check).use_repository(repo).run()
    by_group = {r.group["sub"]: r for r in result.rows}
    assert by_group["a"].status is ConstraintStatus.FAILURE
    assert by_group["b"].status is ConstraintStatus.SUCCESS
    assert by_group["new"].status is ConstraintStatus.INSUFFICIENT_HISTORY
    assert "new group" in (by_group["new"].message or "")
    assert result.status is CheckStatus.ERROR
    frame = result.to_pandas()
    assert {"sub", "lower", "upper", "detector", "history_length"} <= set(frame.columns)


def test_insufficient_history_fails_only_when_asked(
    repo: MetricsRepository, eleven_rows: DataFrame
) -> None:
    detector = OnlineNormal()
    lenient = size_check(CheckLevel.ERROR, detector, min_history=3)
    strict = size_check(
        CheckLevel.ERROR, detector, min_history=3, fail_on_insufficient_history=True
    )
    result = (
        VerificationSuite().on_data(eleven_rows).add_checks([lenient, strict])
        .use_repository(repo).run()
    )  # fmt: skip
    statuses = [r.status for r in result.check_results]
    assert statuses == [CheckStatus.SUCCESS, CheckStatus.ERROR]
    assert result.rows[0].status is ConstraintStatus.INSUFFICIENT_HISTORY


def test_failures_become_failed_constraints(
    repo: MetricsRepository, eleven_rows: DataFrame
) -> None:
    class Broken(SimpleThreshold):
        def evaluate(self, values, interval=None):  # type: ignore[no-untyped-def]
            raise RuntimeError("model exploded")

    repo.save(ResultKey(1000, {}), [size_record(3)])
    checks = [
        size_check(CheckLevel.ERROR, Broken(upper_bound=1)),
        Check(CheckLevel.ERROR, "missing").has_no_anomalies(Mean("nope"), OnlineNormal()),
        Check(CheckLevel.WARNING, "fine").is_complete("x"),
    ]
    result = VerificationSuite().on_data(eleven_rows).add_checks(checks).use_repository(repo).run()
    broken, missing, fine = result.rows
    assert broken.status is ConstraintStatus.FAILURE and "model exploded" in (broken.message or "")
    assert missing.status is ConstraintStatus.FAILURE
    assert "column 'nope' does not exist" in (missing.message or "")
    assert fine.status is ConstraintStatus.SUCCESS
    no_repo = VerificationSuite().on_data(eleven_rows).add_check(checks[0]).run()
    assert "use_repository" in (no_repo.rows[0].message or "")


def test_outcomes_and_verdicts_are_stored(repo: MetricsRepository, eleven_rows: DataFrame) -> None:
    for t in range(1, 5):
        repo.save(ResultKey(t * 1000, {"dataset": "d"}), [size_record(t)])
    check = size_check(CheckLevel.ERROR, AbsoluteChange(max_rate_increase=2))
    (
        VerificationSuite().on_data(eleven_rows).add_check(check).use_repository(repo)
        .save_or_append_result(ResultKey(5000, {"dataset": "d"})).run()
    )  # fmt: skip
    outcomes = repo.load_outcomes(tags={"dataset": "d"})
    verdicts = repo.load_verdicts(tags={"dataset": "d"})
    assert outcomes["status"].tolist() == ["failure"]
    assert verdicts["status"].tolist() == ["anomaly"]
    assert verdicts["upper"].tolist() == [6.0]


def test_the_default_detector_and_a_suite_alert_budget_over_many_groups(
    repo: MetricsRepository, spark: SparkSession
) -> None:
    import numpy as np

    rng = np.random.default_rng(4)
    for day in range(40):
        repo.save(
            ResultKey(day * 86_400_000, {}),
            [size_record(round(1000 * rng.lognormal(0, 0.01)), {"g": str(g)}) for g in range(20)],
        )
    data = (
        spark.range(20_000).selectExpr("CAST(id % 20 AS STRING) AS g", "id")
        .filter("g != '0' OR id < 200")  # group 0 collapses to 10 rows
        .filter("g != '1' OR id < 18000")  # group 1 dips to 900
    )  # fmt: skip
    check = Check(CheckLevel.ERROR, "sizes", group_by=["g"]).has_no_anomalies(Size())
    run = (
        VerificationSuite().on_data(data).add_check(check).use_repository(repo)
        .save_or_append_result(ResultKey(40 * 86_400_000, {}))
    )  # fmt: skip
    unbudgeted = run.run()
    status = {row.group["g"]: row.status for row in unbudgeted.rows}
    assert status["0"] is status["1"] is ConstraintStatus.FAILURE
    assert all(status[str(g)] is ConstraintStatus.SUCCESS for g in range(2, 20)), [
        (r.group, r.status, r.p_value, r.value) for r in unbudgeted.rows
    ]
    assert all(row.p_value is not None for row in unbudgeted.rows)
    budgeted = run.with_alert_budget(false_alerts_per_week=0.0001).run()
    status = {row.group["g"]: row.status for row in budgeted.rows}
    assert status["0"] is ConstraintStatus.FAILURE
    assert status["1"] is ConstraintStatus.HELD_BACK
    assert budgeted.budget is not None and budgeted.budget.held_back == 1
    assert budgeted.status is CheckStatus.ERROR
    assert repo.load_verdicts(statuses=["held_back"])["g"].tolist() == ["1"]

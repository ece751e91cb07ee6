"""Apache Griffin's completeness and timeliness: values, per group, in checks and in configs."""

from __future__ import annotations

import statistics
from datetime import UTC, date, datetime, timedelta
from typing import Any

import pytest
from pyspark.sql import DataFrame, SparkSession

from anomaly import AnalysisRunner
from anomaly.analyzers import LatencyState, RecordCompleteness, Size, Timeliness
from anomaly.checks import Check, CheckLevel, CheckStatus
from anomaly.checks.constraint import Constraint
from anomaly.config.metric_spec import MetricSpec
from anomaly.errors import ConfigurationError
from anomaly.verification import VerificationSuite

T0 = datetime(2026, 3, 1, tzinfo=UTC)
ROWS: list[tuple[Any, ...]] = [
    # email, country, amount, event time, arrival time, group
    ("a@x.de", "DE", 10.0, T0, T0 + timedelta(minutes=5), "g1"),
    ("b@x.de", "  ", 12.0, T0, T0 + timedelta(minutes=50), "g1"),
    (None, "FR", 7.0, T0, T0 + timedelta(hours=3), "g1"),
    ("c@x.fr", "FR", float("nan"), T0, None, "g2"),
    ("d@x.fr", "FR", -1.0, None, T0, "g2"),
    ("e@x.fr", "FR", 3.0, T0, T0 + timedelta(minutes=20), "g2"),
]


@pytest.fixture(scope="module")
def orders(spark: SparkSession) -> DataFrame:
    schema = "email string, country string, amount double, event timestamp, arrival timestamp"
    return spark.createDataFrame(ROWS, f"{schema}, g string").cache()


def run(df: DataFrame, *analyzers: Any, groups: tuple[str, ...] = ()) -> Any:
    return AnalysisRunner().on_data(df).add_analyzers(analyzers).group_by(*groups).run()


def test_record_completeness_counts_records_with_every_field_present_and_valid(
    orders: DataFrame,
) -> None:
    present = RecordCompleteness(["email", "country", "amount"])
    valid = RecordCompleteness(["email", "amount"], valid="amount > 0")
    context = run(orders, present, valid)
    # Missing: a null email, blank country text, a NaN amount.
    assert context[present].value == pytest.approx(3 / 6)
    assert context[valid].value == pytest.approx(3 / 6)  # and the -1.0 is not valid
    per_group = run(orders, present, groups=("g",))
    assert per_group.metric(present, ("g1",)).value == pytest.approx(1 / 3)
    assert per_group.metric(present, ("g2",)).value == pytest.approx(2 / 3)


def test_timeliness_of_records_with_both_times(orders: DataFrame) -> None:
    late = Timeliness("event", "arrival", threshold=3600)
    value = run(orders, late)[late].value
    latencies = [300.0, 3000.0, 10_800.0, 1200.0]
    assert value == pytest.approx({
        "mean": statistics.mean(latencies), "max": 10_800.0, "p50": 3000.0, "p95": 10_800.0,
        "late_share": 0.25,
    })  # fmt: skip
    assert list(run(orders, late).metric(late).judged_records())[-1].metric_id == (
        "Timeliness(event, arrival, threshold: 3600s)[late_share]"
    )
    judged = {r.name for r in run(orders, late).metric(late).judged_records()}
    assert "Timeliness.max" not in judged  # stored as context


def test_timeliness_to_processing_time_and_its_failures(orders: DataFrame) -> None:
    now = Timeliness("event")
    value = run(orders, now)[now].value
    assert isinstance(value, dict)
    age = (datetime.now(UTC) - T0).total_seconds()
    assert value["mean"] == pytest.approx(age, rel=0.01)
    wrong = Timeliness("email", "arrival")
    error = run(orders, wrong)[wrong].error or ""
    assert "has type string; Timeliness needs timestamps or dates" in error
    nothing = run(orders.where("event IS NULL"), Timeliness("event", "arrival"))
    assert "no records with both times" in (nothing[Timeliness("event", "arrival")].error or "")
    with pytest.raises(ConfigurationError, match="threshold must be a number of seconds"):
        Timeliness("event", threshold=-1)


def test_dates_count_from_midnight(spark: SparkSession) -> None:
    df = spark.createDataFrame([(date(2026, 3, 1), T0 + timedelta(hours=6))], "d date, t timestamp")
    assert run(df, Timeliness("d", "t"))[Timeliness("d", "t")].value["mean"] == 6 * 3600


def test_latency_states_merge(orders: DataFrame) -> None:
    late = Timeliness("event", "arrival", threshold=3600)
    parts = [
        AnalysisRunner().on_data(orders.where(f"g = '{g}'")).add_analyzer(late).keep_states()
        .run().states[(late, ())]
        for g in ("g1", "g2")
    ]  # fmt: skip
    assert all(isinstance(p, LatencyState) for p in parts)
    assert late.metric(parts[0].merge(parts[1])).value == run(orders, late)[late].value


def test_usable_in_checks(spark: SparkSession, orders: DataFrame) -> None:
    complete = RecordCompleteness(["email", "country"])
    late = Timeliness("event", "arrival", threshold=3600)
    check = (
        Check(CheckLevel.ERROR, "griffin")
        .add_constraint(Constraint("complete records", complete, lambda v: v >= 0.9))
        .add_constraint(Constraint("p95 latency", late, lambda v: v < 4 * 3600,
                                   pick=lambda v: v["p95"]))  # type: ignore[index]
    )  # fmt: skip
    result = VerificationSuite(spark).on_data(orders).add_check(check).run()
    rows = result.to_pandas().set_index("constraint")
    assert result.status == CheckStatus.ERROR
    assert rows.loc["complete records", "status"] == "failure"
    assert rows.loc["p95 latency", "status"] == "success"


def test_usable_in_scan_configs() -> None:
    spec = MetricSpec.model_validate(
        {"analyzer": "Timeliness", "event_column": "event", "arrival_column": "arrival",
         "threshold": 900, "quantiles": [0.9]}
    )  # fmt: skip
    assert spec.analyzer_object.metric_id == (
        "Timeliness(event, arrival, threshold: 900s, quantiles: 0.9)"
    )
    complete = MetricSpec.model_validate(
        {"analyzer": "RecordCompleteness", "column_names": ["a", "b"], "valid": "a > 0"}
    )
    assert complete.analyzer_object.metric_id == "RecordCompleteness(a, b: a > 0)"
    assert Size().metric_id == "Size(*)"

"""ColumnHealth on Spark: the measures of each column type, from one stacked aggregation."""

from __future__ import annotations

import math
import statistics
from datetime import UTC, datetime
from typing import Any

import pytest
from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F

from anomaly import AnalysisRunner
from anomaly.analyzers import Mean, Size, Timeliness
from anomaly.engine.stacked_scan import WIDE_SLOTS, stacked_scan
from anomaly.monitors import ColumnHealth
from tests.anomaly.engine.test_runner_passes import count_jobs

T0 = datetime(2026, 3, 1, tzinfo=UTC)
ROWS: list[tuple[Any, ...]] = [
    ("a", 1.5, 3, True, T0, [1, 2], {"k": 1}, "DE"),
    ("b", math.nan, 0, False, T0.replace(hour=5), [], {}, "DE"),
    ("", -2.0, None, None, T0.replace(hour=9), None, None, "FR"),
    (None, math.inf, 5, True, None, [3], {"a": 2}, "FR"),
    ("a", 0.0, -1, True, T0.replace(hour=2), [4], {"b": 3}, "FR"),
]
SCHEMA = (
    "s string, x double, i int, b boolean, t timestamp, a array<int>, m map<string,int>, g string"
)
COLUMNS = ["s", "x", "i", "b", "t", "a", "m"]


@pytest.fixture(scope="module")
def frame(spark: SparkSession) -> DataFrame:
    return spark.createDataFrame(ROWS, SCHEMA).cache()


def health(df: DataFrame, chunk: int | None = None, groups: tuple[str, ...] = ()) -> dict[Any, Any]:
    """One wide row (as for few columns of a large input), or stacked rows of `chunk` slots."""
    analyzers = [ColumnHealth(c) for c in COLUMNS]
    stacked = {"wide": WIDE_SLOTS} if chunk is None else {"chunk": chunk, "wide": 0}
    outcome = stacked_scan(df, analyzers, groups, **stacked)
    return {
        (a.column, g): a.metric(s).value for (a, g), s in outcome.items() if not isinstance(s, str)
    }


@pytest.fixture(scope="module")
def wide(frame: DataFrame) -> dict[Any, Any]:
    """The measures from one wide row, computed once: the expected values of the stacked runs."""
    return health(frame)


def test_each_type_has_its_measures(wide: dict[Any, Any]) -> None:
    found = {column: value for (column, _), value in wide.items()}
    assert found["s"] == pytest.approx({
        "completeness": 0.8, "distinct_ratio": 0.75, "min_length": 0.0, "max_length": 1.0,
        "mean_length": 0.75, "empty_share": 0.25, "share:a": 0.5,
        "share:": 0.25, "share:b": 0.25,
    })  # fmt: skip
    numbers = [1.5, -2.0, 0.0]  # NaN and inf are present, but not numbers
    x = found["x"]
    assert x["completeness"] == 1.0 and x["non_finite_share"] == 0.4
    assert (x["minimum"], x["maximum"]) == (-2.0, 1.5)
    assert x["mean"] == pytest.approx(statistics.mean(numbers))
    assert x["stddev"] == pytest.approx(statistics.pstdev(numbers))
    assert (x["zero_share"], x["negative_share"]) == (0.2, 0.2)
    assert x["p50"] == 0.0
    assert found["i"]["negative_share"] == 0.25 and found["i"]["zero_share"] == 0.25
    assert found["b"] == pytest.approx({"completeness": 0.8, "distinct_ratio": 0.5,
                                        "true_share": 0.75})  # fmt: skip
    assert found["t"]["earliest"] == T0.timestamp()
    assert found["t"]["latest"] == T0.replace(hour=9).timestamp()
    assert found["a"] == pytest.approx({"completeness": 0.8, "distinct_ratio": 1.0,
        "min_size": 0.0, "max_size": 2.0, "mean_size": 1.0, "empty_share": 0.25})  # fmt: skip
    assert found["m"]["mean_size"] == 0.75
    assert found["m"]["distinct_ratio"] == pytest.approx(1.0)  # a HyperLogLog estimate


@pytest.mark.parametrize("chunk", [1, 3, 16])
def test_rows_of_several_slots_give_the_same_measures(
    frame: DataFrame, wide: dict[Any, Any], chunk: int
) -> None:
    assert health(frame, chunk) == wide


@pytest.mark.parametrize("chunk", [None, 2])
def test_per_group(frame: DataFrame, chunk: int | None) -> None:
    found = health(frame, chunk, groups=("g",))
    assert found[("s", ("DE",))]["completeness"] == 1.0
    assert found[("s", ("FR",))]["completeness"] == pytest.approx(2 / 3)
    assert {g for _, g in found} == {("DE",), ("FR",)}


def test_an_all_null_column_has_completeness_only(spark: SparkSession) -> None:
    df = spark.createDataFrame([(None, 1), (None, 2)], "n string, k int")
    context = AnalysisRunner().on_data(df).add_analyzers([ColumnHealth("n")]).run()
    assert context[ColumnHealth("n")].value == {"completeness": 0.0}


def test_no_rows_is_nothing_to_profile_not_a_failure(frame: DataFrame) -> None:
    empty = frame.where("false")
    context = AnalysisRunner().on_data(empty).add_analyzers([Size(), ColumnHealth("x")]).run()
    assert context[Size()].value == 0.0
    assert context[ColumnHealth("x")].value == {} and not context.failures
    assert list(context.metric(ColumnHealth("x")).records()) == []


def test_slot_analyzers_share_one_job_with_size_and_timeliness(
    spark: SparkSession, frame: DataFrame
) -> None:
    """Scan-shareable slot analyzers join the stacked scan: one pass, the jobs of one grouped
    aggregation (with adaptive execution, its shuffle's map side is a job of its own)."""
    late = Timeliness("t", threshold=3600)
    analyzers = [Size(), late, *(ColumnHealth(c) for c in COLUMNS)]
    runner = AnalysisRunner().on_data(frame).add_analyzers(analyzers)
    one_aggregation = count_jobs(spark, lambda: frame.groupBy("g").count().collect())
    assert count_jobs(spark, runner.run) == one_aggregation
    context = runner.run()
    shared = AnalysisRunner().on_data(frame).add_analyzers([Size(), late]).run()
    assert context[Size()].value == shared[Size()].value == 5.0
    stacked, alone = context[late].value, shared[late].value
    assert isinstance(stacked, dict) and isinstance(alone, dict)
    assert stacked.keys() == alone.keys()
    assert all(stacked[k] == pytest.approx(alone[k]) for k in stacked)


def test_jobs_do_not_grow_with_columns(spark: SparkSession) -> None:
    def runner(width: int) -> AnalysisRunner:
        df = spark.range(200).select(*[(F.col("id") * i).alias(f"c{i}") for i in range(width)])
        return (
            AnalysisRunner()
            .on_data(df)
            .add_analyzers([Size(), *(ColumnHealth(f"c{i}") for i in range(width))])
        )

    assert count_jobs(spark, runner(3).run) == count_jobs(spark, runner(100).run) <= 2


def test_a_failing_slot_fails_its_metric_only(frame: DataFrame) -> None:
    """A runtime error (here a failing cast in a filter) is found by halving the analyzers."""
    broken = ColumnHealth("s", where="CAST(s AS INT) > 0 OR raise_error('boom') IS NULL")
    analyzers = [ColumnHealth("x"), broken, ColumnHealth("i")]
    context = AnalysisRunner().on_data(frame).add_analyzers(analyzers).run()
    assert context[ColumnHealth("x")].succeeded and context[ColumnHealth("i")].succeeded
    assert context[broken].error is not None and "boom" in context[broken].error


def test_other_metrics_of_the_run_keep_their_own_pass(frame: DataFrame) -> None:
    context = AnalysisRunner().on_data(frame).add_analyzers([Mean("i"), ColumnHealth("i")]).run()
    health_value = context[ColumnHealth("i")].value
    assert isinstance(health_value, dict)
    assert context[Mean("i")].value == pytest.approx(health_value["mean"]) == 1.75


def test_states_of_two_parts_merge_into_the_state_of_the_whole(frame: DataFrame) -> None:
    analyzers = [ColumnHealth(c) for c in COLUMNS]

    def states(df: DataFrame) -> dict[Any, Any]:
        context = AnalysisRunner().on_data(df).add_analyzers(analyzers).keep_states().run()
        return {a: context.states[(a, ())] for a in analyzers}

    first, second = states(frame.where("g = 'DE'")), states(frame.where("g = 'FR'"))
    whole = health(frame)
    for analyzer in analyzers:
        merged = analyzer.metric(first[analyzer].merge(second[analyzer])).value
        assert merged == pytest.approx(whole[(analyzer.column, ())]), analyzer

"""Algorithm 1: Spark job counts do not grow with the number of analyzers (seed 000 §III)."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from typing import Any

import pytest
from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F

from anomaly import (
    AnalysisRunner,
    ApproxCountDistinct,
    ApproxQuantile,
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
from anomaly.analyzers.base import Analyzer

_ids = itertools.count()


@pytest.fixture(scope="module")
def data(spark: SparkSession) -> DataFrame:
    frame = (
        spark.range(0, 2000)
        .withColumn("a", (F.col("id") % 7).cast("double"))
        .withColumn("b", (F.col("id") % 13).cast("double"))
        .withColumn("s", F.concat(F.lit("v"), (F.col("id") % 50).cast("string")))
        .withColumn("g", (F.col("id") % 3).cast("string"))
        .cache()
    )
    frame.count()  # fill the cache now, so no measured run pays for it
    return frame


def count_jobs(spark: SparkSession, action: Callable[[], Any]) -> int:
    """Spark jobs started by `action`, counted through a job group and the status tracker.

    The fewest of two runs: a concurrent test in the same JVM (xdist shares none, but fixtures
    may fill caches lazily) must not be charged to the measured run.
    """
    return min(_jobs_once(spark, action) for _ in range(2))


def _jobs_once(spark: SparkSession, action: Callable[[], Any]) -> int:
    group = f"passes-{next(_ids)}"
    context = spark.sparkContext
    context.setJobGroup(group, "counting jobs")
    try:
        action()
    finally:
        context.setLocalProperty("spark.jobGroup.id", None)  # type: ignore[arg-type]
    return len(context.statusTracker().getJobIdsForGroup(group))


def shareable(n: int) -> list[Analyzer[Any]]:
    """n distinct scan-shareable analyzers over the four columns."""
    makers: list[Callable[[int], Analyzer[Any]]] = [
        lambda i: Completeness("a", where=f"id > {i}"),
        lambda i: Mean("b", where=f"id > {i}"),
        lambda i: Compliance(f"c{i}", f"a > {i % 7}"),
        lambda i: Maximum("a", where=f"id < {1000 + i}"),
        lambda i: Minimum("b", where=f"id < {1000 + i}"),
        lambda i: Sum("a", where=f"id % 2 = {i % 2} and id > {i}"),
        lambda i: StandardDeviation("b", where=f"id > {i}"),
        lambda i: PatternMatch("s", f"^v{i}"),
        lambda i: ApproxCountDistinct("s", where=f"id > {i}"),
        lambda i: ApproxQuantile("a", (i % 10) / 10),
        lambda i: Correlation("a", "b", where=f"id > {i}"),
        lambda i: DataType("s", where=f"id > {i}"),
        lambda i: Size(where=f"id > {i}"),
    ]
    return [makers[i % len(makers)](i) for i in range(n)]


@pytest.mark.parametrize("groups", [(), ("g",)])
def test_thirty_shareable_analyzers_cost_the_jobs_of_one(
    spark: SparkSession, data: DataFrame, groups: Sequence[str]
) -> None:
    def run(analyzers: list[Analyzer[Any]]) -> Callable[[], Any]:
        return lambda: (
            AnalysisRunner(spark).on_data(data).add_analyzers(analyzers).group_by(*groups).run()
        )

    one = count_jobs(spark, run(shareable(1)))
    thirty = count_jobs(spark, run(shareable(30)))
    assert len(set(shareable(30))) == 30
    assert one >= 1
    assert thirty == one


def test_frequency_analyzers_cost_one_pass_per_grouping_set(
    spark: SparkSession, data: DataFrame
) -> None:
    def jobs(analyzers: list[Analyzer[Any]]) -> int:
        runner = AnalysisRunner(spark).on_data(data).add_analyzers(analyzers)
        return count_jobs(spark, runner.run)

    same_set = [CountDistinct("s"), Distinctness("s"), Uniqueness("s"), UniqueValueRatio("s")]
    one_set = jobs([Entropy("s")])
    assert jobs([*same_set, Entropy("s")]) == one_set
    # a second column set costs exactly one more pass (MutualInformation adds only windows)
    two_sets = jobs([*same_set, MutualInformation("a", "b")])
    assert two_sets == 2 * one_set
    # a histogram keeps nulls, so it is its own set
    assert jobs([Entropy("s"), Histogram("s")]) == 2 * one_set

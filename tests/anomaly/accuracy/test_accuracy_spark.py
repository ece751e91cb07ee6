"""Accuracy end to end on Spark: known mismatch counts, groups, samples, failures, seed examples."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from anomaly import AnalysisRunner, Size
from anomaly.accuracy import Accuracy, AccuracyMetric, AccuracyState
from tests.anomaly.accuracy.data import (
    EXAMPLE_1,
    EXAMPLE_2,
    FIELDS,
    expected,
    generate,
    unmatched_keys,
)

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

SOURCE, TARGET = generate()
EXPECTED = expected(SOURCE)
SCHEMA = ", ".join(f"{f} {'int' if f == 'user_id' else 'string'}" for f in FIELDS)
ACCURACY = Accuracy("customers_copy", EXAMPLE_1, sample_size=50)


@pytest.fixture(scope="module")
def source(spark: SparkSession) -> Iterator[DataFrame]:
    """The generated pair; the target registered as the view ``customers_copy``."""
    target = spark.createDataFrame(
        [tuple(r[f] for f in [*FIELDS, "loaded_at"]) for r in TARGET], f"{SCHEMA}, loaded_at string"
    )
    target.createOrReplaceTempView("customers_copy")
    yield spark.createDataFrame(
        [tuple(r[f] for f in [*FIELDS, "case"]) for r in SOURCE], f"{SCHEMA}, case string"
    )
    spark.catalog.dropTempView("customers_copy")


def jobs_of(spark: SparkSession, action: Any) -> tuple[int, Any]:
    """Spark jobs an action starts, and its result."""
    tracker, group = spark.sparkContext.statusTracker(), f"accuracy-{id(action)}"
    spark.sparkContext.setJobGroup(group, group)
    try:
        result = action()
    finally:
        spark.sparkContext.setLocalProperty("spark.jobGroup.id", None)
    return len(tracker.getJobIdsForGroup(group)), result


def test_per_group_counts_match_the_construction(spark: SparkSession, source: DataFrame) -> None:
    context = AnalysisRunner(spark).on_data(source).add_analyzer(ACCURACY).group_by("case").run()
    metrics = {key[0]: metric for key, metric in context.for_analyzer(ACCURACY).items()}
    assert set(metrics) == set(EXPECTED)
    wanted_keys = unmatched_keys(SOURCE)
    for case, (matched, total) in EXPECTED.items():
        metric = metrics[case]
        assert isinstance(metric, AccuracyMetric), metric.error
        assert (metric.matched, metric.total) == (matched, total), case
        assert metric.value == matched / total
        assert dict(metric.group) == {"case": case}
        # The sample holds every unmatched key when there are fewer than sample_size of them.
        sampled = {tuple(key[f"$source.{f}"] for f in FIELDS) for key in metric.unmatched}
        assert sampled == wanted_keys.get(case, set()), case


def test_ungrouped_run_with_failures_beside(spark: SparkSession, source: DataFrame) -> None:
    broken = [
        Accuracy("customers_copy", "$source.user_id = $target.userid"),
        Accuracy("customers_copy", "$source.user_id = $target.email"),
        Accuracy("no_such_table", "$source.user_id = $target.user_id"),
    ]
    context = (
        AnalysisRunner(spark).on_data(source).add_analyzers([Size(), ACCURACY, *broken])
        .keep_states().run()
    )  # fmt: skip
    matched = sum(m for m, _ in EXPECTED.values())
    total = sum(t for _, t in EXPECTED.values())
    metric = context[ACCURACY]
    assert metric.value == matched / total and context[Size()].value == total
    records = {r.metric_id: r.value for r in metric.records()}
    assert records == {
        ACCURACY.metric_id: matched / total,
        f"{ACCURACY.metric_id}[matched]": matched,
        f"{ACCURACY.metric_id}[total]": total,
    }
    assert ACCURACY.metric_id.startswith("Accuracy(customers_copy: $source.user_id = $target.")
    frame = context.to_pandas()
    assert list(frame[frame.name.str.startswith("Accuracy.")].name) == [
        "Accuracy.matched",
        "Accuracy.total",
    ]
    errors = [context[a].error for a in broken]
    assert "unknown field 'userid' of $target" in (errors[0] or "")
    assert "at column 27 of rule" in (errors[0] or "")
    assert "cannot compare $source.user_id (int) with $target.email (string)" in (errors[1] or "")
    assert "target 'no_such_table' cannot be read" in (errors[2] or "")
    for error in errors:  # one line, no JVM stack trace
        assert error and "\n" not in error and "org.apache" not in error and "py4j" not in error
    # Mergeable: the states of two disjoint parts merge into the state of the whole.
    whole = context.states[(ACCURACY, ())]
    parts = [
        AnalysisRunner(spark).on_data(source.where(condition)).add_analyzer(ACCURACY)
        .keep_states().run().states[(ACCURACY, ())]
        for condition in ("case < 'm'", "case >= 'm'")
    ]  # fmt: skip
    assert isinstance(whole, AccuracyState)
    assert parts[0].merge(parts[1]) == whole


def test_bad_rules_fail_before_any_spark_job(spark: SparkSession, source: DataFrame) -> None:
    bad = Accuracy("customers_copy", "$source.user_id = $target.user_id AND $source.nope > 1")
    jobs, context = jobs_of(spark, AnalysisRunner(spark).on_data(source).add_analyzer(bad).run)
    assert jobs == 0
    assert "unknown field 'nope' of $source" in (context[bad].error or "")


def test_when_where_index_and_a_small_sample(spark: SparkSession) -> None:
    source = spark.createDataFrame(
        [(i, float(i), "test" if i % 10 == 0 else "real") for i in range(1, 41)],
        "id int, amount double, kind string",
    )
    spark.createDataFrame(
        [(i, float(i) + (1.0 if i % 4 == 0 else 0.2), i % 5 != 0) for i in range(1, 41)],
        "id int, amount double, live boolean",
    ).createOrReplaceTempView("payments_copy")
    rule = (
        "$source.id = $target.id AND $source.amount <= $target.amount AND "
        "$target.amount - $source.amount < 0.5 WHEN $source.kind != 'test' AND $target.live = true"
    )
    accuracy = Accuracy("payments_copy", rule, where="id <= 30", index="id", sample_size=3)
    metric = AnalysisRunner(spark).on_data(source).add_analyzer(accuracy).run()[accuracy]
    # Measured: id 1..30 without 10, 20, 30 -> 27 rows. Unmatched: the target of a multiple of 5
    # is not live (5, 15, 25), a multiple of 4 is off by 1.0 (4, 8, 12, 16, 24, 28).
    assert isinstance(metric, AccuracyMetric)
    assert (metric.matched, metric.total) == (27 - 9, 27)
    assert len(metric.unmatched) == 3
    assert {k["$source.id"] for k in metric.unmatched} <= {5, 15, 25, 4, 8, 12, 16, 24, 28}
    assert (
        metric.unmatched
        == AnalysisRunner(spark).on_data(source).add_analyzer(accuracy).run()[accuracy].unmatched
    )  # type: ignore[attr-defined]  # same sample every run


def json_pair() -> tuple[list[tuple[int, str]], list[tuple[int, str]]]:
    """Example 2's shapes: Kafka-like rows of (time in ms, JSON string) with known outcomes."""
    day = 86_400_000

    def source(url: str, ts: int) -> str:
        tracker = json.dumps({"tracker": {"crawlRequestCreateTS": ts}})
        return json.dumps({"seeds": json.dumps({"url": url, "metadata": tracker})})

    def target(url: str, ts: int, url_first: bool = True) -> str:
        meta = json.dumps({"tracker": {"crawlRequestCreateTS": ts}})
        attrs = [{"name": "URL", "values": [url]}, {"name": "CRAWLMETADATA", "values": [meta]}]
        return json.dumps({"groups": [{"attrsList": attrs if url_first else attrs[::-1]}]})

    pairs = [  # (source, target rows, matches)
        ((0, source("http://a", 1)), [(day, target("http://a", 1))], True),
        ((0, source("http://b", 2)), [(day - 1, target("http://b", 2))], False),  # too early
        ((0, source("http://c", 3)), [(day, target("http://c-x", 3))], False),  # url differs
        ((0, source("http://d", 4)), [(day, target("http://d", 5))], False),  # ts differs
        ((0, '{"seeds": "not json'), [(day, target("http://e", 6))], False),  # malformed
        ((0, source("http://f", 7)), [(day, target("http://f", 7))] * 2, True),  # duplicated
        ((0, source("http://g", 8)), [(2 * day, target("http://g", 8, url_first=False))], True),
    ]
    return [p[0] for p in pairs], [row for p in pairs for row in p[1]]


def test_seed_example_2_on_json_strings(
    spark: SparkSession, source: DataFrame, tmp_path: Path
) -> None:
    rows, target_rows = json_pair()
    data = spark.createDataFrame(rows, "__time bigint, value string")
    path = tmp_path / "target"
    spark.createDataFrame(target_rows, "__time bigint, value string").write.parquet(str(path))
    accuracy = Accuracy(f"parquet.`{path}`", EXAMPLE_2)  # a file source as the target
    metric = AnalysisRunner(spark).on_data(data).add_analyzer(accuracy).run()[accuracy]
    assert isinstance(metric, AccuracyMetric), metric.error
    assert (metric.matched, metric.total) == (3, 7)
    urls = {k["$source.json().seeds.json().url"] for k in metric.unmatched}
    assert urls == {"http://b", "http://c", "http://d", None}

"""Streaming accuracy: a target stream matched against a source stream within the rule's time
bounds, per source window; equal to batch Accuracy over the same rows."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from pyspark.sql import DataFrame, SparkSession

from anomaly import AnalysisRunner
from anomaly.accuracy import Accuracy, AccuracyMetric, RuleError
from anomaly.streaming import StreamingAccuracy
from anomaly.streaming.event_time import WINDOW, with_windows
from repository import MetricsRepository
from tests.anomaly.streaming.data import MINUTE, T0, at

START = int(T0.timestamp() * 1000)
SCHEMA = "id long, v string, t timestamp"
RULE = "$source.id = $target.id AND $source.v = $target.v AND " \
       "$target.t BETWEEN $source.t AND $source.t + 2m"  # fmt: skip
EXAMPLE_2 = (  # seed 002's example 2 with its JSON strings (tests/anomaly/accuracy/data.py)
    "IF ( $source.__time + 24h <= $target.__time ) "
    "$source.json().seeds.json().url = "
    "$target.json().groups[0].attrsList['name' = 'URL'].values[0]"
)
HOUR = 3_600_000


@pytest.fixture
def repo() -> Iterator[MetricsRepository]:
    repository = MetricsRepository(":memory:")
    yield repository
    repository.close()


def copies(seed: int) -> tuple[list[tuple[Any, ...]], list[tuple[Any, ...]]]:
    """Source rows in windows 0-4 and their target copies: most 0-100 s later, some changed,
    missing or later than the rule's 2 minutes."""
    rng = random.Random(seed)
    source, target = [], []
    for i in range(100):
        row = (i, f"v{i}", at(rng.random() * 5))
        source.append(row)
        fate = rng.random()
        delay = rng.random() * 100 if fate < 0.8 else 130 + rng.random() * 20
        copy = (i, row[1] if fate < 0.7 or fate >= 0.8 else "changed", at(row[2].timestamp() / 60
                - T0.timestamp() / 60 + delay / 60))  # fmt: skip
        if fate < 0.95:
            target.append(copy)
    return source, target


def batch_accuracy(spark: SparkSession, source: DataFrame, target: DataFrame) -> dict[int, Any]:
    target.createOrReplaceTempView("copy")
    accuracy = Accuracy("copy", RULE)
    data = with_windows(source, "t", MINUTE, "batch")
    context = AnalysisRunner(spark).on_data(data).add_analyzer(accuracy).group_by(WINDOW).run()
    return {g[0]: (m.matched, m.total) for (_, g), m in context.metrics.items()
            if isinstance(m, AccuracyMetric)}  # fmt: skip


def test_streaming_accuracy_equals_batch_accuracy_over_the_same_rows(
    spark: SparkSession, repo: MetricsRepository, tmp_path: Path
) -> None:
    source, target = copies(seed=31)
    stream = StreamingAccuracy(
        "copies", Accuracy("copy", RULE), source_time="t", target_time="t", window="1m",
        watermark="30s", repository=repo, rows_path=str(tmp_path / "rows"), detector=None,
    )  # fmt: skip
    # Each row arrives at its event time, in micro-batches of 2 minutes; a closer ends them.
    arrivals = sorted([("s", r) for r in source] + [("t", r) for r in target],
                      key=lambda e: e[1][2])  # fmt: skip
    closer = [("s", (999, "x", at(12))), ("t", (999, "x", at(12)))]
    results = {}
    for batch in range(5):
        low, high = at(batch * 2), at((batch + 1) * 2)
        chosen = [e for e in arrivals if low <= e[1][2] < high] + (closer if batch == 4 else [])
        frames = [spark.createDataFrame([r for s, r in chosen if s == side], SCHEMA)
                  for side in ("s", "t")]  # fmt: skip
        reports = [stream.process_batch(stream.combine(*frames), batch)]
        if batch == 3:  # replayed after a crash: its windows are not closed again
            reports.append(stream.process_batch(stream.combine(*frames), batch))
            assert reports[0].closed and not reports[1].closed
        for window in (w for report in reports for w in report.closed):
            metric = window.context.metrics[(stream.accuracy, ())]
            assert isinstance(metric, AccuracyMetric) and window.window.start not in results
            results[window.window.start] = (metric.matched, metric.total)
        assert all(report.late_rows == 0 for report in reports)
    expected = batch_accuracy(spark, spark.createDataFrame(source, SCHEMA),
                              spark.createDataFrame(target, SCHEMA))  # fmt: skip
    assert results == expected and sorted(results) == [START + m * MINUTE for m in range(5)]
    assert 0 < sum(m for m, _ in results.values()) < len(source)
    stored = repo.load().with_tags({"stream": "copies"}).to_pandas()
    assert sorted(stored["name"].unique()) == ["Accuracy", "Accuracy.matched", "Accuracy.total"]
    kept = [p.name for p in (tmp_path / "rows").iterdir()]
    closer = START + 12 * MINUTE  # the closer's window is open
    assert kept == [f"batch-4-source-{closer}-target-{closer}"]


def test_seed_example_2_waits_for_targets_a_day_later_within_the_tolerance(
    spark: SparkSession, repo: MetricsRepository, tmp_path: Path
) -> None:
    def source(url: str) -> str:
        return json.dumps({"seeds": json.dumps({"url": url})})

    def target(url: str) -> str:
        attrs = [{"name": "URL", "values": [url]}]
        return json.dumps({"groups": [{"attrsList": attrs}]})

    stream = StreamingAccuracy(
        "crawl", Accuracy("crawl_results", EXAMPLE_2), source_time="__time",
        target_time="__time", window="1h", watermark="10m", tolerance="48h",
        repository=repo, rows_path=str(tmp_path / "rows"), detector=None,
    )  # fmt: skip
    schema = "__time bigint, value string"
    batches = [  # (source rows, target rows) at epoch ms
        ([(START, source("http://a")), (START + 1, source("http://b")),
          (START + 2, source("http://c"))], []),
        ([], [(START + 25 * HOUR, target("http://a")),     # 25 h later: a match
              (START + 2 * HOUR, target("http://b"))]),    # too early for the rule
        ([], [(START + 47 * HOUR, target("http://b")),     # within 24-48 h: a match
              (START + 49 * HOUR, target("http://c"))]),   # after 48 h: the tolerance says no
        ([(START + 60 * HOUR, source("http://z"))], []),   # closes the first window
    ]  # fmt: skip
    closed = []
    for batch, (src, tgt) in enumerate(batches):
        frames = [spark.createDataFrame(rows, schema) for rows in (src, tgt)]
        closed += stream.process_batch(stream.combine(*frames), batch).closed
    assert [w.window.start for w in closed] == [START]
    metric = closed[0].context.metrics[(stream.accuracy, ())]
    assert isinstance(metric, AccuracyMetric) and (metric.matched, metric.total) == (2, 3)


def test_a_target_row_no_open_window_can_match_is_counted_late(
    spark: SparkSession, repo: MetricsRepository, tmp_path: Path
) -> None:
    stream = StreamingAccuracy(
        "copies", Accuracy("copy", RULE), source_time="t", target_time="t", window="1m",
        watermark="0s", repository=repo, rows_path=str(tmp_path / "rows"), detector=None,
    )  # fmt: skip

    def batch(number: int, src: list[Any], tgt: list[Any]) -> Any:
        frames = [spark.createDataFrame(rows, SCHEMA) for rows in (src, tgt)]
        return stream.process_batch(stream.combine(*frames), number)

    batch(0, [(1, "a", at(0.5))], [(1, "a", at(0.6))])
    assert [w.window.start for w in batch(1, [(2, "b", at(4))], []).closed] == [START]
    report = batch(2, [(3, "c", at(0.2))], [(2, "b", at(0.9)), (9, "z", at(3.5))])
    assert report.late == {stream.open_windows()[0].__class__(START, MINUTE): 1}
    assert report.late_other == 1  # the target at 0:54 could only match windows that closed
    clock = stream.ledger.clock()
    assert clock is not None and clock.after.late == {"rows": 1, "targets": 1}


def test_a_rule_that_does_not_fit_the_streams_fails_before_the_query_starts(
    spark: SparkSession, repo: MetricsRepository, tmp_path: Path
) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    stream = StreamingAccuracy(
        "copies", Accuracy("copy", "$source.id = $target.email AND $target.t <= $source.t"),
        source_time="t", target_time="t", window="1m", watermark="0s", tolerance="1m",
        repository=repo, rows_path=str(tmp_path / "rows"),
    )  # fmt: skip
    frames = [spark.readStream.schema(SCHEMA).json(str(empty)) for _ in range(2)]
    with pytest.raises(RuleError, match=r"unknown field|email"):
        stream.start(*frames, str(tmp_path / "checkpoint"))
    assert not (tmp_path / "checkpoint").exists()

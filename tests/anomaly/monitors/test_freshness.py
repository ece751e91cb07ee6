"""Freshness without Spark: newest event times run after run, file ages, one-sided judging."""

from __future__ import annotations

import math
import os
import time
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
from pyspark.sql import SparkSession

from anomaly.monitors import UpperOnly
from anomaly.monitors.freshness import NewestEvents, latest, modified
from detectors import OnlineNormal, SimpleThreshold
from repository import MetricsRepository, ResultKey

TAGS = {"dataset": "orders", "scan": "orders"}


def test_the_lag_runs_on_while_nothing_arrives_and_groups_end_quietly() -> None:
    newest = NewestEvents("ts", {})
    first = newest.advance([latest("ts", 900.0, c="DE"), latest("ts", 500.0, c="FR")], end=1000)
    assert [(r.group, r.value) for r in first] == [({"c": "DE"}, 100.0), ({"c": "FR"}, 500.0)]
    second = newest.advance([latest("ts", 1900.0, c="DE")], end=2000)
    assert [(r.group, r.value) for r in second] == [({"c": "DE"}, 100.0), ({"c": "FR"}, 1500.0)]
    third = newest.advance([latest("ts", 2950.0, c="DE")], end=3000)
    assert [r.group for r in third] == [{"c": "DE"}]  # FR was judged stale once, then dropped
    # An event time older than the newest seen (late data) does not make the source fresher.
    assert newest.advance([latest("ts", 10.0, c="DE")], end=4000)[0].value == 1050.0


def test_newest_events_are_read_back_from_the_repository() -> None:
    repo = MetricsRepository(":memory:")
    for day, value in ((1, 80_000.0), (2, 170_000.0)):
        when = datetime.fromtimestamp(day * 86_400, UTC)
        repo.save(ResultKey(when, TAGS), [latest("ts", value)])
    stored = NewestEvents.stored(repo, TAGS, "ts", datetime.fromtimestamp(3 * 86_400, UTC))
    assert stored.newest == {"[]": 170_000.0} and stored.active == {"[]"}
    assert [r.value for r in stored.advance([], end=4 * 86_400)] == [4 * 86_400 - 170_000.0]
    earlier = NewestEvents.stored(repo, TAGS, "ts", datetime.fromtimestamp(2 * 86_400, UTC))
    assert earlier.newest == {"[]": 80_000.0}  # strictly before the run


def test_modified_is_the_newest_file_time(spark: SparkSession, tmp_path: Path) -> None:
    spark.range(3).repartition(2).write.parquet(str(tmp_path / "t"))
    files = sorted((tmp_path / "t").glob("*.parquet"))
    for i, file in enumerate(files):
        os.utime(file, (time.time() - 86_400 * (i + 1),) * 2)
    found = modified(spark.read.parquet(str(tmp_path / "t")))
    assert found is not None
    assert abs(found.timestamp() - (time.time() - 86_400)) < 60
    assert modified(spark.sql("SELECT 1 AS x")) is None


def test_upper_only_keeps_the_band_top_and_drops_low_values() -> None:
    values = [10.0, 11, 9, 10, 12, 10, 11, 0.5, 40]
    inner = OnlineNormal().evaluate(values, (7, 9))
    judged = UpperOnly(OnlineNormal()).evaluate(values, (7, 9))
    assert [str(s) for s in inner.status] == ["anomaly", "anomaly"]
    assert [str(s) for s in judged.status] == ["ok", "anomaly"]
    assert judged.lower.tolist() == [-math.inf, -math.inf]
    assert np.array_equal(judged.upper, inner.upper)
    assert judged.detail[0] == "" and judged.confidence[0] == 0.0
    assert UpperOnly(SimpleThreshold(upper_bound=1)).detect([0.5, 2.0])[0].index == 1

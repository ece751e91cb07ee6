"""Generated event streams with known windows, and the batch recompute they must equal."""

from __future__ import annotations

import json
import math
import os
import random
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pyarrow as pa
import pyarrow.parquet as pq

from anomaly import AnalysisRunner
from anomaly.analyzers import (
    Analyzer,
    ApproxCountDistinct,
    Completeness,
    CountDistinct,
    Maximum,
    Mean,
    Minimum,
    Size,
    StandardDeviation,
    Sum,
)
from anomaly.streaming.event_time import WINDOW, with_windows
from repository import MetricsRepository

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

T0 = datetime(2024, 5, 1, tzinfo=UTC)
MINUTE = 60_000
DAY = 1440
"""A day in minutes."""
SCHEMA = "ts timestamp, country string, amount long, user string"
COLUMNS = ["ts", "country", "amount", "user"]
# Metrics whose merged value must equal the recompute to the last bit: counts, extremes, and
# sums and means of integers (float additions of integers are exact).
EXACT: list[Analyzer[Any]] = [
    Size(), Completeness("amount"), Mean("amount"), Sum("amount"), Minimum("amount"),
    Maximum("amount"), CountDistinct("user"), ApproxCountDistinct("user"),
]  # fmt: skip
SHARED = [a for a in EXACT if not isinstance(a, CountDistinct)]
"""The exact metrics of the one shared aggregation (one Spark job per micro-batch)."""
# The variance merge (Chan et al.) rounds differently than one aggregation: equal to 1e-12.
CLOSE: list[Analyzer[Any]] = [StandardDeviation("amount")]
Row = dict[str, Any]


def at(minute: float) -> datetime:
    """`minute` minutes after T0."""
    return T0 + timedelta(minutes=minute)


def window_rows(
    minute: int, count: int, seed: int, amount: int = 50, minutes: int = 1
) -> list[Row]:
    """`count` rows spread over the window of `minutes` minutes starting at minute
    `minute * minutes`: countries DE/FR, integer amounts around `amount`, a null amount every
    7th row, users from a small pool."""
    rng = random.Random(seed * 1000 + minute)
    return [
        {
            "ts": at((minute + rng.random() * 0.999) * minutes),
            "country": rng.choice(["DE", "FR"]),
            "amount": None if i % 7 == 6 else amount + rng.randint(-5, 5),
            "user": f"u{rng.randint(0, 30)}",
        }
        for i in range(count)
    ]


def frame(spark: SparkSession, rows: Sequence[Row]) -> DataFrame:
    return spark.createDataFrame([tuple(r[c] for c in COLUMNS) for r in rows], SCHEMA)


Values = dict[tuple[int, tuple[Any, ...]], dict[str, float | None]]
"""(window start ms, group values) -> metric id -> value."""


def recompute(
    spark: SparkSession,
    df: DataFrame,
    analyzers: Sequence[Analyzer[Any]],
    group_by: Sequence[str] = (),
    length: int = MINUTE,
) -> Values:
    """Every metric per window (and group), computed in one batch run over all of `df`."""
    data = with_windows(df, "ts", length, "recompute")
    context = AnalysisRunner(spark).on_data(data).add_analyzers(analyzers)
    context = context.group_by(WINDOW, *group_by).run()
    values: Values = {}
    for (_, group), metric in context.metrics.items():
        for record in metric.records():
            key = (int(group[0]), tuple(str(v) for v in group[1:]))
            values.setdefault(key, {})[record.metric_id] = record.value
    return values


def stored(repo: MetricsRepository, stream: str, group_by: Sequence[str] = ()) -> Values:
    """The stored window runs of `stream`, in the shape of `recompute`."""
    frame = repo.load().with_tags({"stream": stream}).include_failures().to_pandas()
    values: Values = {}
    for row in frame.to_dict("records"):
        start = int(row["timestamp"].timestamp() * 1000)
        key = (start, tuple(str(row[g]) for g in group_by))
        value = row["value"]
        values.setdefault(key, {})[row["metric_id"]] = None if _missing(value) else value
    return values


def _missing(value: Any) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value))


def assert_same(actual: Values, expected: Values, close: Sequence[str] = ()) -> None:
    """Equal window by window and metric by metric (`close` ids to 1e-12 relative)."""
    assert sorted(actual) == sorted(expected), (sorted(actual), sorted(expected))
    for key, metrics in expected.items():
        for metric_id, value in metrics.items():
            got = actual[key].get(metric_id)
            if metric_id in close and got is not None and value is not None:
                assert math.isclose(got, value, rel_tol=1e-12), (key, metric_id, got, value)
            else:
                assert got == value, (key, metric_id, got, value)


def write_json(path: Path, rows: Sequence[Row], order: int) -> Path:
    """`rows` as a JSON-lines file, modified at `order` seconds after T0 (file sources take
    the oldest files first)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w") as out:
        for row in rows:
            out.write(json.dumps({**row, "ts": row["ts"].isoformat() if row["ts"] else None}))
            out.write("\n")
    stamp = T0.timestamp() + order
    os.utime(path, (stamp, stamp))
    return path


def write_parquet(path: Path, rows: Sequence[Row], order: int) -> Path:
    """`rows` as one Parquet file (ts a UTC timestamp), modified at `order` s after T0."""
    path.parent.mkdir(parents=True, exist_ok=True)
    table = pa.Table.from_pylist(
        [dict(r) for r in rows],
        schema=pa.schema([("ts", pa.timestamp("us", tz="UTC")), ("country", pa.string()),
                          ("amount", pa.int64()), ("user", pa.string())]),
    )  # fmt: skip
    pq.write_table(table, path)
    stamp = T0.timestamp() + order
    os.utime(path, (stamp, stamp))
    return path

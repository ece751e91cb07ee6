"""The stacked scan's layout per input: an ungrouped input Spark estimates as small is stacked at
any width (a wide row's code would be generated in every task), a large or grouped one is
aggregated wide; both give the same metrics."""

from __future__ import annotations

from typing import Any

import pytest
from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F

from anomaly import AnalysisRunner
from anomaly.analyzers import Analyzer, Size
from anomaly.engine.stacked_scan import SMALL_INPUT, WIDE_SLOTS, wide_limit
from anomaly.monitors import ColumnHealth

ROWS = 50
LARGE = SMALL_INPUT // 8
"""Rows of ``spark.range`` that Spark estimates over `SMALL_INPUT` once widened to `columns` (26
bytes a row); a filter keeps the estimate, so the same 50 rows can come from a small or a large
estimate."""


def columns(df: DataFrame) -> DataFrame:
    """Four columns of several types, with nulls, from ``id``."""
    key = F.col("id")
    return df.select(
        key.alias("id"),
        F.when(key % 3 > 0, key * 1.5).alias("x"),
        F.concat(F.lit("w"), (key % 7).cast("string")).alias("s"),
        F.timestamp_seconds(F.lit(1_767_225_600) + key * 3_600).alias("t"),
    )


def metrics(df: DataFrame) -> dict[str, Any]:
    analyzers: list[Analyzer[Any]] = [Size(), *(ColumnHealth(c) for c in df.columns)]
    context = AnalysisRunner().on_data(df).add_analyzers(analyzers).run()
    return {r.metric_id: r.value for r in context}


@pytest.mark.parametrize(
    ("rows", "groups", "expected"),
    [(ROWS, (), 0), (LARGE, (), WIDE_SLOTS), (ROWS, ("s",), WIDE_SLOTS)],
    ids=["small", "large", "small grouped"],
)
def test_the_layout_follows_the_estimated_input_size_and_the_groups(
    spark: SparkSession, rows: int, groups: tuple[str, ...], expected: int
) -> None:
    # Grouped, stacking multiplies the aggregation's keys by the slots: Spark sorts past 128.
    df = columns(spark.range(rows)).where(F.col("id") < ROWS)
    assert wide_limit(df, groups) == expected


def test_small_and_large_inputs_of_the_same_rows_give_the_same_metrics(
    spark: SparkSession,
) -> None:
    small = columns(spark.range(ROWS))
    large = columns(spark.range(LARGE)).where(F.col("id") < ROWS)
    assert (wide_limit(small), wide_limit(large)) == (0, WIDE_SLOTS)
    found, expected = metrics(small), metrics(large)
    assert found == expected and len(found) > 30  # Size and each column's measures
    assert found["Size(*)"] == ROWS

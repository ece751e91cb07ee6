"""Which columns the monitors watch, each under a series of its own."""

from __future__ import annotations

import pytest
from pyspark.sql import SparkSession

from anomaly import AnalysisRunner
from anomaly.monitors import ColumnHealth
from anomaly.monitors.columns import leaf_columns


@pytest.mark.parametrize(
    ("schema", "rows", "expected"),
    [
        (  # a top-level column literally named a.b beside field b of struct a
            "`a.b` long, a struct<b: long, c: long>",
            [(None, (1, 2)), (5, (3, 4))],
            {"a.b": 0.5, "`a`.`b`": 1.0, "a.c": 1.0},
        ),
        (  # a struct field with a dot beside a nested path that reads the same
            "a struct<`b.c`: long, b: struct<c: long>>",
            [((1, (None,)),), ((2, (None,)),)],
            {"a.b.c": 1.0, "`a`.`b`.`c`": 0.0},
        ),
        (  # ordinary names keep the series (and the stored history) they had
            "id long, `first name` string, a struct<b: long>",
            [(1, "x", (None,)), (2, None, (1,))],
            {"id": 1.0, "first name": 0.5, "a.b": 0.5},
        ),
    ],
)
def test_every_column_is_its_own_series(
    spark: SparkSession, schema: str, rows: list[tuple[object, ...]], expected: dict[str, float]
) -> None:
    df = spark.createDataFrame(rows, schema)
    columns = leaf_columns(df.schema)
    assert columns == list(expected)
    analyzers = [ColumnHealth(c) for c in columns]
    context = AnalysisRunner(spark).on_data(df).add_analyzers(analyzers).run()
    completeness = {
        a.column: context.metric(a).value["completeness"]  # type: ignore[index]
        for a in analyzers
    }
    assert completeness == expected
    assert len({a.metric_id for a in analyzers}) == len(columns)

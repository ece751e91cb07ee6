"""The row verdict of a uniqueness constraint: does the row's key occur once among the counted
rows (of its group)?

Duplicated keys are usually few: they are found with one aggregation over the key columns alone
(Parquet reads just those), collected, and joined back as a broadcast table, so the rows
themselves are never shuffled. Past `max_collected` duplicated keys, a count over a window
partitioned by the key does it instead (a shuffle of the rows).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from anomaly.analyzers.columns import col, field_type

if TYPE_CHECKING:
    from pyspark.sql import Column, DataFrame

MAX_COLLECTED_KEYS = 100_000


def unique_verdict(
    df: DataFrame,
    keys: Sequence[str],
    counted: Column,
    marker: str,
    max_collected: int = MAX_COLLECTED_KEYS,
) -> tuple[DataFrame, Column]:
    """`df` (with a `marker` column when a join was needed) and the verdict: true when the row
    is counted and its value tuple of `keys` occurs once among the counted rows, false when
    more often, null when the row is not counted. Runs one Spark job to find the duplicates."""
    from pyspark.sql import Window
    from pyspark.sql import functions as F
    from pyspark.sql import types as T

    schema = df.schema
    aliases = [f"__anomaly_key{i}" for i in range(len(keys))]
    columns = [col(schema, k).alias(a) for k, a in zip(keys, aliases, strict=True)]
    counts = df.where(counted).groupBy(*columns).count()
    duplicated = counts.where(F.col("count") > 1).drop("count")
    found = duplicated.limit(max_collected + 1).collect()
    if not found:
        return df, F.when(counted, F.lit(True))
    if len(found) > max_collected:
        window = Window.partitionBy(*(col(schema, k) for k in keys))
        return df, F.when(counted, F.count(F.when(counted, 1)).over(window) == 1)
    fields = [T.StructField(a, field_type(schema, k)) for k, a in zip(keys, aliases, strict=True)]
    table = df.sparkSession.createDataFrame(found, T.StructType(fields))
    table = table.withColumn(marker, F.lit(True))
    match = F.lit(True)
    for key, alias in zip(keys, aliases, strict=True):
        match = match & col(schema, key).eqNullSafe(table[alias])
    joined = df.join(F.broadcast(table), match, "left").drop(*aliases)
    return joined, F.when(counted, F.col(marker).isNull())

"""Reading a source with Spark, and the partition (UTC day or hour) of each row."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import TYPE_CHECKING

from anomaly.config.periods import LENGTHS
from anomaly.config.source_config import SourceConfig
from anomaly.errors import AnomalyError
from anomaly.sources.parquet_nanos import NANOS_AS_LONG, as_microseconds, nanosecond_columns
from anomaly.sources.read_errors import explain_read_error

if TYPE_CHECKING:
    from pyspark.sql import Column, DataFrame, SparkSession

PERIOD_COLUMN = "__period"
"""The partition start (epoch seconds) that backfill groups by."""


class SourceError(AnomalyError):
    """A source cannot be read, or lacks what its config says it has.

    >>> str(SourceError("source 'events': cannot read parquet /data/events: ..."))
    "source 'events': cannot read parquet /data/events: ..."
    """


def read_source(spark: SparkSession, name: str, source: SourceConfig) -> DataFrame:
    """The source's rows (analysed, not yet computed: errors surface here)."""
    if source.stream is not None:
        raise SourceError(
            f"source {name!r} is a stream: its scans run under 'anomaly serve' (or process what "
            "is available with 'anomaly scan'), not as a batch"
        )
    nanos = nanosecond_columns(source.path) if source.path and source.kind == "parquet" else {}
    if nanos:
        spark.conf.set(NANOS_AS_LONG, "true")  # read as longs, then made timestamps again
    try:
        if source.path is not None:
            reader = spark.read.format(source.kind).options(**source.reader_options)
            df = reader.load(source.path)
            df = as_microseconds(df, nanos) if nanos else df
        elif source.table is not None:
            df = spark.table(source.table)
        else:
            df = spark.sql(source.sql or "")
        columns = df.columns
    except Exception as error:
        raise SourceError(
            f"source {name!r}: cannot read {source.describe()}: "
            f"{explain_read_error(error, source.path or '', spark)}"
        ) from None
    if source.time_column is not None and source.time_column not in columns:
        raise SourceError(
            f"source {name!r}: time_column {source.time_column!r} does not exist; "
            f"columns: {', '.join(columns)}"
        )
    return df


def period_of(df: DataFrame, name: str, source: SourceConfig) -> Column:
    """Epoch seconds of the UTC partition start of each row's ``time_column``.

    Dates count as UTC days; timestamps as instants; text is cast to a timestamp (in the Spark
    session's time zone, UTC unless configured otherwise).
    """
    from pyspark.sql import functions as F

    column = source.time_column
    assert column is not None
    kind = df.schema[column].dataType.simpleString()
    seconds = int(LENGTHS[source.period].total_seconds())
    if kind == "date":
        if source.period != "day":
            raise SourceError(
                f"source {name!r}: time_column {column!r} is a date, so partition must be day"
            )
        return F.unix_date(F.col(column)).cast("long") * seconds
    if kind not in ("timestamp", "timestamp_ntz", "string"):
        raise SourceError(
            f"source {name!r}: time_column {column!r} has type {kind}; it must be a date, a "
            "timestamp or ISO 8601 text"
        )
    instant = F.unix_seconds(F.col(column).cast("timestamp"))
    return (F.floor(instant / seconds) * seconds).cast("long")


def restrict_to_period(
    df: DataFrame, name: str, source: SourceConfig, start: datetime
) -> DataFrame:
    """The rows of the partition starting at `start` (range filters where the type allows,
    so Spark can prune partitions and row groups)."""
    from pyspark.sql import functions as F

    column = source.time_column
    assert column is not None
    start = start.astimezone(UTC)
    end = start + LENGTHS[source.period]
    kind = df.schema[column].dataType.simpleString()
    if kind == "date" and source.period == "day":
        low, high = F.lit(start.date()), F.lit(end.date())
        return df.where((F.col(column) >= low) & (F.col(column) < high))
    if kind == "timestamp":
        return df.where((F.col(column) >= F.lit(start)) & (F.col(column) < F.lit(end)))
    return df.where(period_of(df, name, source) == int(start.timestamp()))

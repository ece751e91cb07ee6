"""A row's event time in epoch milliseconds, and its window, as Spark columns.

Timestamps are instants; ``timestamp_ntz`` and text are read in the session time zone (UTC
by default in sessions this package builds); dates are UTC days; integers are epoch
milliseconds (Apache Griffin's ``__time``). A null or unreadable time gives a null event time:
such rows are counted as untimed, never silently dropped. An event time further ahead of the
processing clock than the stream allows (a year-9999 typo) is implausible: the row is counted as
such, merged into no window, and does not move the watermark.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from anomaly.analyzers.columns import col, field_type
from anomaly.streaming.errors import StreamError

if TYPE_CHECKING:
    from pyspark.sql import Column, DataFrame
    from pyspark.sql.types import StructType

EVENT, WINDOW, FUTURE = "__event_ms", "__window", "__future"
"""Columns added to each micro-batch: the event time, the start of its window, and whether the
event time is implausibly far ahead (such rows have neither event time nor window)."""
INTEGERS = ("tinyint", "smallint", "int", "bigint")


def event_millis(schema: StructType, column: str, stream: str) -> Column:
    """Epoch milliseconds of `column` (null when the time is null or unreadable)."""
    from pyspark.sql import functions as F

    try:
        kind = field_type(schema, column).simpleString()
    except KeyError:
        raise StreamError(
            f"stream {stream!r}: time_column {column!r} does not exist; columns: "
            f"{', '.join(schema.names)}"
        ) from None
    value = col(schema, column)
    if kind == "timestamp":
        return F.unix_millis(value)
    if kind == "timestamp_ntz":
        return F.unix_millis(value.cast("timestamp"))
    if kind == "date":
        return F.unix_date(value).cast("long") * 86_400_000
    if kind == "string":
        return F.unix_millis(F.try_to_timestamp(value))
    if kind in INTEGERS:
        return value.cast("long")
    raise StreamError(
        f"stream {stream!r}: time_column {column!r} has type {kind}; it must be a timestamp, a "
        "date, ISO 8601 text or epoch milliseconds (an integer)"
    )


def with_windows(
    df: DataFrame, column: str, length: int, stream: str, latest: int | None = None
) -> DataFrame:
    """`df` plus ``__event_ms``, ``__window`` (the start of the `length` ms window) and
    ``__future``: true for an event time after `latest` (epoch ms), whose row then has no event
    time and no window."""
    from pyspark.sql import functions as F

    event = event_millis(df.schema, column, stream)
    future = F.lit(False) if latest is None else implausible(event, latest)
    timed = df.withColumn(FUTURE, future)
    timed = timed.withColumn(EVENT, F.when(~F.col(FUTURE), event))
    return timed.withColumn(WINDOW, F.col(EVENT) - F.pmod(F.col(EVENT), F.lit(length)))


def implausible(column: Column, latest: int) -> Column:
    """Whether an event time `column` (epoch ms) is after `latest` (never null)."""
    from pyspark.sql import functions as F

    return F.coalesce(column > F.lit(latest), F.lit(False))

"""A row's event time in epoch milliseconds, and its window, as Spark columns.

Timestamps are instants; ``timestamp_ntz`` and text are read in the session time zone (UTC
by default in sessions this package builds); dates are UTC days; integers are epoch
milliseconds (Apache Griffin's ``__time``). A null or unreadable time gives a null event time:
such rows are counted as untimed, never silently dropped.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from anomaly.analyzers.columns import col, field_type
from anomaly.streaming.errors import StreamError

if TYPE_CHECKING:
    from pyspark.sql import Column, DataFrame
    from pyspark.sql.types import StructType

EVENT, WINDOW = "__event_ms", "__window"
"""Columns added to each micro-batch: the event time and the start of its window."""
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


def with_windows(df: DataFrame, column: str, length: int, stream: str) -> DataFrame:
    """`df` plus ``__event_ms`` and ``__window`` (the start of the `length` ms window)."""
    from pyspark.sql import functions as F

    event = event_millis(df.schema, column, stream)
    timed = df.withColumn(EVENT, event)
    return timed.withColumn(WINDOW, F.col(EVENT) - F.pmod(F.col(EVENT), F.lit(length)))

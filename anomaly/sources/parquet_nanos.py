"""Parquet files with nanosecond timestamps (pandas' default), read as microsecond timestamps.

Spark has no nanosecond timestamp type: it refuses such columns (``PARQUET_TYPE_ILLEGAL``
``TIMESTAMP(NANOS,true)``) unless ``spark.sql.legacy.parquet.nanosAsLong`` reads them as epoch
nanoseconds. For a local source, the first file's footer says which columns they are: those are
read as longs and turned back into timestamps (microseconds, Spark's precision; the digits
below are cut).
"""

from __future__ import annotations

import glob
from pathlib import Path
from typing import TYPE_CHECKING

from anomaly.analyzers.columns import quote
from anomaly.spark import runtime_conf

if TYPE_CHECKING:
    from pyspark.sql import DataFrame

NANOS_AS_LONG = "spark.sql.legacy.parquet.nanosAsLong"


def nanosecond_columns(path: str) -> dict[str, bool]:
    """Top-level columns of the first Parquet file at local `path` (a file, a directory or a
    glob) stored as nanosecond timestamps: name -> whether they are instants (UTC-adjusted).
    Empty for remote paths and unreadable footers (Spark then says what is wrong).
    """
    import pyarrow as pa
    import pyarrow.parquet as pq

    local = path.removeprefix("file://").removeprefix("file:")
    if "://" in local:
        return {}
    first = _first_file(local)
    if first is None:
        return {}
    try:
        schema = pq.read_schema(first)
    except Exception:  # not Parquet, or damaged: the read itself reports it
        return {}
    return {
        field.name: field.type.tz is not None
        for field in schema
        if pa.types.is_timestamp(field.type) and field.type.unit == "ns"
    }


def _first_file(local: str) -> Path | None:
    for match in sorted(glob.glob(local)) or [local]:
        root = Path(match)
        if root.is_file():
            return root
        if root.is_dir():
            data = (p for p in sorted(root.rglob("*")) if p.is_file() and _is_data(p))
            found = next(data, None)
            if found is not None:
                return found
    return None


def _is_data(path: Path) -> bool:
    return not any(part.startswith(("_", ".")) for part in path.parts[-1:])


def as_microseconds(df: DataFrame, columns: dict[str, bool]) -> DataFrame:
    """`df` with each of `columns` (epoch nanoseconds, as ``nanosAsLong`` reads them) as a
    timestamp (an instant) or, where the file had no time zone, a ``timestamp_ntz``."""
    from pyspark.sql import functions as F

    converted = {}
    for name, instant in columns.items():
        value = F.timestamp_micros(F.expr(f"{quote(name)} div 1000"))
        converted[name] = value if instant else value.cast("timestamp_ntz")
    # The wall clock of a file's local time is its UTC reading: cast in UTC, whatever the
    # session's zone (the cast takes the zone when analysed, here).
    with runtime_conf(df.sparkSession, {"spark.sql.session.timeZone": "UTC"}):
        return df.withColumns(converted)

"""Which columns the monitors watch: every leaf column, filtered by glob patterns."""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

from anomaly.analyzers.columns import quote, resolve
from anomaly.errors import ConfigurationError

if TYPE_CHECKING:
    from pyspark.sql.types import StructType

ARRIVAL = re.compile(r"(load|ingest|arriv|receiv|insert|landed|process)", re.IGNORECASE)
"""Names of columns that say when a record arrived (``loaded_at``, ``ingestion_time``...)."""


def leaf_columns(schema: StructType) -> list[str]:
    """Every column, fields of structs as ``a.b`` (arrays and maps as one column each).

    A field whose dotted name means another column (a top-level column literally named
    ``a.b`` beside field ``b`` of struct ``a``) is named quoted, ```a`.`b```: each its own
    series. Other names are unchanged, so their stored history still matches.

    >>> from pyspark.sql.types import LongType, StructField, StructType
    >>> inner = StructType([StructField("b", LongType()), StructField("c", LongType())])
    >>> leaf_columns(StructType([StructField("id", LongType()), StructField("a", inner)]))
    ['id', 'a.b', 'a.c']
    >>> leaf_columns(StructType([StructField("a.b", LongType()), StructField("a", inner)]))
    ['a.b', '`a`.`b`', 'a.c']
    """
    return [
        ".".join(path) if resolve(schema, ".".join(path)) == path else quote(path)
        for path in _leaf_paths(schema)
    ]


def _leaf_paths(schema: StructType) -> list[tuple[str, ...]]:
    from pyspark.sql.types import StructType

    found: list[tuple[str, ...]] = []
    for field in schema.fields:
        if isinstance(field.dataType, StructType):
            found += [(field.name, *leaf) for leaf in _leaf_paths(field.dataType)]
        else:
            found.append((field.name,))
    return found


def choose(
    columns: Sequence[str],
    include: Sequence[str],
    exclude: Sequence[str],
    where: str,
    known: Sequence[str] = (),
) -> list[str]:
    """`columns` matching an `include` pattern and no `exclude` pattern (globs: ``*``, ``?``,
    ``[ab]``; case-sensitive). A pattern that matches no column, now nor in `known` (the
    columns of the previous run: a column dropped since is a schema change, not a typo), is an
    error naming its key path under `where`.

    >>> choose(["id", "price", "user_id"], ["*"], ["*id"], "monitors.columns")
    ['price']
    >>> choose(["id"], ["prize"], [], "monitors.columns")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    anomaly.errors.ConfigurationError: monitors.columns.include[0]: pattern 'prize' matches no ...
    """
    for key, patterns in (("include", include), ("exclude", exclude)):
        for i, pattern in enumerate(patterns):
            if not any(fnmatch.fnmatchcase(c, pattern) for c in (*columns, *known)):
                raise ConfigurationError(
                    f"{where}.{key}[{i}]: pattern {pattern!r} matches no column; "
                    f"columns: {', '.join(columns)}"
                )
    return [
        c
        for c in columns
        if any(fnmatch.fnmatchcase(c, p) for p in include)
        and not any(fnmatch.fnmatchcase(c, p) for p in exclude)
    ]


def arrival_column(schema: StructType, time_column: str | None) -> str | None:
    """The first top-level timestamp column named like an arrival time, other than the time
    column (None when there is none).

    >>> from pyspark.sql.types import StringType, StructField, StructType, TimestampType
    >>> schema = StructType([StructField("event_time", TimestampType()),
    ...                      StructField("loaded_by", StringType()),
    ...                      StructField("loaded_at", TimestampType())])
    >>> arrival_column(schema, "event_time")
    'loaded_at'
    """
    for field in schema.fields:
        kind = field.dataType.simpleString()
        if (
            field.name != time_column
            and kind.startswith("timestamp")
            and ARRIVAL.search(field.name)
        ):
            return field.name
    return None

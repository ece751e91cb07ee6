"""Reading the results of ad-hoc SQL on ``MetricsRepository.sql()``'s cursor, on either backend.

The repository's own modules use their backend's cursor (``backends.base.Cursor``); these helpers
are for code that queries the documented views through ``repo.sql()``: DuckDB's own cursor (on
DuckDB 1.x and 2.x), or the PostgreSQL backend's cursor. SQL that differs between the stores
(map access, epoch milliseconds, ``EXCLUDE``...) can be written with ``repo.dialect``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import duckdb
import pyarrow as pa

from repository.backends.base import Cursor as BackendCursor
from repository.backends.base import SqlCursor

Cursor = SqlCursor
"""What ``MetricsRepository.sql()`` yields."""


def first_row(cur: Cursor, sql: str, params: Sequence[object] = ()) -> tuple[Any, ...] | None:
    """The first row of a statement's result, consuming the result (DuckDB 2 refuses further
    work on a connection whose last result was not read to the end)."""
    rows = cur.execute(sql, list(params)).fetchall()
    return tuple(rows[0]) if rows else None


def fetch_arrow(cur: Cursor, sql: str, params: Sequence[object] = ()) -> pa.Table:
    """The result of a query as an Arrow table."""
    if isinstance(cur, BackendCursor):
        return cur.arrow(sql, params)
    assert isinstance(cur, duckdb.DuckDBPyConnection), type(cur)
    relation = cur.sql(sql, params=list(params))
    fetch = getattr(relation, "to_arrow_table", None) or relation.fetch_arrow_table
    table: pa.Table = fetch()
    return table

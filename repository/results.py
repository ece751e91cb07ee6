"""Reading DuckDB results in a way that works on DuckDB 1.x and 2.x."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import duckdb
import pyarrow as pa

Cursor = duckdb.DuckDBPyConnection


def first_row(cur: Cursor, sql: str, params: Sequence[object] = ()) -> tuple[Any, ...] | None:
    """The first row of a statement's result, consuming the result (DuckDB 2 refuses further
    work on a connection whose last result was not read to the end)."""
    rows = cur.execute(sql, list(params)).fetchall()
    return rows[0] if rows else None


def fetch_arrow(cur: Cursor, sql: str, params: Sequence[object] = ()) -> pa.Table:
    """The result of a query as an Arrow table (DuckDB 2 renamed ``fetch_arrow_table``)."""
    relation = cur.sql(sql, params=list(params))
    fetch = getattr(relation, "to_arrow_table", None) or relation.fetch_arrow_table
    return fetch()


def fetch_batches(
    cur: Cursor, sql: str, params: Sequence[object], rows: int
) -> pa.RecordBatchReader:
    """The result of a query as a stream of Arrow batches of about ``rows`` rows."""
    relation = cur.sql(sql, params=list(params))
    fetch = getattr(relation, "to_arrow_reader", None) or relation.fetch_record_batch
    return fetch(rows)

"""The DuckDB cursor: results straight from DuckDB's Arrow export, Arrow tables registered."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Sequence
from contextlib import contextmanager

import duckdb
import numpy as np
import pyarrow as pa

from repository.backends.base import Cursor, Row
from repository.backends.dialects import DUCKDB
from repository.backends.duckdb.host import registry


class DuckDBCursor(Cursor):
    """A DuckDB cursor (works on DuckDB 1.x and 2.x).

    Examples
    --------
    >>> cur = DuckDBCursor(duckdb.connect())
    >>> with cur.staged(t=pa.table({"x": [1, 2]})):
    ...     cur.arrow("SELECT max(x) AS m FROM t WHERE x > ?", [0]).to_pylist()
    [{'m': 2}]
    """

    dialect = DUCKDB

    def __init__(self, cur: duckdb.DuckDBPyConnection) -> None:
        self._cur = cur

    @property
    def native(self) -> duckdb.DuckDBPyConnection:
        return self._cur

    def execute(self, sql: str, params: Sequence[object] = ()) -> DuckDBCursor:
        self._cur.execute(sql, list(params) if params else None)
        return self

    def fetchall(self) -> list[Row]:
        return self._cur.fetchall()

    def changed(self, sql: str, params: Sequence[object] = ()) -> int:
        row = self.first(sql, params)  # DuckDB answers a DML statement with its count
        return int(row[0]) if row else 0

    def arrow(
        self, sql: str, params: Sequence[object] = (), schema: pa.Schema | None = None
    ) -> pa.Table:
        relation = self._cur.sql(sql, params=list(params))
        fetch = getattr(relation, "to_arrow_table", None) or relation.fetch_arrow_table
        table: pa.Table = fetch()
        return table if schema is None else table.cast(schema)

    def batches(
        self, sql: str, params: Sequence[object], rows: int, schema: pa.Schema
    ) -> Iterator[pa.RecordBatch]:
        relation = self._cur.sql(sql, params=list(params))
        fetch = getattr(relation, "to_arrow_reader", None) or relation.fetch_record_batch
        for batch in fetch(rows):
            yield batch.cast(schema)

    def numpy(self, sql: str, params: Sequence[object] = ()) -> dict[str, np.ndarray]:
        columns: dict[str, np.ndarray] = self._cur.execute(sql, list(params)).fetchnumpy()  # type: ignore[assignment]
        return columns

    @contextmanager
    def staged(self, **tables: pa.Table) -> Iterator[None]:
        for name, table in tables.items():
            self._cur.register(name, table)
        try:
            yield
        finally:
            for name in tables:
                self._cur.unregister(name)

    def table_names(self) -> list[str]:
        return [
            name
            for (name,) in self._cur.execute(
                "SELECT table_name FROM duckdb_tables() WHERE database_name = current_database() "
                "ORDER BY table_name"
            ).fetchall()
        ]

    @contextmanager
    def atomic(self) -> Iterator[None]:
        self._cur.execute("BEGIN TRANSACTION")
        try:
            yield
            self._cur.execute("COMMIT")
        except BaseException:
            # A failed COMMIT has already ended the transaction.
            with contextlib.suppress(duckdb.Error):
                self._cur.execute("ROLLBACK")
            raise


@contextmanager
def scratch() -> Iterator[DuckDBCursor]:
    """A cursor on the process's in-memory DuckDB instance (no repository attached), to compute
    on Arrow tables with SQL whatever store the repository is in (e.g. to check an import)."""
    cur = registry().cursor()
    try:
        yield DuckDBCursor(cur)
    finally:
        cur.close()

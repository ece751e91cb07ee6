"""The PostgreSQL cursor: ``?`` placeholders, results as Arrow, Arrow tables staged by ``COPY``."""

from __future__ import annotations

import contextlib
import functools
import uuid
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import psycopg
import pyarrow as pa

from repository.backends.base import Cursor, Row
from repository.backends.dialects import POSTGRES
from repository.watchdog import Alarm

TEXT_MAP = pa.map_(pa.string(), pa.string())
# Arrow types of the PostgreSQL types (by OID) the repository's queries return.
_ARROW: dict[int, pa.DataType] = {
    16: pa.bool_(),
    17: pa.binary(),
    18: pa.string(),
    19: pa.string(),
    20: pa.int64(),
    21: pa.int16(),
    23: pa.int32(),
    25: pa.string(),
    114: TEXT_MAP,
    700: pa.float32(),
    701: pa.float64(),
    1042: pa.string(),
    1043: pa.string(),
    1114: pa.timestamp("us"),
    1184: pa.timestamp("us", tz="UTC"),
    3802: TEXT_MAP,
}


def _pg_type(arrow: pa.DataType) -> str:
    """The PostgreSQL type a staged Arrow column is copied into."""
    if pa.types.is_string(arrow) or pa.types.is_large_string(arrow):
        return "text"
    if pa.types.is_binary(arrow) or pa.types.is_large_binary(arrow):
        return "bytea"
    if pa.types.is_timestamp(arrow):
        return "timestamptz" if arrow.tz else "timestamp"
    named = {pa.int64(): "int8", pa.int32(): "int4", pa.float64(): "float8", pa.bool_(): "bool"}
    if arrow not in named:
        raise TypeError(f"cannot stage an Arrow column of type {arrow} in PostgreSQL")
    return named[arrow]


@functools.lru_cache(maxsize=1024)
def pyformat(sql: str) -> str:
    """``sql`` with ``?`` placeholders as psycopg's ``%s`` (and a literal ``%`` as ``%%``);
    quoted text, quoted names and comments are left alone.

    >>> pyformat("SELECT * FROM t WHERE a = ? AND b LIKE 'x%?' -- why?")
    "SELECT * FROM t WHERE a = %s AND b LIKE 'x%%?' -- why?"
    """
    out: list[str] = []
    i, n = 0, len(sql)
    while i < n:
        c = sql[i]
        if c in "'\"":
            j = i + 1
            while j < n and not (sql[j] == c and sql[j + 1 : j + 2] != c):
                j += 2 if sql[j] == c else 1
            end = j + 1
        elif sql.startswith("--", i):
            end = n if (j := sql.find("\n", i)) < 0 else j
        elif sql.startswith("/*", i):
            end = n if (j := sql.find("*/", i + 2)) < 0 else j + 2
        else:
            out.append("%s" if c == "?" else "%%" if c == "%" else c)
            i += 1
            continue
        out.append(sql[i:end].replace("%", "%%"))
        i = end
    return "".join(out)


class PostgresCursor(Cursor):
    """A cursor on one pooled PostgreSQL connection (in autocommit mode: ``reading()`` and
    ``atomic()`` open the transactions).

    Examples
    --------
    >>> PostgresCursor.dialect.name
    'postgresql'
    """

    dialect = POSTGRES

    def __init__(
        self, connection: psycopg.Connection[Any], begin_write: str, alarm: Alarm | None = None
    ) -> None:
        self._connection = connection
        self._cur = connection.cursor()
        self._begin_write = begin_write
        # The operation's client-side deadline (``watchdog``): renewed whenever the server
        # answers, so that it bounds a silent wait, not a long operation.
        self._alarm = alarm or Alarm(-1, None)

    @property
    def native(self) -> PostgresCursor:
        # Users get this cursor itself: ``?`` placeholders on every backend.
        return self

    @property
    def description(self) -> Any:
        """The columns of the last result (psycopg's ``Column`` objects)."""
        return self._cur.description

    def execute(self, sql: str, params: Sequence[object] = ()) -> PostgresCursor:
        self._alarm.renew()
        self._cur.execute(*_query(sql, params))
        return self

    def fetchall(self) -> list[Row]:
        return self._cur.fetchall()

    def fetchone(self) -> Row | None:
        """The next row of the last result, or None."""
        return self._cur.fetchone()

    def changed(self, sql: str, params: Sequence[object] = ()) -> int:
        return max(self.execute(sql, params)._cur.rowcount, 0)

    def arrow(
        self, sql: str, params: Sequence[object] = (), schema: pa.Schema | None = None
    ) -> pa.Table:
        # Binary results: numbers, times and payloads arrive without text parsing.
        self._alarm.renew()
        rows = self._cur.execute(*_query(sql, params), binary=True).fetchall()
        return _table(self._cur.description, rows, schema)

    def batches(
        self, sql: str, params: Sequence[object], rows: int, schema: pa.Schema
    ) -> Iterator[pa.RecordBatch]:
        # A server-side cursor: the result is fetched ``rows`` at a time, never whole.
        with self._connection.cursor(name=f"batches_{uuid.uuid4().hex}") as named:
            self._alarm.renew()
            named.execute(*_query(sql, params), binary=True)
            while chunk := named.fetchmany(rows):
                self._alarm.renew()  # the consumer's time between batches is not a wait
                yield from _table(named.description, chunk, schema).to_batches()
                self._alarm.renew()

    @contextmanager
    def staged(self, **tables: pa.Table) -> Iterator[None]:
        # Temporary tables of this transaction, filled by binary COPY (exact for every value).
        for name, table in tables.items():
            columns = ", ".join(f'"{f.name}" {_pg_type(f.type)}' for f in table.schema)
            self.execute(f"CREATE TEMP TABLE {name} ({columns}) ON COMMIT DROP")
            with self._cur.copy(f"COPY {name} FROM STDIN (FORMAT BINARY)".encode()) as copy:
                copy.set_types([_pg_type(f.type) for f in table.schema])
                rows = zip(*(column.to_pylist() for column in table.columns), strict=True)
                for count, row in enumerate(rows):
                    if count % 4096 == 0:
                        self._alarm.renew()
                    copy.write_row(row)
            # Autovacuum never sees temporary tables: without statistics the planner guesses
            # their size and distinct values, and joins a 10k-point run as if it had a few rows.
            self.execute(f"ANALYZE {name}")
        yield
        for name in tables:
            self.execute(f"DROP TABLE {name}")

    def table_names(self) -> list[str]:
        return [
            name
            for (name,) in self.execute(
                "SELECT table_name FROM information_schema.tables "
                "WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' "
                "ORDER BY table_name"
            ).fetchall()
        ]

    @contextmanager
    def reading(self) -> Iterator[None]:
        """A read-only transaction on one snapshot: several queries see one state, and never
        wait for writers (nor writers for them)."""
        with self._transaction("BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY"):
            yield

    @contextmanager
    def atomic(self) -> Iterator[None]:
        with self._transaction(self._begin_write):
            yield

    @contextmanager
    def _transaction(self, begin: str) -> Iterator[None]:
        self._alarm.renew()
        self._cur.execute(begin.encode())
        try:
            yield
            self._alarm.renew()
            self._cur.execute(b"COMMIT")
        except BaseException:
            # A failed COMMIT has already ended the transaction; a lost connection cannot.
            with contextlib.suppress(psycopg.Error):
                self._cur.execute(b"ROLLBACK")
            raise


def _query(sql: str, params: Sequence[object]) -> tuple[str, list[object] | None]:
    """A statement for psycopg: with parameters, placeholders as ``%s``; without, the SQL as it
    is (psycopg then reads no placeholders, and several statements may run at once)."""
    return (pyformat(sql), list(params)) if params else (sql, None)


def _table(description: Any, rows: list[Row], schema: pa.Schema | None) -> pa.Table:
    names = [column.name for column in description]
    columns = list(zip(*rows, strict=True)) if rows else [()] * len(names)
    if schema is None:
        types = [_ARROW.get(column.type_code) for column in description]
    else:
        types = list(schema.types)
    arrays = [pa.array(_values(c, t), t) for c, t in zip(columns, types, strict=True)]
    if schema is None:
        return pa.Table.from_arrays(arrays, names=names)
    return pa.Table.from_arrays(arrays, schema=schema)


def _values(column: Sequence[Any], arrow: pa.DataType | None) -> Sequence[Any]:
    if arrow is not None and pa.types.is_map(arrow):
        # jsonb keeps keys shortest first; a map lists them sorted, as DuckDB's do.
        return [None if m is None else sorted(m.items()) for m in column]
    return column

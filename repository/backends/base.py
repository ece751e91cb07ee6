"""What the repository asks of a store: a ``Backend`` leases ``Cursor``-s to operations.

The repository's modules (writer, queries, history, retention...) hold no connection of their
own: each operation asks the backend for a cursor, reading (``cursor()``) or inside one write
transaction (``transaction()``), and writes its SQL with ``?`` placeholders and the helpers of
its ``Dialect`` (``cur.dialect``). A backend decides how connections are opened, locked and
pooled; a cursor how results become Arrow tables and how Arrow tables are staged for SQL. A third
store implements these two classes and a ``Dialect`` (see ``backends/__init__.py``).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager
from typing import Any, Protocol

import numpy as np
import pyarrow as pa

from repository.backends.dialects import Dialect

Row = tuple[Any, ...]


class SqlCursor(Protocol):
    """What ``MetricsRepository.sql()`` yields on every backend (DB-API style, ``?`` params)."""

    def execute(self, sql: str, parameters: Any = ...) -> Any: ...

    def fetchall(self) -> list[Any]: ...

    def fetchone(self) -> Any: ...


class Cursor(ABC):
    """A cursor of one operation: SQL with ``?`` placeholders, results as rows or Arrow.

    Subclasses wrap a driver's cursor; ``native`` is that cursor.
    """

    dialect: Dialect

    @property
    @abstractmethod
    def native(self) -> SqlCursor:
        """The driver's own cursor (what ``MetricsRepository.sql()`` hands to users)."""

    @abstractmethod
    def execute(self, sql: str, params: Sequence[object] = ()) -> Cursor:
        """Run one statement (several, without parameters); returns this cursor."""

    @abstractmethod
    def fetchall(self) -> list[Row]:
        """Every row of the last statement's result."""

    @abstractmethod
    def changed(self, sql: str, params: Sequence[object] = ()) -> int:
        """Run an ``INSERT``/``UPDATE``/``DELETE``; returns the number of rows it changed."""

    @abstractmethod
    def arrow(
        self, sql: str, params: Sequence[object] = (), schema: pa.Schema | None = None
    ) -> pa.Table:
        """The result of a query as an Arrow table (cast to ``schema`` when given)."""

    @abstractmethod
    def batches(
        self, sql: str, params: Sequence[object], rows: int, schema: pa.Schema
    ) -> Iterator[pa.RecordBatch]:
        """The result of a query as batches of about ``rows`` rows, cast to ``schema``."""

    @abstractmethod
    def staged(self, **tables: pa.Table) -> AbstractContextManager[None]:
        """Make Arrow tables readable by SQL under these names for the duration of the block."""

    @abstractmethod
    def table_names(self) -> list[str]:
        """The tables of the repository's database (or schema), sorted."""

    @abstractmethod
    def atomic(self) -> AbstractContextManager[None]:
        """One write transaction (used on open, to create or migrate the schema), holding the
        backend's write lock: committed on success, rolled back on error."""

    def first(self, sql: str, params: Sequence[object] = ()) -> Row | None:
        """The first row of a query's result (the rest is read and dropped)."""
        rows = self.execute(sql, params).fetchall()
        return rows[0] if rows else None

    def numpy(self, sql: str, params: Sequence[object] = ()) -> dict[str, np.ndarray]:
        """The result of a query as one numpy array per column."""
        table = self.arrow(sql, params)
        return {
            name: column.to_numpy(zero_copy_only=False)
            for name, column in zip(table.column_names, table.columns, strict=True)
        }


OnOpen = Callable[[Cursor, bool], bool]
"""Checks (and, if writable, migrates) a freshly opened store; False: it must be writable."""


class Backend(ABC):
    """A store the repository lives in: leases cursors to operations.

    ``target`` names the store for messages: a file path, or a URL without its password.
    """

    dialect: Dialect
    target: str
    in_memory: bool = False

    @abstractmethod
    def cursor(self) -> AbstractContextManager[Cursor]:
        """A cursor for reading: sees one consistent state of the repository."""

    @abstractmethod
    def transaction(self) -> AbstractContextManager[Cursor]:
        """A cursor inside one write transaction: committed on success, rolled back on error."""

    @abstractmethod
    def session(self) -> AbstractContextManager[None]:
        """Keep the store open across several operations (where that saves work)."""

    @abstractmethod
    def sql_cursor(self) -> AbstractContextManager[SqlCursor]:
        """A reading cursor for users' ad-hoc SQL over the documented views."""

    @abstractmethod
    def compact(self, recluster: bool) -> None:
        """Give deleted space back and (``recluster``) store points sorted by series."""

    @abstractmethod
    def close(self) -> None:
        """Release what the backend holds (connections, an in-memory database)."""

"""The PostgreSQL backend: many writers on many hosts, readers that never wait.

* Connections come from a ``psycopg_pool`` pool (per repository object and process; a forked
  child opens its own). They run in autocommit mode, and every operation opens its transaction
  explicitly.
* A read is one ``REPEATABLE READ, READ ONLY`` transaction: all its queries (the points, then
  their groups' and runs' labels) see one snapshot. Under PostgreSQL's MVCC it never waits for
  a writer, and no writer waits for it.
* A write (a save, a retention delete, an annotation...) is one ``READ COMMITTED`` transaction
  that first takes the repository's write lock, a transaction-scoped advisory lock keyed by the
  schema: writes of all processes on all hosts take turns, as they do on a DuckDB file, so the
  same set-based statements that find or create runs, groups and series are race-free. The lock
  goes with the transaction: a writer killed mid-save (even by ``SIGKILL``, or with its host)
  leaves nothing behind once the server notices the closed connection, and nothing of its run
  either: the transaction rolls back. Waiting longer than ``lock_timeout`` raises
  ``RepositoryLockedError``.
* Every operation has two deadlines, given in the URL as seconds (``?statement_timeout=60&
  client_timeout=90``): the server cancels a statement running longer than ``statement_timeout``
  (default 120 s; a write's statements get ``lock_timeout`` on top), and the client gives up on
  a server that does not answer for ``client_timeout`` (default ``statement_timeout +
  lock_timeout + 30`` s; ``watchdog``), as a frozen host or a network partition would not.
  Both raise ``RepositoryUnavailableError``; ``0`` turns one off. ``compact()`` has neither.
* Opening checks the URL, the credentials and the schema version on a direct connection, so a
  bad URL, a refused password, an unreachable server or a newer schema fail at once with their
  own error (never with the password in it), not as a pool timeout later.
"""

from __future__ import annotations

import os
import threading
import weakref
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any
from urllib.parse import parse_qsl, urlsplit

import psycopg
from psycopg.types.string import StrDumper
from psycopg_pool import ConnectionPool, PoolTimeout

from repository.backends.base import Backend, OnOpen
from repository.backends.dialects import POSTGRES
from repository.backends.postgres.cursor import PostgresCursor
from repository.backends.postgres.failures import open_failure, operation_failure
from repository.backends.postgres.url import parse
from repository.errors import (
    MigrationError,
    NotARepositoryError,
    RepositoryOpenError,
    RepositoryUnavailableError,
    SchemaVersionError,
)
from repository.watchdog import WATCHDOG, Alarm

LOCK_CLASS = 1634627437  # "anom": the advisory lock space of metrics repositories
WRITE_LOCK = f"pg_advisory_xact_lock({LOCK_CLASS}, hashtext(coalesce(current_schema(), '')))"
"""SQL taking the write lock of the repository in the current schema until the transaction ends."""
APPLICATION = "anomaly-repository"
POOL_SIZE = 8
STATEMENT_TIMEOUT = 120.0
"""Seconds after which the server cancels a statement (``statement_timeout`` in the URL)."""


class PostgresBackend(Backend):
    """A metrics repository in a PostgreSQL database (its tables in the current schema).

    Examples
    --------
    >>> PostgresBackend("mysql://db/metrics", 1.0, lambda cur, writable: True)
    Traceback (most recent call last):
    ...
    repository.errors.RepositoryURLError: mysql://db/metrics is not a usable PostgreSQL URL: ...
    """

    dialect = POSTGRES

    def __init__(self, url: str, lock_timeout: float, on_open: OnOpen) -> None:
        if lock_timeout < 0:
            raise ValueError(f"lock_timeout must be >= 0 seconds, got {lock_timeout!r}")
        self.location = parse(url)
        self.target = self.location.display
        self.lock_timeout = lock_timeout
        given_timeouts = self.location.timeouts
        self.statement_timeout = given_timeouts.get("statement_timeout", STATEMENT_TIMEOUT)
        self.client_timeout: float | None = given_timeouts.get(
            "client_timeout", (self.statement_timeout or STATEMENT_TIMEOUT) + lock_timeout + 30
        )
        if self.client_timeout == 0:
            self.client_timeout = None  # no deadline
        # lock_timeout 0 means "wait forever" to PostgreSQL: 1 ms is the shortest wait.
        millis = max(1, round(lock_timeout * 1000))
        # A write's statements may also wait for the lock: lock_timeout on top of the timeout.
        limit = round((self.statement_timeout + lock_timeout) * 1000)
        limit = limit if self.statement_timeout else 0
        self._begin_write = (
            f"BEGIN; SET LOCAL lock_timeout = '{millis}ms'; "
            f"SET LOCAL statement_timeout = '{limit}ms'; SELECT {WRITE_LOCK}"
        )
        given = {name for name, _ in parse_qsl(urlsplit(self.location.url).query)}
        self._kwargs: dict[str, Any] = {"autocommit": True}
        for name, value, variable in (
            ("application_name", APPLICATION, "PGAPPNAME"),
            ("connect_timeout", 10, "PGCONNECT_TIMEOUT"),
        ):
            if name not in given and variable not in os.environ:  # the user's choice wins
                self._kwargs[name] = value
        self._pool = _Pool(self._make_pool)
        self._finalizer = weakref.finalize(self, self._pool.close)
        self._open(on_open)

    def _open(self, on_open: OnOpen) -> None:
        try:
            connection = psycopg.connect(self.location.url, **self._kwargs)
        except psycopg.Error as exc:
            raise open_failure(self.location, exc) from None
        try:
            with (
                self._failures() as alarms,
                WATCHDOG.armed(connection.fileno(), self.client_timeout) as alarm,
            ):
                alarms.append(alarm)
                self._configure(connection)
                cur = PostgresCursor(connection, self._begin_write, alarm)
                schema = cur.first("SELECT current_schema()")
                if schema is None or schema[0] is None:
                    raise RepositoryOpenError(
                        f"{self.target}: the search_path names no existing schema to keep the "
                        "repository in; create it (CREATE SCHEMA ...) or fix the URL's options"
                    )
                if not on_open(cur, False):  # an empty or older schema: create or migrate it
                    on_open(cur, True)
        except (SchemaVersionError, NotARepositoryError, MigrationError) as exc:
            raise type(exc)(f"{self.target}: {exc}") from exc
        finally:
            connection.close()

    def _make_pool(self) -> ConnectionPool:
        return ConnectionPool(
            self.location.url,
            kwargs=self._kwargs,
            min_size=1,
            max_size=POOL_SIZE,
            open=True,
            configure=self._configure,
            name=APPLICATION,
            timeout=max(self.lock_timeout, 1.0),
            num_workers=2,
        )

    def _configure(self, connection: psycopg.Connection[Any]) -> None:
        # Text parameters as ``text`` (not "unknown"), so ``unnest(?)`` of a list of str has a
        # type.
        connection.adapters.register_dumper(str, StrDumper)
        millis = round(self.statement_timeout * 1000)
        connection.execute(f"SET TIME ZONE 'UTC'; SET statement_timeout = '{millis}ms'")

    @contextmanager
    def _failures(self) -> Iterator[list[Alarm]]:
        """Driver errors as repository errors; the block adds the alarm of its deadline (if it
        fired, the server did not answer in time, whatever psycopg says)."""
        alarms: list[Alarm] = []
        try:
            yield alarms
        except PoolTimeout:
            raise RepositoryUnavailableError(
                f"no connection to the PostgreSQL server of {self.target} within "
                f"{max(self.lock_timeout, 1.0):g} s (lock_timeout): the server is unreachable, "
                f"or this process's {POOL_SIZE} connections stayed busy"
            ) from None
        except psycopg.Error as exc:
            if any(alarm.fired for alarm in alarms):
                raise RepositoryUnavailableError(
                    f"no answer from the PostgreSQL server of {self.target} for "
                    f"{self.client_timeout:g} s (client_timeout): the server or the network is "
                    "stuck (a frozen or overloaded host, a network partition). The connection "
                    "was closed and its transaction rolled back (unless the server had already "
                    "received its COMMIT: saving the same key again replaces the run either "
                    "way); retry later, or give a larger client_timeout in the URL"
                ) from None
            mapped = operation_failure(
                self.location, exc, self.lock_timeout, self.statement_timeout
            )
            if mapped is None:
                raise
            raise mapped from None

    @contextmanager
    def _leased(self, deadline: bool = True) -> Iterator[PostgresCursor]:
        seconds = self.client_timeout if deadline else None
        with (
            self._failures() as alarms,
            self._pool.get().connection() as connection,
            WATCHDOG.armed(connection.fileno(), seconds) as alarm,
        ):
            alarms.append(alarm)
            yield PostgresCursor(connection, self._begin_write, alarm)

    @contextmanager
    def cursor(self) -> Iterator[PostgresCursor]:
        """A cursor inside a read-only transaction on one snapshot."""
        with self._leased() as cur, cur.reading():
            yield cur

    @contextmanager
    def transaction(self) -> Iterator[PostgresCursor]:
        """A cursor inside one write transaction holding the repository's write lock."""
        with self._leased() as cur, cur.atomic():
            yield cur

    @contextmanager
    def session(self) -> Iterator[None]:
        """Nothing to keep open: the pool keeps connections between operations anyway."""
        yield

    @contextmanager
    def sql_cursor(self) -> Iterator[PostgresCursor]:
        """A reading cursor taking ``?`` placeholders (see ``cursor``)."""
        with self.cursor() as cur:
            yield cur

    def compact(self, recluster: bool) -> None:
        """Rewrite the tables without dead rows (``VACUUM FULL``), the points sorted by series
        (``CLUSTER``) if ``recluster``. Each table is locked while it is rewritten: reads and
        writes of it wait (writes at most ``lock_timeout``)."""
        # Rewriting a large table takes as long as it takes: no deadline, no statement timeout.
        with self._leased(deadline=False) as cur:  # autocommit: VACUUM and CLUSTER run outside
            tables = cur.table_names()  # transactions
            cur.execute("SET statement_timeout = 0")
            try:
                if recluster:
                    cur.execute("CLUSTER points USING points_by_series")
                    tables.remove("points")
                cur.execute(f"VACUUM (FULL, ANALYZE) {', '.join(tables)}")
                if recluster:
                    cur.execute("ANALYZE points")
            finally:
                cur.execute(f"SET statement_timeout = '{round(self.statement_timeout * 1000)}ms'")

    def close(self) -> None:
        """Close this process's pooled connections (a later operation opens new ones)."""
        self._pool.close()


class _Pool:
    """The backend's connection pool in this process, opened on first use (a forked child must
    not share its parent's connections: it opens its own)."""

    def __init__(self, make: Callable[[], ConnectionPool]) -> None:
        self._make = make
        self._lock = threading.Lock()
        self._pool: ConnectionPool | None = None
        self._pid = 0

    def get(self) -> ConnectionPool:
        with self._lock:
            if self._pool is None or self._pid != os.getpid():
                self._pool, self._pid = self._make(), os.getpid()
            return self._pool

    def close(self) -> None:
        with self._lock:
            pool, self._pool = self._pool, None
            if pool is not None and self._pid == os.getpid():
                pool.close()

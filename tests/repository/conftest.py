"""Fixtures of the repository tests: real DuckDB files on ``tmp_path``, and a real PostgreSQL
server per test process (a throwaway cluster, ``postgres`` in ``tests/conftest.py``) with a
schema of its own per test.

``repo`` and ``repo_location`` are parametrised over both backends: every test using them is the
contract both must meet. ``repo_path`` is a DuckDB file, for the tests of the file backend.
"""

from __future__ import annotations

import fcntl
import os
import random
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import duckdb
import psycopg
import pytest

from repository import MetricRecord, MetricsRepository, ResultKey
from tests.conftest import BACKENDS as BACKENDS
from tests.conftest import postgres_location as postgres_location

ROOT = Path(__file__).resolve().parents[2]

DAY0 = datetime(2024, 5, 1, tzinfo=UTC)


def day(n: int) -> datetime:
    """Midnight UTC of day ``n`` after 2024-05-01."""
    return DAY0 + timedelta(days=n)


def key(n: int, **tags: str) -> ResultKey:
    """The run of day ``n`` with ``tags`` (default: dataset=orders)."""
    return ResultKey(day(n), tags or {"dataset": "orders"})


def size(value: float, **group: str | None) -> MetricRecord:
    """A ``Size(*)`` record, optionally for a group."""
    return MetricRecord("Dataset", "*", "Size", "Size(*)", value, group)


def mean(
    column: str, value: float | None, error: str | None = None, **group: str | None
) -> MetricRecord:
    """A ``Mean(column)`` record (failed when ``error`` is given)."""
    return MetricRecord("Column", column, "Mean", f"Mean({column})", value, group, error)


def writer_holds_lock(path: Path) -> bool:
    """Whether a process holds the repository's lock exclusively (see ``repository.locking``).

    Call it only while this process has the repository released: closing the probe descriptor
    drops every record lock this process holds on the lock file.
    """
    fd = os.open(f"{path}.lock", os.O_RDWR | os.O_CREAT)
    try:
        fcntl.lockf(fd, fcntl.LOCK_SH | fcntl.LOCK_NB, 1, 1)  # the data lock
        return False
    except OSError:
        return True
    finally:
        os.close(fd)


UNDO_V7 = ("DROP TABLE alert_deliveries", "DROP SEQUENCE delivery_id_seq")
"""SQL turning a version-7 repository's tables back into version 6's (with its version row)."""
UNDO_V6 = (
    *UNDO_V7,
    *(f"ALTER TABLE scan_log DROP COLUMN {c}" for c in ("host", "pid", "process_start")),
)
"""SQL turning a current repository's tables back into version 5's (with its version rows)."""


def raw_sql(location: str | Path, *statements: str) -> list[tuple[object, ...]]:
    """Run statements on a repository's store directly, without the repository (to set up
    states it would never write); returns the last statement's rows."""
    if isinstance(location, Path):
        con = duckdb.connect(str(location))
        try:
            for sql in statements:
                rows = con.execute(sql).fetchall()
        finally:
            con.close()
        return rows
    with psycopg.connect(location, autocommit=True) as connection:
        for sql in statements:
            cursor = connection.execute(sql.encode())
        return cursor.fetchall() if cursor.description else []


def view_names(location: str | Path) -> set[str]:
    """The views of a repository's database (or schema)."""
    if isinstance(location, Path):
        sql = "SELECT view_name FROM duckdb_views() WHERE NOT internal"
    else:
        sql = (
            "SELECT table_name FROM information_schema.views WHERE table_schema = current_schema()"
        )
    return {name for (name,) in raw_sql(location, sql)}  # type: ignore[misc]


def map_value(repo: MetricsRepository, column: str, key: str) -> str:
    """SQL for the value of ``key`` in a text-map column of the views (DuckDB MAP or jsonb)."""
    quoted = key.replace("'", "''")
    return repo._connector.dialect.map_value(column, f"'{quoted}'")


def kill_inside_the_write(writing: Callable[[], bool], *args: str) -> str:
    """Run ``_workers`` with ``args``; once it says ``saving`` and ``writing()`` (it holds the
    repository's write lock), SIGKILL it a moment later; return its output."""
    process = subprocess.Popen(
        [sys.executable, "-m", "tests.repository._workers", *args],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert process.stdout is not None
    try:
        assert process.stdout.readline().strip() == "saving"
        # The records are staged in Python first; the write starts when the lock is taken.
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and not writing():
            time.sleep(0.002)
        time.sleep(random.uniform(0.0, 0.1))
        process.send_signal(signal.SIGKILL)
        output = process.stdout.read()
    finally:
        process.kill()
        process.wait()
    assert process.returncode == -signal.SIGKILL
    return output


@pytest.fixture
def repo_path(tmp_path: Path) -> Path:
    """A DuckDB repository file (for the tests of the file backend)."""
    return tmp_path / "metrics.duckdb"


@pytest.fixture
def repo(repo_location: str | Path) -> Iterator[MetricsRepository]:
    repository = MetricsRepository(repo_location)
    yield repository
    repository.close()

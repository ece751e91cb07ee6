"""Fixtures of the repository tests: real DuckDB files on ``tmp_path``."""

from __future__ import annotations

import fcntl
import os
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from repository import MetricRecord, MetricsRepository, ResultKey

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


@pytest.fixture
def repo_path(tmp_path: Path) -> Path:
    return tmp_path / "metrics.duckdb"


@pytest.fixture
def repo(repo_path: Path) -> Iterator[MetricsRepository]:
    repository = MetricsRepository(repo_path)
    yield repository
    repository.close()

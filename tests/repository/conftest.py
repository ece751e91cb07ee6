"""Fixtures of the repository tests: real DuckDB files on ``tmp_path``."""

from __future__ import annotations

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


@pytest.fixture
def repo_path(tmp_path: Path) -> Path:
    return tmp_path / "metrics.duckdb"


@pytest.fixture
def repo(repo_path: Path) -> Iterator[MetricsRepository]:
    repository = MetricsRepository(repo_path)
    yield repository
    repository.close()

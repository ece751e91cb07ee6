"""Session-scoped fixtures shared by every test package."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from pyspark.sql import SparkSession


@pytest.fixture(scope="session")
def spark() -> Iterator[SparkSession]:
    """One local Spark for the whole session; only tests that ask for it start a JVM."""
    from anomaly.spark import build_session

    session = build_session(master="local[2]", conf={"spark.sql.shuffle.partitions": "2"})
    yield session
    session.stop()

"""A small frame with one column shaped to trigger each suggestion rule and one shaped not to."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import pytest

from anomaly.suggestion import ColumnProfile, profile_columns

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

ROWS = 400


def shaped_rows(n: int = ROWS, seed: int = 3) -> list[dict[str, object]]:
    """Rows whose columns are named after what they should (not) trigger."""
    rng = np.random.default_rng(seed)
    rows: list[dict[str, object]] = []
    for i in range(n):
        rows.append(
            {
                "id": str(1000 + i),  # unique, complete, integral text, non-negative
                "statuses_count": str(5000 + 3 * i),  # unique too, but the name says "count"
                "dup": str(i % 50),  # 50 values, each 8 times
                "complete_text": f"a{i}",
                "partial": None if i % 10 < 3 else f"p{i}",  # 70% complete
                "mixed": "abc" if i % 7 == 0 else str(i),  # integers and words: String
                "signed": str(i - 200),  # integral text with negatives
                "ratio": f"{rng.uniform(0, 1):.4f}",  # fractional in [0, 1]
                "price": f"{rng.uniform(0.5, 99.5):.2f}",  # fractional beyond 1
                "category": ["red", "green", "blue", "black"][i % 4],  # 4 values x 100
                "many_rare": f"r{i % 60}" if i < 60 else "common",  # 61 values, 60 seen once
                "count": int(rng.integers(0, 9)),  # typed int: schema already says integral
                "flag": bool(i % 3),  # typed boolean
            }
        )
    return rows


SCHEMA = (
    "id string, statuses_count string, dup string, complete_text string, partial string, "
    "mixed string, signed string, ratio string, price string, category string, "
    "many_rare string, count int, flag boolean"
)


@pytest.fixture(scope="session")
def shaped(spark: SparkSession) -> DataFrame:
    """`shaped_rows` as a cached DataFrame."""
    columns = [part.split()[0] for part in SCHEMA.split(", ")]
    data = [tuple(r[c] for c in columns) for r in shaped_rows()]
    frame = spark.createDataFrame(data, SCHEMA).cache()
    frame.count()
    return frame


@pytest.fixture(scope="session")
def profiles(shaped: DataFrame) -> dict[str, ColumnProfile]:
    """The profiles of every column of `shaped` (three passes, computed once)."""
    return profile_columns(shaped)

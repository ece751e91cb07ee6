"""A generated users table, all text, shaped like the twitter users of the PVLDB 2018 paper.

It has what makes suggestion hard: keys, missing values, categoricals with rare (and badly
normalised) values, a numeric column that looks unique in a 10% sample but is not, negative
numbers, a ratio and free text. Every column is a string, as when a CSV is read without a schema.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

LANGUAGES = {
    "en": 0.52, "es": 0.12, "pt": 0.08, "ja": 0.07, "ar": 0.05, "fr": 0.04, "de": 0.03,
    "ru": 0.02, "it": 0.02, "ko": 0.02, "id": 0.0188, "en-gb": 0.001, "en-GB": 0.0008,
    **dict.fromkeys(["tr", "hu", "fi", "el", "cs", "uk", "he", "da", "sv", "pl"], 0.00002),
}  # fmt: skip
FIRST = ["ana", "li", "sam", "kim", "joe", "eva", "ali", "max", "zoe", "ian", "noa", "raj", "mia"]
FIRST += ["leo", "ivy", "tom", "una", "kai", "ema", "jan", "ola", "ben", "ada", "gus", "lia", "rui"]
LAST = ["silva", "wang", "smith", "kato", "ruiz", "novak", "khan", "berg", "ito", "costa", "diaz"]
LAST += ["meyer", "rossi", "chen", "okafor", "larsen", "singh", "dubois", "moreau", "nagy", "popa"]
OFFSETS = [h * 3600 for h in range(-11, 13)] + [19800, 20700, 34200, -12600]


def users(rows: int = 50_000, seed: int = 7) -> pd.DataFrame:
    """The users table as text columns (None for missing values), deterministic for a seed.

    >>> frame = users(1000)
    >>> frame["id"].is_unique, frame["statuses_count"].is_unique
    (True, False)
    >>> float(frame["location"].notna().mean())
    0.27
    """
    rng = np.random.default_rng(seed)
    ids = rng.permutation(rows) * 7 + 10_000_000
    p = np.array(list(LANGUAGES.values()))
    names = np.char.add(np.char.add(rng.choice(FIRST, rows), " "), rng.choice(LAST, rows))

    def text(values: np.ndarray, present: float = 1.0) -> list[str | None]:
        keep = rng.random(len(values)) < present
        return [str(v) if k else None for v, k in zip(values, keep, strict=True)]

    return pd.DataFrame(
        {
            "id": text(ids),
            "screen_name": [f"user_{i:x}" for i in ids],
            "name": text(names),
            "lang": text(rng.choice(list(LANGUAGES), rows, p=p / p.sum())),
            "location": text(
                rng.choice(["Lisbon", "Osaka", "Austin", "Lagos", "Lima"], rows), 0.28
            ),
            "followers_count": text(np.floor(rng.lognormal(4, 2, rows)).astype(np.int64)),
            "statuses_count": text(rng.integers(0, 100_000, rows)),
            "utc_offset": text(rng.choice(OFFSETS, rows), 0.7),
            "verified": text(np.where(rng.random(rows) < 0.02, "true", "false")),
            "geo_enabled": text(np.where(rng.random(rows) < 0.4, "true", "false")),
            "engagement": text(np.round(rng.beta(2, 8, rows), 4)),
            "created_at": text(np.datetime64("2008-01-01") + rng.integers(0, 4000, rows)),
            "description": text(rng.choice(["love cats", "data nerd", "news", "music"], rows), 0.8),
        }
    )


def users_frame(spark: SparkSession, rows: int = 50_000, seed: int = 7) -> DataFrame:
    """`users` as a Spark DataFrame with every column a string."""
    frame = users(rows, seed)
    schema = ", ".join(f"`{c}` string" for c in frame.columns)
    return spark.createDataFrame(frame, schema=schema)

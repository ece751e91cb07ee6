"""Generated demo data: daily events per country with weekly seasonality and injected incidents."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, timedelta
from pathlib import Path

import numpy as np
import pandas as pd

COUNTRIES = ("DE", "FR", "US", "BR", "JP")


START = date(2026, 1, 1)
DESCRIPTIONS = {
    "drop": "partial load: a quarter of the rows",
    "nulls": "40% of prices missing",
    "spike": "prices x10 (wrong currency unit)",
}


@dataclass(frozen=True)
class Incident:
    """An injected data problem: on `day`, in `country`, of `kind`.

    >>> incidents(START, 90)[-1]
    Incident(day=datetime.date(2026, 3, 31), country='JP', kind='spike')
    """

    day: date
    country: str
    kind: str  # "drop" (partial load), "nulls" (null spike in price), "spike" (price x10)

    @property
    def description(self) -> str:
        """What was broken, in words."""
        return DESCRIPTIONS[self.kind]


def incidents(start: date, days: int) -> list[Incident]:
    """The incidents the demo injects: two in the history (after three weeks of normal data,
    so backfill finds them) and one on the last day (found by the day's scan)."""
    return [
        Incident(start + timedelta(days=days - 20), "FR", "drop"),
        Incident(start + timedelta(days=days - 12), "US", "nulls"),
        Incident(start + timedelta(days=days - 1), "JP", "spike"),
    ]


def events(
    days: int = 90, start: date = START, rows_per_day: int = 400, seed: int = 7
) -> pd.DataFrame:
    """Events with columns day, country, user_id, price, status (pandas, deterministic).

    Volume follows a weekly cycle (weekends lower); prices are log-normal per country.
    """
    rng = np.random.default_rng(seed)
    weights = np.array([0.3, 0.15, 0.35, 0.12, 0.08])
    base_price = dict(zip(COUNTRIES, [40.0, 35.0, 55.0, 20.0, 60.0], strict=True))
    broken = {(i.day, i.country): i.kind for i in incidents(start, days)}
    frames = []
    for offset in range(days):
        day = start + timedelta(days=offset)
        weekly = 0.6 if day.weekday() >= 5 else 1.0
        for country, weight in zip(COUNTRIES, weights, strict=True):
            n = int(rng.poisson(rows_per_day * weight * weekly))
            kind = broken.get((day, country))
            if kind == "drop":
                n //= 4
            price = rng.lognormal(np.log(base_price[country]), 0.25, n)
            null_rate = 0.4 if kind == "nulls" else 0.01
            price = np.where(rng.random(n) < null_rate, np.nan, price)
            if kind == "spike":
                price = price * 10
            frames.append(
                pd.DataFrame(
                    {
                        "day": day,
                        "country": country,
                        "user_id": rng.integers(0, 50_000, n),
                        "price": price,
                        "status": rng.choice(["ok", "ok", "ok", "refund"], n),
                    }
                )
            )
    return pd.concat(frames, ignore_index=True)


def write_events(path: Path, days: int = 90) -> int:
    """Write `events` to a Parquet file (missing prices as nulls); returns the row count."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    table = pa.Table.from_pandas(events(days=days), preserve_index=False)  # NaN -> null
    path.parent.mkdir(parents=True, exist_ok=True)
    pq.write_table(table, path)
    return table.num_rows

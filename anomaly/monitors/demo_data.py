"""The monitors demo's data: 60 days of a 30-column orders table, with eight injected problems.

The table is generated whole (deterministic), then shown as it stood on each day: the rows
that had arrived by then, with that day's schema (a column dropped, one retyped and one added
late in the period, as ``ALTER TABLE`` would).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

import numpy as np
import pandas as pd

START = date(2026, 1, 1)
DAYS = 60
ROWS_PER_DAY = 1500


@dataclass(frozen=True)
class Problem:
    """An injected problem: on day `day` (0-based), of `kind`, in `column`; `findings` are the
    metric ids (or their prefixes) that report it, the metrics it rightly moves included.

    >>> PROBLEMS[0].when.isoformat(), PROBLEMS[0].explains("ColumnHealth(email_domain)[mean]")
    ('2026-02-08', True)
    """

    day: int
    kind: str
    column: str
    description: str
    findings: tuple[str, ...]

    def explains(self, metric_id: str) -> bool:
        """Whether a finding of `metric_id` on the problem's day is this problem."""
        return metric_id.startswith(self.findings)

    @property
    def when(self) -> date:
        """The day of the problem."""
        return START + timedelta(days=self.day)


PROBLEMS = (
    Problem(38, "nulls", "email_domain", "35% of email domains missing",
            ("ColumnHealth(email_domain)",)),
    # amount and tax are computed from the unit price: they move with it
    Problem(41, "shift", "unit_price", "unit prices x1.6 (a price-list bug)",
            ("ColumnHealth(unit_price)", "ColumnHealth(amount)", "ColumnHealth(tax)")),
    Problem(44, "late", "loaded_at", "30% of the day's rows loaded 1-2 days late",
            ("Timeliness(event_time, loaded_at)", "ColumnHealth(loaded_at)")),
    Problem(47, "stale", "*", "no new data: the load did not run",
            ("Freshness(event_time)", "Size(*)")),
    Problem(50, "dropped", "browser", "column browser dropped", ("Schema(browser)",)),
    Problem(53, "retyped", "customer_id", "customer_id retyped bigint -> string",
            ("Schema(customer_id)",)),
    Problem(56, "added", "loyalty_tier", "column loyalty_tier added", ("Schema(loyalty_tier)",)),
)  # fmt: skip
"""What the demo injects, in time order (day 45 and later are scanned one day at a time)."""
NOTES = ["call first", "leave at door", "gift wrap", "fragile"]
BACKFILLED = 46
"""Days 0-45 are backfilled in one Spark job; the schema changes come after."""


def orders(days: int = DAYS, rows_per_day: int = ROWS_PER_DAY, seed: int = 11) -> pd.DataFrame:
    """The whole table, every day's rows with the problems of that day (pandas)."""
    rng = np.random.default_rng(seed)
    frames = [_day(rng, d, rows_per_day) for d in range(days) if not _broken(d, "stale")]
    table = pd.concat(frames, ignore_index=True)
    table.insert(2, "order_id", np.arange(len(table), dtype="int64") + 10_000)
    return table


def _day(rng: np.random.Generator, day: int, rows: int) -> pd.DataFrame:
    weekly = 0.75 if (START + timedelta(days=day)).weekday() >= 5 else 1.0
    n = int(rng.poisson(rows * weekly))
    start = datetime.combine(START + timedelta(days=day), datetime.min.time(), UTC)
    event = pd.to_datetime(start) + pd.to_timedelta(np.sort(rng.uniform(0, 86_400, n)), "s")
    delay = rng.lognormal(np.log(900), 0.6, n)
    if _broken(day, "late"):
        delay = np.where(rng.random(n) < 0.3, rng.uniform(86_400, 2 * 86_400, n), delay)
    quantity = rng.integers(1, 8, n)
    price = np.round(rng.lognormal(np.log(20), 0.5, n), 2) * (1.6 if _broken(day, "shift") else 1)
    amount = np.round(quantity * price, 2)
    domains = rng.choice(["gmail.com", "yahoo.com", "outlook.com", "proton.me", "web.de"], n)
    email_domain = _nulls(rng, domains, 0.35 if _broken(day, "nulls") else 0.005)
    discount = np.where(rng.random(n) < 0.7, 0.0, np.round(rng.uniform(1, 15, n), 2))
    return pd.DataFrame(
        {
            "event_time": event,
            "loaded_at": event + pd.to_timedelta(delay, "s"),
            "customer_id": rng.integers(1, 40_000, n),
            "country": rng.choice(
                ["DE", "FR", "US", "BR", "JP", "IN", "ES", "IT"],
                n,
                p=[0.2, 0.12, 0.25, 0.1, 0.08, 0.1, 0.08, 0.07],
            ),
            "channel": rng.choice(["web", "app", "store"], n, p=[0.5, 0.35, 0.15]),
            "status": rng.choice(["ok", "refund", "cancelled"], n, p=[0.9, 0.06, 0.04]),
            "currency": rng.choice(["EUR", "USD", "GBP"], n, p=[0.55, 0.35, 0.1]),
            "amount": amount,
            "discount": discount,
            "quantity": quantity.astype("int32"),
            "unit_price": price,
            "tax": np.round(amount * 0.19, 2),
            "shipping_cost": np.where(rng.random(n) < 0.4, 0.0, np.round(rng.uniform(2, 9, n), 2)),
            "is_gift": rng.random(n) < 0.08,
            "is_first_order": rng.random(n) < 0.2,
            "coupon_code": _nulls(rng, rng.choice([f"SAVE{i}" for i in range(5, 30, 5)], n), 0.8),
            "email_domain": email_domain,
            "device": rng.choice(["ios", "android", "desktop"], n, p=[0.35, 0.3, 0.35]),
            "browser": rng.choice(
                ["chrome", "safari", "firefox", "edge"], n, p=[0.55, 0.3, 0.1, 0.05]
            ),
            "session_seconds": rng.gamma(2.0, 150.0, n).astype("int32"),
            "pages_viewed": rng.poisson(6, n).astype("int32") + 1,
            "rating": pd.array(_nulls(rng, rng.integers(1, 6, n), 0.5), dtype="Int32"),
            "delivery_days": rng.poisson(3, n).astype("int32") + 1,
            "warehouse": rng.choice(["HAM", "LYS", "NJ1", "SAO", "OSA", "BLR"], n),
            "postal_code": np.char.zfill(rng.integers(1000, 99_999, n).astype(str), 5),
            "campaign": rng.choice([f"c{i:02d}" for i in range(10)], n),
            "latitude": np.round(rng.uniform(-60, 70, n), 5),
            "longitude": np.round(rng.uniform(-180, 180, n), 5),
            "note": _nulls(rng, rng.choice(NOTES, n), 0.9),
        }
    )


def _nulls(rng: np.random.Generator, values: np.ndarray, share: float) -> np.ndarray:
    """`values` with about `share` of them None."""
    found = values.astype(object)
    found[rng.random(len(values)) < share] = None
    return found


def _broken(day: int, kind: str) -> bool:
    return any(p.day == day and p.kind == kind for p in PROBLEMS)


def as_of(table: pd.DataFrame, day: int) -> pd.DataFrame:
    """The table as it stood at the end of `day`: rows of days up to it, with its schema."""
    end = pd.Timestamp(datetime.combine(START + timedelta(days=day + 1), datetime.min.time(), UTC))
    shown = table[table["event_time"] < end].copy()
    for problem in PROBLEMS:
        if problem.day > day:
            continue
        if problem.kind == "dropped":
            shown = shown.drop(columns=[problem.column])
        elif problem.kind == "retyped":
            shown[problem.column] = shown[problem.column].astype(str)
        elif problem.kind == "added":
            fresh = shown["event_time"] >= end - pd.Timedelta(days=day + 1 - problem.day)
            tiers = np.array(["bronze", "silver", "gold"])[shown["order_id"].to_numpy() % 3]
            shown[problem.column] = pd.Series(tiers, index=shown.index).where(fresh, None)
    return shown


def write_as_of(table: pd.DataFrame, day: int, directory: Path) -> int:
    """Replace the Parquet data in `directory` with the table as of `day`; returns its rows.

    One row group per day, as a table loaded day by day is laid out: a scan's filter on the
    time column then reads only its day's row group (Parquet's min/max statistics), not the
    whole table.
    """
    import pyarrow as pa
    import pyarrow.parquet as pq

    directory.mkdir(parents=True, exist_ok=True)
    for old in directory.glob("*.parquet"):
        old.unlink()
    shown = as_of(table, day)
    days = (shown["event_time"].dt.floor("D") - pd.Timestamp(START, tz=UTC)).dt.days.to_numpy()
    # Converted to Arrow once, then cut into days: converting each day's rows apart took two
    # thirds of the demo's 15 s of writing (782 small conversions). The rows are in time order;
    # were they not, a stable sort puts them in the order a groupby by day would give.
    if np.any(np.diff(days) < 0):
        order = np.argsort(days, kind="stable")
        shown, days = shown.iloc[order], days[order]
    schema = pa.Schema.from_pandas(shown, preserve_index=False)
    whole = pa.Table.from_pandas(shown, schema=schema, preserve_index=False)
    options = {"coerce_timestamps": "us", "allow_truncated_timestamps": True}
    with pq.ParquetWriter(directory / f"orders-{day:02d}.parquet", schema, **options) as out:
        start = 0
        for rows in np.unique(days, return_counts=True)[1]:
            out.write_table(whole.slice(start, rows))
            start += rows
    return len(shown)

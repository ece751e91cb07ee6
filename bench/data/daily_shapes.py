"""Clean daily data-quality metrics with short histories (14-120 points): what a scheduled check
on a daily partition stores before anything goes wrong.

Each family returns ``(values, event)``: the series and a mask of the days that hold a real,
planned or one-off change (a holiday, a campaign, a busy day). Those days are clean, not
incidents: an alert on them is a false alert, and they are what makes real histories harder
than noise around a line.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache

import numpy as np
import pandas as pd
from numpy.typing import NDArray

Floats = NDArray[np.float64]
Flags = NDArray[np.bool_]
Shape = tuple[Floats, Flags]

FIRST_END = pd.Timestamp("2023-03-01", tz="UTC")
END_SPREAD_DAYS = 1000  # series end on any day of about three years: holidays fall anywhere


def days(rng: np.random.Generator, n: int) -> pd.DatetimeIndex:
    """``n`` consecutive UTC days ending on a random day."""
    end = FIRST_END + pd.Timedelta(days=int(rng.integers(0, END_SPREAD_DAYS)))
    return pd.date_range(end=end, periods=n, freq="D")


@lru_cache(maxsize=1)
def _holiday_days() -> frozenset[pd.Timestamp]:
    from pandas.tseries.holiday import USFederalHolidayCalendar

    found = USFederalHolidayCalendar().holidays("2020-01-01", "2027-12-31")
    extra = pd.to_datetime([f"{y}-12-{d}" for y in range(2020, 2028) for d in (24, 26, 31)])
    return frozenset(found.union(extra))


def holidays(times: pd.DatetimeIndex) -> Flags:
    """US federal holidays, Christmas Eve, Boxing Day and New Year's Eve."""
    naive = times.tz_convert(None).normalize()
    known = _holiday_days()
    return np.array([t in known for t in naive], dtype=bool)


def weekend(times: pd.DatetimeIndex) -> Flags:
    return np.asarray(times.dayofweek >= 5, dtype=bool)


def _one_offs(rng: np.random.Generator, n: int, odds: float) -> tuple[Floats, Flags]:
    """Multipliers of real one-off events (a campaign, a busy day, a quiet day): with
    probability ``odds`` one or two of them, each 1-3 days of -40% to +80%."""
    factor, event = np.ones(n), np.zeros(n, dtype=bool)
    if rng.random() >= odds:
        return factor, event
    for _ in range(int(rng.integers(1, 3))):
        start, length = int(rng.integers(0, n)), int(rng.integers(1, 4))
        size = rng.uniform(1.2, 1.8) if rng.random() < 0.6 else rng.uniform(0.6, 0.85)
        factor[start : start + length] *= size
        event[start : start + length] = True
    return factor, event


def _volume_level(
    rng: np.random.Generator, times: pd.DatetimeIndex, low: float, high: float, growth: float
) -> tuple[Floats, Flags]:
    """A count's noise-free level: a weekly profile (business, consumer or flat), holidays, a
    slow trend and one-off events."""
    n = len(times)
    style = str(rng.choice(["business", "consumer", "flat"], p=[0.5, 0.3, 0.2]))
    scale = {"business": rng.uniform(0.3, 0.8), "consumer": rng.uniform(1.05, 1.4), "flat": 1.0}
    week = np.where(weekend(times), scale[style], 1.0) * rng.normal(1.0, 0.03, 7)[times.dayofweek]
    holiday = holidays(times) & (style != "flat")
    effect = rng.uniform(0.3, 0.7) if style == "business" else rng.uniform(1.1, 1.5)
    factor, event = _one_offs(rng, n, 0.3)
    trend = (1.0 + rng.uniform(-growth / 4, growth)) ** np.arange(n)
    level = 10 ** rng.uniform(low, high) * week * trend * factor * np.where(holiday, effect, 1.0)
    return level, holiday | event


def counts(level: Floats, noise: float, rng: np.random.Generator) -> Floats:
    """Counts around ``level``: multiplicative day-to-day noise plus Poisson noise."""
    return rng.poisson(level * rng.lognormal(0.0, noise, len(level))).astype(np.float64)


def row_count(rng: np.random.Generator, times: pd.DatetimeIndex) -> Shape:
    """Rows of a daily partition: 300 to 3 M a day, weekly profile, holidays, events."""
    level, event = _volume_level(rng, times, 2.5, 6.5, 0.003)
    return counts(level, rng.uniform(0.02, 0.12), rng), event


def distinct_count(rng: np.random.Generator, times: pd.DatetimeIndex) -> Shape:
    """Distinct users (or ids) a day: like a row count, steadier (repeat visitors)."""
    level, event = _volume_level(rng, times, 2.0, 5.0, 0.002)
    return counts(level, rng.uniform(0.01, 0.06), rng), event


def trend_weekly(rng: np.random.Generator, times: pd.DatetimeIndex) -> Shape:
    """A fast-growing (or shrinking) product's daily rows: 0.3-2% a day, with its own weekly
    profile (seven factors) and holidays."""
    n = len(times)
    growth = rng.uniform(0.003, 0.02) * (1 if rng.random() < 0.8 else -0.5)
    profile = np.exp(rng.normal(0.0, rng.uniform(0.05, 0.3), 7))
    holiday = holidays(times)
    effect = rng.uniform(0.4, 0.8)
    level = 10 ** rng.uniform(3, 5.5) * (1 + growth) ** np.arange(n) * profile[times.dayofweek]
    level *= np.where(holiday, effect, 1.0)
    return counts(level, rng.uniform(0.02, 0.08), rng), holiday


def _rows(rng: np.random.Generator, times: pd.DatetimeIndex) -> Floats:
    level, _ = _volume_level(rng, times, 2.0, 5.0, 0.002)
    return np.maximum(counts(level, 0.05, rng), 20.0)


def completeness(rng: np.random.Generator, times: pd.DatetimeIndex) -> Shape:
    """The null ratio of a column (1 - completeness): 0.1% to 20% nulls, a day-to-day wobble
    of the null probability (upstream sources vary), sometimes more nulls at weekends."""
    rows = _rows(rng, times)
    p = 10 ** rng.uniform(-3, -0.7) * rng.lognormal(0.0, rng.uniform(0.05, 0.3), len(times))
    if rng.random() < 0.3:
        p = p * np.where(weekend(times), rng.uniform(1.0, 2.0), 1.0)
    holiday = holidays(times)
    p = p * np.where(holiday, rng.uniform(0.7, 1.5), 1.0)
    nulls = rng.binomial(rows.astype(np.int64), np.clip(p, 0.0, 1.0))
    return nulls / rows, holiday


def share(rng: np.random.Generator, times: pd.DatetimeIndex) -> Shape:
    """The share of one category (mobile orders, one country): 5% to 70%, a slowly wandering
    logit, a weekend effect, binomial noise on the day's rows."""
    n = len(times)
    rows = _rows(rng, times)
    first = rng.uniform(0.05, 0.7)
    logit = np.log(first / (1 - first)) + np.cumsum(rng.normal(0.0, rng.uniform(0.005, 0.04), n))
    logit = logit + np.where(weekend(times), rng.uniform(-0.3, 0.3), 0.0)
    factor, event = _one_offs(rng, n, 0.15)
    p = np.clip(1 / (1 + np.exp(-logit)) * factor, 0.0, 1.0)
    return rng.binomial(rows.astype(np.int64), p) / rows, event


def column_mean(rng: np.random.Generator, times: pd.DatetimeIndex) -> Shape:
    """A numeric column's daily mean (order value, session length): a slow AR(1) wander, a
    weekend effect, Student-t noise (heavy tails from a few big rows)."""
    n = len(times)
    mean = 10 ** rng.uniform(0.5, 3.5)
    sd = mean * rng.uniform(0.005, 0.05)
    wander = np.zeros(n)
    for t in range(1, n):
        wander[t] = 0.9 * wander[t - 1] + rng.normal(0.0, 0.4 * sd)
    week = np.where(weekend(times), rng.uniform(-1.5, 1.5) * sd, 0.0)
    factor, event = _one_offs(rng, n, 0.1)
    noise = sd * rng.standard_t(rng.uniform(3.0, 30.0), n)
    return (mean + wander + week + noise) * (1 + (factor - 1) * 0.2), event


def drifting_level(rng: np.random.Generator, times: pd.DatetimeIndex) -> Shape:
    """A metric whose level drifts for good (a random walk under the daily noise): daily
    revenue per order, a price index, an average score."""
    n = len(times)
    level = 10 ** rng.uniform(1, 4)
    noise = level * rng.uniform(0.005, 0.04)
    walk = np.cumsum(rng.normal(0.0, noise * rng.uniform(0.3, 1.5), n))
    values = np.abs(level + walk + rng.normal(0.0, noise, n))
    return values, np.zeros(n, dtype=bool)


FAMILIES: dict[str, Callable[[np.random.Generator, pd.DatetimeIndex], Shape]] = {
    "row_count": row_count,
    "completeness": completeness,
    "share": share,
    "column_mean": column_mean,
    "distinct_count": distinct_count,
    "trend_weekly": trend_weekly,
    "drifting_level": drifting_level,
}

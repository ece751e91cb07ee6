"""Series families the first generator lacked: heavy-tailed metrics, small counts near zero and
slowly growing tables (cumulative sizes), each with incidents of its own kind.

Each ``make_*`` takes a random generator and the number of points and returns
``(values, spans)``: spans are ``(type, first, last)`` of the injected incidents, placed as the
generator places them (after enough history, apart, a persistent one last).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pandas as pd

from .incidents import PERSISTENT
from .shapes import Floats

Spans = list[tuple[str, int, int]]
TYPES = {
    "heavy_tailed": ("spike", "level_shift", "unit_change"),
    "small_counts": ("zero_load", "burst", "level_shift"),
    "growing_table": ("truncation", "duplicate_load", "stalled_growth"),
}
SETTLE = 7


def heavy_tailed(rng: np.random.Generator, times: pd.DatetimeIndex) -> Floats:
    """A latency or delay-like metric: a level with a weekly wobble and Student-t noise
    (3 to 5 degrees of freedom), so big but normal excursions happen every few weeks."""
    n = len(times)
    level = 10 ** rng.uniform(0.5, 3.0)
    scale = level * rng.uniform(0.03, 0.15)
    df = rng.uniform(2.5, 5.0)
    weekly = rng.uniform(0, 1.0) * scale * np.where(np.asarray(times.dayofweek) >= 5, 1.0, 0.0)
    return np.asarray(level + weekly + scale * rng.standard_t(df, n), dtype=np.float64)


def small_counts(rng: np.random.Generator, times: pd.DatetimeIndex) -> Floats:
    """Counts near zero (error rows per day, sign-ups on a small table): Poisson around 0.2 to
    8 a day, a little busier on weekdays."""
    rate = 10 ** rng.uniform(np.log10(0.2), np.log10(8.0))
    weekday = np.where(np.asarray(times.dayofweek) >= 5, rng.uniform(0.5, 1.0), 1.0)
    return rng.poisson(rate * weekday).astype(np.float64)


def growing_table(rng: np.random.Generator, times: pd.DatetimeIndex) -> Floats:
    """The size of a table that only grows: each day appends a weekly-seasonal batch of
    0.1 to 2% of the table (nothing is ever deleted)."""
    n = len(times)
    start = 10 ** rng.uniform(4, 8)
    share = rng.uniform(0.001, 0.02)
    weekend = np.where(np.asarray(times.dayofweek) >= 5, rng.uniform(0.2, 1.0), 1.0)
    batches = share * start * weekend * rng.lognormal(0.0, rng.uniform(0.05, 0.3), n)
    batches *= (1 + share) ** np.arange(n)  # batches grow with the business
    return np.round(start + np.cumsum(batches))


def inject(
    rng: np.random.Generator, family: str, values: Floats, t: int
) -> tuple[str, int, int]:
    """Inject one incident of a random type of ``family`` at ``t``; returns its span."""
    kind = str(rng.choice(TYPES[family]))
    return (kind, *INJECT[family](rng, kind, values, t))


def _heavy(rng: np.random.Generator, kind: str, values: Floats, t: int) -> tuple[int, int]:
    n = len(values)
    spread = np.median(np.abs(np.diff(values[:t]))) if t > 2 else abs(values[0]) * 0.1
    if kind == "spike":  # a broken batch: far beyond any normal excursion
        values[t] += (1 if rng.random() < 0.5 else -1) * rng.uniform(15, 40) * spread
        return t, t
    if kind == "level_shift":
        values[t:] += (1 if rng.random() < 0.5 else -1) * rng.uniform(6, 12) * spread
        return t, min(n - 1, t + SETTLE - 1)
    values[t:] *= 1000.0 if rng.random() < 0.5 else 60.0  # seconds became milliseconds
    return t, min(n - 1, t + SETTLE - 1)


def _small(rng: np.random.Generator, kind: str, values: Floats, t: int) -> tuple[int, int]:
    n = len(values)
    typical = max(float(np.mean(values[:t])), 0.2)
    if kind == "zero_load":  # nothing arrives for a week where several a day are usual
        if typical < 2.0:
            kind = "burst"
        else:
            last = min(n - 1, t + 6)
            values[t : last + 1] = 0.0
            return t, last
    if kind == "burst":  # an error storm: many times the usual count in a day
        values[t] += float(rng.poisson(max(10.0, typical * rng.uniform(8, 20))))
        return t, t
    values[t:] = rng.poisson(typical * rng.uniform(4, 8), n - t).astype(np.float64)
    return t, min(n - 1, t + SETTLE - 1)


def _growing(rng: np.random.Generator, kind: str, values: Floats, t: int) -> tuple[int, int]:
    n = len(values)
    if kind == "truncation":  # a job overwrote the table with one day's batch
        values[t] = values[t] - values[t - 1]
        return t, t
    if kind == "duplicate_load":  # the whole history appended again
        values[t:] += values[t - 1]
        return t, min(n - 1, t + SETTLE - 1)
    values[t:] = values[t - 1]  # the ingest stopped: the size stays flat
    return t, min(n - 1, t + SETTLE - 1)


INJECT: dict[str, Callable[[np.random.Generator, str, Floats, int], tuple[int, int]]] = {
    "heavy_tailed": _heavy,
    "small_counts": _small,
    "growing_table": _growing,
}
MAKE: dict[str, Callable[[np.random.Generator, pd.DatetimeIndex], Floats]] = {
    "heavy_tailed": heavy_tailed,
    "small_counts": small_counts,
    "growing_table": growing_table,
}
PERSISTENT_TYPES = (*PERSISTENT, "unit_change", "duplicate_load", "stalled_growth")

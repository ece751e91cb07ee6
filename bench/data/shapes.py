"""Normal behaviour of the metrics our users store, before any incident.

Each shape returns ``(values, expected_days)``: the series and a mask of points on holidays (real
but planned deviations, labelled ``expected``). ``level`` arrays are the noise-free signal the
incidents scale.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from numpy.typing import NDArray

Floats = NDArray[np.float64]
Flags = NDArray[np.bool_]

FIXED_HOLIDAYS = {(1, 1), (5, 1), (7, 4), (12, 24), (12, 25), (12, 26), (12, 31)}


def holidays(days: pd.DatetimeIndex) -> Flags:
    """Fixed-date holidays plus the fourth Thursday of November."""
    fixed = np.array([(d.month, d.day) in FIXED_HOLIDAYS for d in days], dtype=bool)
    thanksgiving = (days.month == 11) & (days.dayofweek == 3) & (days.day >= 22) & (days.day <= 28)
    return fixed | np.asarray(thanksgiving, dtype=bool)


@dataclass(frozen=True)
class Signal:
    """A noise-free level per point, the noise around it, and holiday flags."""

    level: Floats
    noise: float
    holiday: Flags


def volume(rng: np.random.Generator, times: pd.DatetimeIndex, hourly: bool) -> Signal:
    """Row counts (or distinct counts) of a daily or hourly partition: a level that trends, a
    weekly cycle (business data dips at weekends, consumer data peaks), a daily cycle for hourly
    partitions, and holidays."""
    n = len(times)
    per_point = 10 ** rng.uniform(2.0, 4.5) if hourly else 10 ** rng.uniform(3.0, 6.5)
    growth = rng.uniform(-0.0005, 0.003) / (24 if hourly else 1)
    trend = (1 + growth) ** np.arange(n)
    style = rng.choice(["business", "consumer", "flat"], p=[0.5, 0.3, 0.2])
    weekend = {"business": rng.uniform(0.3, 0.8), "consumer": rng.uniform(1.05, 1.3), "flat": 1.0}
    week = np.where(np.asarray(times.dayofweek) >= 5, weekend[style], 1.0)
    day = np.ones(n)
    if hourly:
        night = rng.uniform(0.1, 0.5)
        hour = np.asarray(times.hour)
        day = night + (1 - night) * np.clip(np.sin(np.pi * (hour - 6) / 16), 0, None) ** 1.5
    holiday = holidays(times.normalize())
    effect = rng.uniform(0.3, 0.7) if style == "business" else rng.uniform(1.1, 1.5)
    calendar = np.where(holiday, effect, 1.0) if style != "flat" else np.ones(n)
    level = per_point * trend * week * day * calendar
    return Signal(level, rng.uniform(0.01, 0.08), holiday & (style != "flat"))


def noisy_volume(rng: np.random.Generator, level: Floats, noise: float) -> Floats:
    """Counts around ``level``: multiplicative noise plus Poisson noise for small counts."""
    expected = level * rng.lognormal(0.0, noise, len(level))
    return rng.poisson(np.maximum(expected, 0.0)).astype(np.float64)


def ratio_rows(rng: np.random.Generator, times: pd.DatetimeIndex, hourly: bool) -> Floats:
    """How many rows a ratio or mean is computed on, per point."""
    signal = volume(rng, times, hourly)
    return np.maximum(noisy_volume(rng, signal.level, signal.noise), 1.0)


def null_probability(rng: np.random.Generator) -> float:
    """A column's usual null probability: often exactly 0, otherwise small."""
    return 0.0 if rng.random() < 0.25 else float(10 ** rng.uniform(-4, np.log10(0.02)))


def null_ratio(rng: np.random.Generator, rows: Floats, p: Floats) -> Floats:
    """Observed null ratios of ``rows`` rows with null probabilities ``p`` (a slight wobble)."""
    wobble = p * rng.lognormal(0.0, 0.1, len(p))
    return rng.binomial(rows.astype(np.int64), np.clip(wobble, 0, 1)) / rows


def column_mean(
    rng: np.random.Generator, times: pd.DatetimeIndex, hourly: bool
) -> tuple[Floats, Floats, float]:
    """A noisy column's mean per point: either a binary column's mean (like controversiality)
    over the point's rows, or a numeric column with a slow wander and a mild weekly effect.
    Returns ``(values without incidents, noise-free level, noise sd per point)``."""
    n = len(times)
    if rng.random() < 0.4:
        p = rng.uniform(0.01, 0.2)
        rows = np.maximum(ratio_rows(rng, times, hourly) / rng.uniform(10, 1000), 30.0)
        values = rng.binomial(rows.astype(np.int64), p) / rows
        return values, np.full(n, p), float(np.sqrt(p * (1 - p) / np.median(rows)))
    mean = 10 ** rng.uniform(0.5, 3.5)
    sd = mean * rng.uniform(0.005, 0.05)
    wander = np.zeros(n)
    for t in range(1, n):  # AR(1): slow, small drifts that are not incidents
        wander[t] = 0.95 * wander[t - 1] + rng.normal(0.0, 0.3 * sd)
    weekly = rng.uniform(0, 1.0) * sd * np.where(np.asarray(times.dayofweek) >= 5, 1.0, 0.0)
    level = mean + wander + weekly
    return level + rng.normal(0.0, sd, n), level, float(sd)

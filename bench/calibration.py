"""Benchmark: does ``Adaptive(false_alarm_rate=r)`` raise false alerts at the rate r on clean
series?

Seven families of clean series (no incidents), 1,000 series of 365 points each, judged
walk-forward (every point on the points before it, as a daily scan would) at the rates 0.01,
0.001 and 0.0001; the table shows the measured share of false alerts divided by the rate
(1.0 is perfect; the target is within 2x, i.e. between 0.5 and 2.0). Families:

* normal noise: a metric averaged over many rows (a mean, a ratio of a large table);
* daily row counts: weekly cycle (weekends 40-80%), log-normal day-to-day noise plus Poisson;
* hourly row counts: daily and weekly cycles, the same noise, four weeks of hours;
* wandering mean: an AR(1) mean that drifts and comes back, plus noise;
* growing table: a cumulative size that grows by a weekly-seasonal daily batch;
* small counts: Poisson counts with 0.5 to 8 a day (discrete: the attainable rates are few);
* heavy tails: Student-t noise with 3 to 5 degrees of freedom.

The 1,000 series of a family are judged in one call, as a scan or a grouped check judges its
groups, so they share what they teach about tail heaviness (``share_tails``, the default); the
last columns judge every series alone (``share_tails=False``: a single series, a backtest).

    python3 bench/calibration.py            # writes bench/results/calibration.json
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd
from common import print_table, write_results  # puts the repository root first on sys.path

from detectors import Adaptive

SERIES, DAYS = 1_000, 365
RATES = (0.01, 0.001, 0.0001)
Family = Callable[[np.random.Generator, pd.DatetimeIndex], np.ndarray]


def normal_noise(rng: np.random.Generator, times: pd.DatetimeIndex) -> np.ndarray:
    level = 10 ** rng.uniform(0, 3, (SERIES, 1))
    return level * (
        1 + rng.normal(0, 1, (SERIES, len(times))) * rng.uniform(0.005, 0.05, (SERIES, 1))
    )


def daily_counts(rng: np.random.Generator, times: pd.DatetimeIndex) -> np.ndarray:
    weekend = np.asarray(times.dayofweek) >= 5
    level = 10 ** rng.uniform(2, 6, (SERIES, 1)) * np.where(
        weekend, rng.uniform(0.4, 0.8, (SERIES, 1)), 1.0
    )
    noise = rng.lognormal(0, rng.uniform(0.01, 0.05, (SERIES, 1)), (SERIES, len(times)))
    return rng.poisson(level * noise).astype(float)


def hourly_counts(rng: np.random.Generator, times: pd.DatetimeIndex) -> np.ndarray:
    hour, weekday = np.asarray(times.hour), np.asarray(times.dayofweek)
    night = rng.uniform(0.1, 0.4, (SERIES, 1))
    day = night + (1 - night) * np.clip(np.sin(np.pi * (hour - 6) / 16), 0, None) ** 1.5
    week = np.where(weekday >= 5, rng.uniform(0.4, 0.9, (SERIES, 1)), 1.0)
    level = 10 ** rng.uniform(2, 4, (SERIES, 1)) * day * week
    noise = rng.lognormal(0, rng.uniform(0.01, 0.05, (SERIES, 1)), (SERIES, len(times)))
    return rng.poisson(level * noise).astype(float)


def wandering_mean(rng: np.random.Generator, times: pd.DatetimeIndex) -> np.ndarray:
    walk = np.zeros((SERIES, len(times)))
    for t in range(1, len(times)):
        walk[:, t] = 0.9 * walk[:, t - 1] + rng.normal(0, 0.5, SERIES)
    return 50 + walk + rng.normal(0, 1, walk.shape)


def growing_table(rng: np.random.Generator, times: pd.DatetimeIndex) -> np.ndarray:
    weekend = np.asarray(times.dayofweek) >= 5
    start = 10 ** rng.uniform(4, 7, (SERIES, 1))
    share = rng.uniform(0.001, 0.01, (SERIES, 1))
    batch = (
        start * share * np.where(weekend, 0.5, 1.0) * rng.lognormal(0, 0.1, (SERIES, len(times)))
    )
    return np.round(start + np.cumsum(batch, axis=1))


def small_counts(rng: np.random.Generator, times: pd.DatetimeIndex) -> np.ndarray:
    return rng.poisson(rng.uniform(0.5, 8, (SERIES, 1)), (SERIES, len(times))).astype(float)


def heavy_tails(rng: np.random.Generator, times: pd.DatetimeIndex) -> np.ndarray:
    df = rng.uniform(3, 5, (SERIES, 1))
    return 100 + 5 * rng.standard_t(df, (SERIES, len(times)))


FAMILIES: dict[str, tuple[Family, str]] = {
    "normal noise": (normal_noise, "D"),
    "daily row counts": (daily_counts, "D"),
    "hourly row counts": (hourly_counts, "h"),
    "wandering mean": (wandering_mean, "D"),
    "growing table": (growing_table, "D"),
    "small counts": (small_counts, "D"),
    "heavy tails": (heavy_tails, "D"),
}


def measure(name: str, make: Family, freq: str, seed: int, share: bool) -> dict[str, Any]:
    """False-alert shares of one family, one run of the detector per rate."""
    points = DAYS if freq == "D" else 28 * 24
    times = pd.date_range("2025-01-06", periods=points, freq=freq)
    values = make(np.random.default_rng([seed, len(name)]), times)
    stamps = np.tile(times.to_numpy(), (SERIES, 1))
    lengths, starts = np.full(SERIES, points), np.zeros(SERIES, np.int64)
    shares, checks, started = {}, 0, time.process_time()
    for rate in RATES:
        detector = Adaptive(false_alarm_rate=rate, share_tails=share).at_times(stamps)
        codes = detector.evaluate_matrix(values, lengths, starts).codes
        checks = int(np.isin(codes, (0, 1)).sum())
        shares[rate] = float((codes == 1).sum() / checks)
    return {"checks": checks, "cpu_seconds": time.process_time() - started,
            "false_alert_share": {str(r): s for r, s in shares.items()},
            "ratio": {str(r): s / r for r, s in shares.items()}}  # fmt: skip


def main() -> None:
    rows, payload = [], {}
    for name, (make, freq) in FAMILIES.items():
        found = measure(name, make, freq, seed=2026, share=True)
        alone = measure(name, make, freq, seed=2026, share=False)
        payload[name] = {**found, "alone": alone}
        ratios = [found["ratio"][str(r)] for r in RATES]
        ok = "yes" if all(0.5 <= x <= 2.0 for x in ratios) else "no"
        rows.append([name, f"{found['checks']:,}", *(f"{x:.2f}" for x in ratios), ok,
                     *(f"{alone['ratio'][str(r)]:.2f}" for r in RATES)])  # fmt: skip
    headers = ["family", "checks", *(f"rate {r:g}" for r in RATES), "within 2x",
               *(f"alone {r:g}" for r in RATES)]  # fmt: skip
    print_table(headers, rows)
    path = write_results("calibration", {"series_per_family": SERIES, "families": payload})
    print(f"\nwrote {path}")


if __name__ == "__main__":
    main()

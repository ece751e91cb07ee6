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

Short daily histories (14-120 points, where most data-quality metrics live): six daily families
(trend + weekly and t(3) noise among them), 8,000 series of 120 days each judged in one call
from the 7th point, the ratio measured on the first 30 points and on the points after them.

    python3 bench/calibration.py            # writes bench/results/calibration.json
    python3 bench/calibration.py --short    # only the short histories, writes nothing
    python3 bench/calibration.py --short --series 1000 --rates 0.01,0.001   # a quick look
    python3 bench/calibration.py --short --families "row counts,t(3)" --json out.json

At 0.0001 the first 30 points of 8,000 series hold about 184,000 checks: about 18 false alerts
are expected, so a ratio there moves by 0.05 per alert (with 4,000 series one draw gave 3 of 9.2
on normal noise where 8,000 gave 12 of 18.4: cells that small swing with the draw). The second
table gives the counts and each ratio's exact 95% Poisson interval (a false alert per check is
rare, so the count is Poisson), and a verdict: within 2x (the interval inside 0.5-2), outside
(the interval wholly outside it) or open (the interval reaches across a limit: more series
would tell).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd
from common import print_table, write_results  # puts the repository root first on sys.path
from scipy.stats import chi2

from detectors import Adaptive

SERIES, DAYS = 1_000, 365
RATES = (0.01, 0.001, 0.0001)
Family = Callable[[np.random.Generator, pd.DatetimeIndex, int], np.ndarray]
SHORT_SERIES, SHORT_DAYS, FIRST_JUDGED, EARLY = 8_000, 120, 6, 30
"""Short daily histories: 120 days judged from the 7th point, the first 30 points apart."""


def normal_noise(rng: np.random.Generator, times: pd.DatetimeIndex, n: int = SERIES) -> np.ndarray:
    level = 10 ** rng.uniform(0, 3, (n, 1))
    return level * (1 + rng.normal(0, 1, (n, len(times))) * rng.uniform(0.005, 0.05, (n, 1)))


def daily_counts(rng: np.random.Generator, times: pd.DatetimeIndex, n: int = SERIES) -> np.ndarray:
    weekend = np.asarray(times.dayofweek) >= 5
    level = 10 ** rng.uniform(2, 6, (n, 1)) * np.where(weekend, rng.uniform(0.4, 0.8, (n, 1)), 1.0)
    noise = rng.lognormal(0, rng.uniform(0.01, 0.05, (n, 1)), (n, len(times)))
    return rng.poisson(level * noise).astype(float)


def hourly_counts(rng: np.random.Generator, times: pd.DatetimeIndex, n: int = SERIES) -> np.ndarray:
    hour, weekday = np.asarray(times.hour), np.asarray(times.dayofweek)
    night = rng.uniform(0.1, 0.4, (n, 1))
    day = night + (1 - night) * np.clip(np.sin(np.pi * (hour - 6) / 16), 0, None) ** 1.5
    week = np.where(weekday >= 5, rng.uniform(0.4, 0.9, (n, 1)), 1.0)
    level = 10 ** rng.uniform(2, 4, (n, 1)) * day * week
    noise = rng.lognormal(0, rng.uniform(0.01, 0.05, (n, 1)), (n, len(times)))
    return rng.poisson(level * noise).astype(float)


def wandering_mean(
    rng: np.random.Generator, times: pd.DatetimeIndex, n: int = SERIES
) -> np.ndarray:
    walk = np.zeros((n, len(times)))
    for t in range(1, len(times)):
        walk[:, t] = 0.9 * walk[:, t - 1] + rng.normal(0, 0.5, n)
    return 50 + walk + rng.normal(0, 1, walk.shape)


def growing_table(rng: np.random.Generator, times: pd.DatetimeIndex, n: int = SERIES) -> np.ndarray:
    weekend = np.asarray(times.dayofweek) >= 5
    start = 10 ** rng.uniform(4, 7, (n, 1))
    share = rng.uniform(0.001, 0.01, (n, 1))
    batch = start * share * np.where(weekend, 0.5, 1.0) * rng.lognormal(0, 0.1, (n, len(times)))
    return np.round(start + np.cumsum(batch, axis=1))


def small_counts(rng: np.random.Generator, times: pd.DatetimeIndex, n: int = SERIES) -> np.ndarray:
    return rng.poisson(rng.uniform(0.5, 8, (n, 1)), (n, len(times))).astype(float)


def heavy_tails(rng: np.random.Generator, times: pd.DatetimeIndex, n: int = SERIES) -> np.ndarray:
    df = rng.uniform(3, 5, (n, 1))
    return 100 + 5 * rng.standard_t(df, (n, len(times)))


def trend_weekly(rng: np.random.Generator, times: pd.DatetimeIndex, n: int = SERIES) -> np.ndarray:
    weekend = np.asarray(times.dayofweek) >= 5
    days = np.arange(len(times))
    growth = 1 + rng.uniform(-0.003, 0.01, (n, 1)) * days
    level = 10 ** rng.uniform(2, 5, (n, 1)) * growth
    level = level * np.where(weekend, rng.uniform(0.4, 0.9, (n, 1)), 1.0)
    noise = rng.lognormal(0, rng.uniform(0.02, 0.08, (n, 1)), (n, len(times)))
    return rng.poisson(level * noise).astype(float)


def t3_noise(rng: np.random.Generator, times: pd.DatetimeIndex, n: int = SERIES) -> np.ndarray:
    return 100 + 5 * rng.standard_t(3, (n, len(times)))


FAMILIES: dict[str, tuple[Family, str]] = {
    "normal noise": (normal_noise, "D"),
    "daily row counts": (daily_counts, "D"),
    "hourly row counts": (hourly_counts, "h"),
    "wandering mean": (wandering_mean, "D"),
    "growing table": (growing_table, "D"),
    "small counts": (small_counts, "D"),
    "heavy tails": (heavy_tails, "D"),
}


SHORT_FAMILIES: dict[str, Family] = {
    "normal noise": normal_noise,
    "daily row counts": daily_counts,
    "trend + weekly": trend_weekly,
    "wandering mean": wandering_mean,
    "small counts": small_counts,
    "t(3) noise": t3_noise,
}


def measure_short(
    name: str, make: Family, seed: int, series: int = SHORT_SERIES, rates: tuple[float, ...] = RATES
) -> dict[str, Any]:
    """False-alert ratios of one family of short daily series judged from the 7th point, in
    the first ``EARLY`` points and after them."""
    times = pd.date_range("2025-01-06", periods=SHORT_DAYS, freq="D")
    values = make(np.random.default_rng([seed, len(name), 7]), times, series)
    stamps = np.tile(times.to_numpy(), (series, 1))
    lengths = np.full(series, SHORT_DAYS)
    starts = np.full(series, FIRST_JUDGED)
    found: dict[str, Any] = {}
    for rate in rates:
        detector = Adaptive(false_alarm_rate=rate).at_times(stamps)
        codes = detector.evaluate_matrix(values, lengths, starts).codes
        for part, cells in (("early", slice(0, EARLY)), ("late", slice(EARLY, None))):
            judged = np.isin(codes[:, cells], (0, 1))
            alerts = int((codes[:, cells] == 1).sum())
            entry = found.setdefault(part, {"checks": int(judged.sum()), "alerts": {},
                                            "ratio": {}})  # fmt: skip
            entry["alerts"][str(rate)] = alerts
            entry["ratio"][str(rate)] = alerts / max(int(judged.sum()), 1) / rate
    return found


def ratio_interval(alerts: int, expected: float, level: float = 0.95) -> tuple[float, float]:
    """Exact (Garwood) interval of a Poisson count's mean, divided by ``expected``.

    >>> [round(x, 2) for x in ratio_interval(20, 20.0)]
    [0.61, 1.54]
    """
    tail = (1.0 - level) / 2.0
    low = chi2.ppf(tail, 2 * alerts) / 2.0 if alerts > 0 else 0.0
    return float(low) / expected, float(chi2.ppf(1.0 - tail, 2 * alerts + 2) / 2.0) / expected


def verdict(alerts: int, expected: float) -> str:
    """``within`` 2x, ``outside`` it, or ``open``, by the count's 95% interval."""
    low, high = ratio_interval(alerts, expected)
    if low >= 0.5 and high <= 2.0:
        return "within"
    return "outside" if high < 0.5 or low > 2.0 else "open"


def measure(name: str, make: Family, freq: str, seed: int, share: bool) -> dict[str, Any]:
    """False-alert shares of one family, one run of the detector per rate."""
    points = DAYS if freq == "D" else 28 * 24
    times = pd.date_range("2025-01-06", periods=points, freq=freq)
    values = make(np.random.default_rng([seed, len(name)]), times, SERIES)
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


def arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=" ".join(__doc__.split("\n\n")[0].split()))
    parser.add_argument(
        "--short",
        action="store_true",
        help="only the short daily histories; writes no results file",
    )
    parser.add_argument(
        "--series",
        type=int,
        default=SHORT_SERIES,
        help=f"short series per family (default {SHORT_SERIES}; with --short)",
    )
    parser.add_argument(
        "--rates",
        default=",".join(map(str, RATES)),
        help="comma-separated false-alarm rates (with --short)",
    )
    parser.add_argument(
        "--families",
        default="",
        help="comma-separated parts of short family names to run (default all)",
    )
    parser.add_argument("--json", metavar="PATH", help="also write the short table's numbers here")
    args = parser.parse_args()
    args.rates = tuple(float(r) for r in args.rates.split(","))
    if not args.short and (args.series, args.rates) != (SHORT_SERIES, RATES):
        parser.error("--series and --rates are for a quick look: use them with --short")
    return args


def main() -> None:
    args = arguments()
    only_short, series, rates = args.short, args.series, args.rates
    rows, payload = [], {}
    for name, (make, freq) in {} if only_short else FAMILIES.items():
        found = measure(name, make, freq, seed=2026, share=True)
        alone = measure(name, make, freq, seed=2026, share=False)
        payload[name] = {**found, "alone": alone}
        ratios = [found["ratio"][str(r)] for r in RATES]
        ok = "yes" if all(0.5 <= x <= 2.0 for x in ratios) else "no"
        rows.append([name, f"{found['checks']:,}", *(f"{x:.2f}" for x in ratios), ok,
                     *(f"{alone['ratio'][str(r)]:.2f}" for r in RATES)])  # fmt: skip
    headers = ["family", "checks", *(f"rate {r:g}" for r in RATES), "within 2x",
               *(f"alone {r:g}" for r in RATES)]  # fmt: skip
    if rows:
        print_table(headers, rows)
    short, short_rows, counts = {}, [], []
    wanted = args.families.split(",")
    for name, make in SHORT_FAMILIES.items():
        if not any(part and part in name for part in wanted) and wanted != [""]:
            continue
        short[name] = found = measure_short(name, make, 2029, series, rates)
        cells = [found[part]["ratio"][str(r)] for part in ("early", "late") for r in rates]
        ok = "yes" if all(0.5 <= x <= 2.0 for x in cells) else "no"
        short_rows.append([name, f"{found['early']['checks']:,}", f"{found['late']['checks']:,}",
                           *(f"{x:.2f}" for x in cells), ok])  # fmt: skip
        for part in ("early", "late"):
            for r in rates:
                alerts, expected = found[part]["alerts"][str(r)], found[part]["checks"] * r
                low, high = ratio_interval(alerts, expected)
                counts.append([name, part, f"{r:g}", f"{alerts} ({expected:.1f})",
                               f"{alerts / expected:.2f}", f"{low:.2f}-{high:.2f}",
                               verdict(alerts, expected)])  # fmt: skip
        print(f"  {name}: done", file=sys.stderr, flush=True)
    print(f"\nShort daily histories ({series:,} series of {SHORT_DAYS} days, judged from"
          f" the 7th point): first {EARLY} points | after them")  # fmt: skip
    print_table(["family", "checks early", "checks after",
                 *(f"early {r:g}" for r in rates), *(f"after {r:g}" for r in rates),
                 "within 2x"], short_rows)  # fmt: skip
    print("\nFalse alerts measured (expected at the rate), exact 95% Poisson interval:")
    print_table(["family", "points", "rate", "alerts (expected)", "ratio", "95% interval",
                 "2x"], counts)  # fmt: skip
    if args.json:  # a quick look's numbers, kept where asked
        with open(args.json, "w") as out:
            json.dump({"series_per_family": series, "families": short}, out, indent=1)
    if only_short:
        return
    path = write_results("calibration", {"series_per_family": SERIES, "families": payload,
                                         "short": {"series_per_family": SHORT_SERIES,
                                                   "days": SHORT_DAYS, "early": EARLY,
                                                   "families": short}})  # fmt: skip
    print(f"\nwrote {path}")


if __name__ == "__main__":
    main()

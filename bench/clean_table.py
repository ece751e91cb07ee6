"""Benchmark: how many alerts does a clean table raise when a new scan is backfilled?

A table of 1,000 groups with five metrics per group (row count, completeness of a column, the
share of one category, the mean of an amount, a count of distinct customers), 45 days, no
incident at all. Every metric's groups are judged walk-forward in one call, as a scan's
backfill judges them (``anomaly/backtest/joint.py``: one ``Adaptive.walk_forward_rows`` per
metric, so the groups share tail heaviness), and each day's verdicts of all 5,000 series pass
the alert budget of the scan (``false_alerts_per_week: 1``, applied per run over every series
judged that day, as ``anomaly.judging.budget.hold_back`` applies it). Every alert is false;
the target is at most 7 in all (about a week's budget for each of the six weeks and a bit).

Groups differ as real segments do: from a few rows a day to thousands, columns never null in
some groups and often in others, shares from 2% to 50%. Each detector is told its metric's
domain as the scan tells it (ratios in [0, 1], counts at least 0); the last column judges
without domains.

    python3 bench/clean_table.py            # writes bench/results/clean_table.json
    python3 bench/clean_table.py --min-history 14   # judged from the 15th point (default: the
                                                    # scan's MIN_HISTORY)
"""

from __future__ import annotations

import math
import sys
import time
from typing import Any

import numpy as np
import pandas as pd
from common import print_table, write_results  # puts the repository root first on sys.path

from anomaly.config.plans import MIN_HISTORY
from detectors import Adaptive
from detectors.budget import AlertBudget
from detectors.evaluation import ANOMALY, MISSING, OK

GROUPS, DAYS, SEED = 1_000, 45, 2029
BUDGET = AlertBudget(false_alerts_per_week=1)
COUNT, RATIO = (0.0, math.inf), (0.0, 1.0)


def clean_table(rng: np.random.Generator) -> dict[str, tuple[np.ndarray, tuple[float, float]]]:
    """The five metrics of every group and day (groups x days), and their domains."""
    weekday = np.asarray(pd.date_range("2025-01-06", periods=DAYS, freq="D").dayofweek)
    typical = 10 ** rng.uniform(0.7, 3.7, (GROUPS, 1))  # 5 to 5,000 rows a day
    weekly = np.where(weekday >= 5, rng.uniform(0.5, 1.0, (GROUPS, 1)), 1.0)
    rows = np.maximum(rng.poisson(typical * weekly * rng.lognormal(0, 0.1, (GROUPS, DAYS))), 1)
    never_null = rng.random((GROUPS, 1)) < 0.3
    null_rate = np.where(never_null, 0.0, 10 ** rng.uniform(-3.5, -1, (GROUPS, 1)))
    share = rng.uniform(0.02, 0.5, (GROUPS, 1))
    spread = rng.uniform(0.5, 2.0, (GROUPS, 1))
    amounts = rng.normal(0, 1, (GROUPS, DAYS)) * spread * 40 / np.sqrt(rows)
    customers = typical * rng.uniform(0.5, 3, (GROUPS, 1))
    distinct = customers * (1 - np.exp(-rows / customers))
    return {
        "row count": (rows.astype(float), COUNT),
        "completeness": (1 - rng.binomial(rows, null_rate) / rows, RATIO),
        "share of a category": (rng.binomial(rows, share) / rows, RATIO),
        "mean amount": (40 + amounts, (-math.inf, math.inf)),
        "distinct customers": (np.round(distinct * rng.lognormal(0, 0.02, distinct.shape)), COUNT),
    }


def backfill(table: dict[str, tuple[np.ndarray, tuple[float, float]]], domains: bool,
             detector: Adaptive, first: int = MIN_HISTORY) -> dict[str, Any]:  # fmt: skip
    """Alerts before and after the budget, per metric and per day of history; each series
    judged from its point ``first`` on (a scan's ``min_history``)."""
    times = pd.date_range("2025-01-06", periods=DAYS, freq="D").to_numpy()
    stamps = np.tile(times, (GROUPS, 1))
    p_values, flags, judged = [], [], []
    for values, domain in table.values():
        bound = (detector.with_domain(*domain) if domains else detector).at_times(stamps)
        found = bound.walk_forward_rows(
            values, np.full(GROUPS, first), np.full(GROUPS, DAYS), np.ones(values.shape, bool)
        )
        before = np.full((GROUPS, first), MISSING, np.int8)  # not judged: fewer than `first`
        codes = np.concatenate([before, np.array([e.codes for e in found])], axis=1)
        p = np.concatenate([np.full((GROUPS, first), np.nan),
                            np.array([e.p_value for e in found], dtype=float)], axis=1)  # fmt: skip
        judged.append(np.isin(codes, (OK, ANOMALY)))
        flags.append(codes == ANOMALY)
        p_values.append(p)
    p_all, flag_all, judged_all = (np.concatenate(a) for a in (p_values, flags, judged))
    sent = np.zeros(flag_all.shape, bool)
    for day in range(DAYS):  # one scan run per day, over every series judged that day
        on = judged_all[:, day]
        keep, _ = BUDGET.apply(p_all[on, day], flag_all[on, day], checks_per_week=7)
        sent[np.flatnonzero(on), day] = keep
    per_metric = {name: int(sent[k * GROUPS : (k + 1) * GROUPS].sum())
                  for k, name in enumerate(table)}  # fmt: skip
    days = np.flatnonzero(sent.any(axis=0))
    return {
        "alerts": int(sent.sum()),
        "flagged_before_budget": int(flag_all.sum()),
        "checks": int(judged_all.sum()),
        "per_metric": per_metric,
        "alerts_per_day_of_history": {int(d): int(sent[:, d].sum()) for d in days},
    }


def main() -> None:
    first = (
        int(sys.argv[sys.argv.index("--min-history") + 1])
        if "--min-history" in sys.argv
        else MIN_HISTORY
    )
    table = clean_table(np.random.default_rng(SEED))
    started = time.perf_counter()
    told = backfill(table, True, Adaptive(), first)
    alone = backfill(table, False, Adaptive(), first)
    seconds = time.perf_counter() - started
    rows = [[name, told["per_metric"][name], alone["per_metric"][name]] for name in table]
    rows.append(["all (target <= 7)", told["alerts"], alone["alerts"]])
    rows.append(["flagged before the budget", told["flagged_before_budget"],
                 alone["flagged_before_budget"]])  # fmt: skip
    print_table(["metric", "alerts, domains told", "alerts, no domains"], rows)
    print(f"judged from point {first} (min_history {first}); alerts by day of history"
          f" (domains told): {told['alerts_per_day_of_history']}")  # fmt: skip
    path = write_results("clean_table", {
        "groups": GROUPS, "days": DAYS, "min_history": first, "budget": BUDGET.rule,
        "checks": told["checks"],
        "with_domains": told, "without_domains": alone, "seconds": seconds,
    })  # fmt: skip
    print(f"\nwrote {path}")


if __name__ == "__main__":
    main()

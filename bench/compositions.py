"""Benchmark: lazy AllOf/AnyOf against evaluating every member on every point (the previous
implementation, kept below as the reference), side by side in one run.

A 365-point daily series with a weekly cycle, noise and 1% spikes, judged by the compositions
that put a SARIMA model behind a cheap rule: ``AllOf(OnlineNormal(), SeasonalArima)`` and the
demo's ``AllOf(RelativeRateOfChange(order=7), SeasonalArima)``. Cases: one ``evaluate`` over the
series (with 4 weeks of history before the interval, and from its first point), every point
judged as the newest (``walk_forward``, what backtests and day-by-day checks do: one model fit per
point), and a newest-point check (a scan) when that point is fine and when it is a spike. Lazy
and eager must give the same verdicts. CPU seconds are reported too: the machine is shared.

    python3 bench/compositions.py            # writes bench/results/compositions.json
    python3 bench/compositions.py --quick    # walk-forward over the last 60 points, no JSON
"""

from __future__ import annotations

import argparse
import os
import time
from collections.abc import Callable
from functools import partial
from typing import Any

import numpy as np
from common import print_table, write_results  # puts the repository root first on sys.path
from numpy.typing import ArrayLike

from detectors import (
    AllOf,
    Evaluation,
    OnlineNormal,
    RelativeRateOfChange,
    RobustMAD,
    SeasonalArima,
    as_detector,
    walk_forward,
)
from detectors.base import Interval, as_values, resolve_interval
from detectors.evaluation import INSUFFICIENT, MISSING

POINTS = 365


class EagerAllOf(AllOf):
    """``AllOf`` as it was: every member evaluated on every point of the interval."""

    def evaluate(self, values: ArrayLike, interval: Interval | None = None) -> Evaluation:
        x = as_values(values)
        start, end = resolve_interval(interval, len(x))
        members = [as_detector(d).evaluate(x, (start, end)) for d in self.detectors]
        codes = self._combine(np.stack([m.codes for m in members]))
        codes[np.isnan(x[start:end])] = MISSING
        lower = self.lower_of.reduce(np.stack([m.lower for m in members]))
        upper = self.upper_of.reduce(np.stack([m.upper for m in members]))
        confidence = self.lower_of.reduce(np.stack([m.confidence for m in members]))
        confidence[codes >= INSUFFICIENT] = np.nan

        def describe(k: int) -> str:
            return f"[{self.name}] " + " | ".join(m.detail[k] for m in members if m.detail[k])

        return Evaluation.build(
            self.name, start, x[start:end], lower, upper, codes, confidence, describe
        )


def weekly_series(seed: int = 0) -> np.ndarray:
    """Level 100, a weekly cycle of +-5, noise sd 2, 1% spikes of +20."""
    rng = np.random.default_rng(seed)
    values = 100 + 5 * np.sin(2 * np.pi * np.arange(POINTS) / 7) + rng.normal(0, 2, POINTS)
    values[rng.random(POINTS) < 0.01] += 20
    values[-1] = 100 + 5 * np.sin(2 * np.pi * (POINTS - 1) / 7)  # a fine newest point
    return values


def spike(x: np.ndarray) -> np.ndarray:
    """``x`` with its newest point 2.5 times as high: flagged by both cheap rules."""
    spiked = x.copy()
    spiked[-1] *= 2.5
    return spiked


def timed(run: Callable[[], Evaluation], repeat: int) -> tuple[float, float, Evaluation]:
    """Best wall and process CPU seconds of ``repeat`` runs (CPU too: the machine is shared)."""
    wall = cpu = float("inf")
    result = None
    for _ in range(repeat):
        w, c = time.perf_counter(), time.process_time()
        result = run()
        wall, cpu = min(wall, time.perf_counter() - w), min(cpu, time.process_time() - c)
    assert result is not None
    return wall, cpu, result


def cases(x: np.ndarray, first: int) -> dict[str, tuple[Callable[[Any], Evaluation], int]]:
    """``{case: (run(detector) -> Evaluation, repeat)}``."""
    spiked, n = spike(x), len(x)
    return {
        "evaluate, interval (28, 365)": (lambda d: d.evaluate(x, (28, n)), 3),
        "evaluate, whole series (0, 365)": (lambda d: d.evaluate(x), 3),
        f"walk-forward, points {first}-{n - 1} newest": (lambda d: walk_forward(d, x, first), 1),
        "newest point, fine": (lambda d: d.evaluate(x, (n - 1, n)), 5),
        "newest point, spike": (lambda d: d.evaluate(spiked, (n - 1, n)), 5),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="shorter walk-forward, no JSON")
    args = parser.parse_args()
    x = weekly_series()
    arima = SeasonalArima(seasonal_order=(0, 1, 1, 7))
    compositions = {
        "AllOf(OnlineNormal(), SeasonalArima)": (OnlineNormal(), arima),
        "AllOf(RelativeRateOfChange(0.5, 2, order=7), SeasonalArima)": (
            RelativeRateOfChange(0.5, 2.0, order=7),
            arima,
        ),
    }
    arima.evaluate(x, (300, 301))  # import statsmodels and warm up before timing
    load_before = os.getloadavg()[0]
    rows: list[dict[str, Any]] = []
    for label, members in compositions.items():
        for case, (run, repeat) in cases(x, POINTS - 60 if args.quick else 0).items():
            eager = timed(partial(run, EagerAllOf(*members)), repeat)
            lazy = timed(partial(run, AllOf(*members)), repeat)
            assert (eager[2].codes == lazy[2].codes).all(), f"{label}, {case}: verdicts differ"
            first = as_detector(members[0])
            asked = _second_member_points(first, x, case, lazy[2])
            rows.append({
                "composition": label, "case": case, "points": len(lazy[2]),
                "second_member_points": asked, "anomalies": int((lazy[2].codes == 1).sum()),
                "eager_seconds": eager[0], "eager_cpu_seconds": eager[1],
                "lazy_seconds": lazy[0], "lazy_cpu_seconds": lazy[1],
                "speedup": eager[0] / lazy[0], "cpu_speedup": eager[1] / max(lazy[1], 1e-9),
            })  # fmt: skip
            print(f"{label}, {case}: eager {eager[0]:.3f} s, lazy {lazy[0]:.3f} s", flush=True)
    strategy = member_strategy(x)
    load_after = os.getloadavg()[0]
    print()
    print_table(
        ["composition", "case", "points", "undecided", "eager s", "lazy s", "speedup",
         "eager cpu s", "lazy cpu s"],
        [[r["composition"], r["case"], r["points"], r["second_member_points"],
          f"{r['eager_seconds']:.3f}", f"{r['lazy_seconds']:.3f}", f"{r['speedup']:.1f}x",
          f"{r['eager_cpu_seconds']:.3f}", f"{r['lazy_cpu_seconds']:.3f}"] for r in rows],
    )  # fmt: skip
    print(f"load average (1 min): {load_before:.1f} before, {load_after:.1f} after")
    if not args.quick:
        payload = {
            "load_average": [load_before, load_after],
            "results": rows,
            "bounds_member_span_vs_per_point": strategy,
        }
        print(f"wrote {write_results('compositions', payload)}")


def member_strategy(x: np.ndarray) -> list[dict[str, float]]:
    """CPU ms for a bounds-only member (``RobustMAD``) judging a fraction of the 300 points of
    a span: one call over the span, or one call per point (``compose.SPARSE`` picks between)."""
    detector, span = RobustMAD(), np.arange(65, POINTS)
    rng = np.random.default_rng(1)
    rows = []
    for fraction in (0.05, 0.25, 0.5, 0.75, 1.0):
        points = np.sort(rng.choice(span[1:-1], int(fraction * len(span)) - 2, replace=False))
        points = np.r_[span[0], points, span[-1]].tolist()
        whole = timed(lambda: detector.evaluate(x, (span[0], POINTS)), 3)[1]
        single = timed(lambda p=points: [detector.evaluate(x, (i, i + 1)) for i in p][-1], 3)[1]
        rows.append({"fraction": fraction, "span_ms": 1000 * whole, "per_point_ms": 1000 * single})
    print("\nRobustMAD member, share of the span undecided: CPU ms for the span / point by point")
    for r in rows:
        print(f"  {r['fraction']:4.0%}: {r['span_ms']:6.1f} / {r['per_point_ms']:6.1f}")
    return rows


def _second_member_points(first: Any, x: np.ndarray, case: str, lazy: Evaluation) -> int:
    """On how many points the lazy composition asked its second member: those the first did
    not find fine (and that are not missing), each newest when the case walks forward."""
    if case.startswith("walk-forward"):
        codes = walk_forward(first, x, int(lazy.index[0])).codes
    elif case == "newest point, spike":
        codes = first.evaluate(spike(x), (len(x) - 1, len(x))).codes
    else:
        codes = first.evaluate(x, (int(lazy.index[0]), int(lazy.index[-1]) + 1)).codes
    return int(((codes != 0) & (codes != MISSING)).sum())


if __name__ == "__main__":
    main()

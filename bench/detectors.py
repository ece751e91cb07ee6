"""Benchmark: per-group detection over many metric histories, ours vs a plain per-group loop.

10,000 groups x 365 daily points (a year of one metric per segment). For each detector the
vectorised ``detect_frame`` and the loop a user would write with the index-based API
(``groupby`` -> sort -> ``detector.detect``) run side by side in one process, on one core, and
must flag the same points. ``Adaptive`` also runs on the same groups with every value repeated
from day 200 on (the stale-value test's worst case: an improbable run in every group).
SeasonalArima runs on 1,000 groups, locally and fanned out over Spark (``local[2]``) with
``applyInPandas``.

``--holt-winters-band`` instead measures the quality of HoltWinters' band widths on the weekly
series of ``bench/data`` (daily row and distinct counts, not new datasets) with the machinery
of ``bench/detection_quality.py`` (walk-forward windows of 30 points, at most 150 points of
history) and stores it under ``holt_winters_band`` in the same JSON file.

    python3 bench/detectors.py                 # full size, writes bench/results/detectors.json
    python3 bench/detectors.py --quick         # 1,000 groups, 100 SARIMA groups, no JSON
    python3 bench/detectors.py --holt-winters-band
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import replace
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

# This file is named like the package it measures: put the repository, not bench/, first.
sys.path[0] = str(Path(__file__).resolve().parents[1])

from detectors import (  # noqa: E402
    AbsoluteChange,
    Adaptive,
    HoltWinters,
    OnlineNormal,
    RelativeRateOfChange,
    SeasonalArima,
    SimpleThreshold,
    detect_frame,
)

RESULTS = Path(__file__).resolve().parent / "results" / "detectors.json"
POINTS = 365


def make_frame(groups: int, points: int, seed: int = 0) -> pd.DataFrame:
    """Daily metric histories: per-group level and noise, a weekly cycle, 1% spikes."""
    rng = np.random.default_rng(seed)
    level = rng.uniform(50, 150, groups)[:, None]
    noise = rng.uniform(1, 5, groups)[:, None]
    weekly = 5 * np.sin(2 * np.pi * np.arange(points) / 7)[None, :]
    values = level + weekly + rng.normal(0, 1, (groups, points)) * noise
    spikes = rng.random((groups, points)) < 0.01
    values[spikes] += 10 * noise.repeat(points, axis=1)[spikes]
    names = np.array([f"group-{g:05d}" for g in range(groups)], dtype=object)
    return pd.DataFrame(
        {
            "group": names.repeat(points),
            "timestamp": np.tile(pd.date_range("2024-01-01", periods=points, freq="D"), groups),
            "value": values.ravel(),
        }
    )


FROZEN = "Adaptive, every group frozen"
FROZEN_FROM = 200


def frozen(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` with every group's value repeated from day ``FROZEN_FROM`` on: the worst case
    of the stale-value test (a long improbable run in every group)."""
    first = frame["timestamp"].min()
    day = (frame["timestamp"] - first).dt.days
    stuck_at = frame[day == FROZEN_FROM - 1].set_index("group")["value"]
    late = day >= FROZEN_FROM
    out = frame.copy()
    out.loc[late, "value"] = out.loc[late, "group"].map(stuck_at).to_numpy()
    return out


def timed(run: Callable[[], Any], repeat: int = 1) -> tuple[float, float, Any]:
    """Best wall-clock and process CPU seconds of ``repeat`` runs, and the last result.

    CPU seconds are reported too because this machine may be shared: under load the wall
    clock measures the neighbours as much as the code.
    """
    best_wall = best_cpu = float("inf")
    result = None
    for _ in range(repeat):
        wall, cpu = time.perf_counter(), time.process_time()
        result = run()
        best_wall = min(best_wall, time.perf_counter() - wall)
        best_cpu = min(best_cpu, time.process_time() - cpu)
    return best_wall, best_cpu, result


def plain_loop(frame: pd.DataFrame, detector: Any, newest_only: bool) -> set[tuple[str, int]]:
    """What a user writes with the index-based API: one detect call per group."""
    flagged = set()
    for key, group in frame.groupby("group", sort=True):
        values = group.sort_values("timestamp")["value"].to_numpy()
        n = len(values)
        for anomaly in detector.detect(values, (n - 1, n) if newest_only else (0, n)):
            flagged.add((str(key), anomaly.index))
    return flagged


def flagged_by_frame(result: pd.DataFrame) -> set[tuple[str, int]]:
    return set(zip(result["group"], result["history"].astype(int), strict=True))


def spark_fan_out(frame: pd.DataFrame, detector: Any) -> tuple[float, set[tuple[str, int]]] | None:
    """SARIMA over ``local[2]`` with applyInPandas; None when Spark cannot start here."""
    try:
        from pyspark.sql import SparkSession
    except ImportError:
        return None
    spark = (
        SparkSession.builder.master("local[2]")
        .config("spark.sql.shuffle.partitions", "2")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.sql.execution.arrow.pyspark.enabled", "true")
        .getOrCreate()
    )
    spark.sparkContext.setLogLevel("ERROR")
    try:
        sdf = spark.createDataFrame(frame).cache()
        sdf.count()  # load the data before timing; the timing is the detection
        seconds, _, rows = timed(
            lambda: detect_frame(sdf, detector, by="group", newest_only=True).collect()
        )
        return seconds, {(r["group"], int(r["history"])) for r in rows}
    finally:
        spark.stop()


def row(
    case: str,
    groups: int,
    anomalies: int,
    seconds: tuple[float, float | None],
    loop: tuple[float, float],
    target: float | None,
    unsorted: float | None = None,
) -> dict[str, Any]:
    """One result; ``seconds`` and ``loop`` are (wall, CPU) pairs."""
    return {
        "case": case,
        "groups": groups,
        "points": POINTS,
        "anomalies": anomalies,
        "seconds": seconds[0],
        "cpu_seconds": seconds[1],
        "seconds_unsorted_input": unsorted,
        "loop_seconds": loop[0],
        "loop_cpu_seconds": loop[1],
        "speedup": loop[0] / seconds[0],
        "target_seconds": target,
        "meets_target": None if target is None else seconds[0] < target,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small sizes, no JSON written")
    parser.add_argument("--no-spark", action="store_true", help="skip the Spark fan-out")
    parser.add_argument("--holt-winters-band", action="store_true", help="band quality only")
    parser.add_argument("--jobs", type=int, default=2, help="processes for --holt-winters-band")
    parser.add_argument(
        "--only", default="", help="only cases whose name holds this (the JSON keeps the rest)"
    )
    args = parser.parse_args()
    if args.holt_winters_band:
        holt_winters_band(args.jobs)
        return
    groups, arima_groups = (1_000, 100) if args.quick else (10_000, 1_000)
    frame = original = make_frame(groups, POINTS)
    shuffled = original_shuffled = frame.sample(frac=1.0, random_state=1).reset_index(drop=True)

    # Adaptive with the spacing given, so the index-based loop sees the same calendar.
    adaptive = Adaptive(spacing=86_400.0)
    cases: list[tuple[str, Any, bool, float | None]] = [
        ("Adaptive (default), newest point", adaptive, True, 2.0),
        ("Adaptive (default), full history", adaptive, False, None),
        (FROZEN + ", newest point", adaptive, True, None),
        (FROZEN + ", full history", adaptive, False, None),
        ("OnlineNormal, newest point", OnlineNormal(), True, 1.0),
        ("SimpleThreshold, newest point", SimpleThreshold(0, 160), True, 0.5),
        ("AbsoluteChange, newest point", AbsoluteChange(-25, 25), True, 0.5),
        ("RelativeRateOfChange, newest point", RelativeRateOfChange(0.7, 1.4), True, 0.5),
        ("OnlineNormal, full history", OnlineNormal(), False, 5.0),
        (
            "OnlineNormal (Deequ), full history",
            OnlineNormal(include_current_point=True),
            False,
            None,
        ),
    ]
    cases = [case for case in cases if args.only in case[0]]
    rows: list[dict[str, Any]] = []
    load_before = os.getloadavg()[0]
    for name, detector, newest_only, target in cases:
        if name.startswith(FROZEN):
            frame, shuffled = frozen(frame), frozen(shuffled)
        elif frame is not original:
            frame, shuffled = original, original_shuffled
        ours = timed(partial(detect_frame, frame, detector, "group", newest_only=newest_only), 3)
        unsorted = timed(
            partial(detect_frame, shuffled, detector, "group", newest_only=newest_only)
        )
        looped = frame if not isinstance(detector, Adaptive) else frame.iloc[: len(frame) // 10]
        loop = timed(partial(plain_loop, looped, detector, newest_only))
        if looped is not frame:  # one Python call per group is slow: 1 in 10 groups, scaled
            # Groups judged together share what their errors say about tails (20+ rows of one
            # age: the pooled predictive), so only the verdicts judged without sharing must equal
            # the loop's exactly.
            alone = replace(detector, share_tails=False)
            same = detect_frame(looped, alone, "group", newest_only=newest_only)
            assert flagged_by_frame(same) == loop[2], f"{name}: vectorised and loop disagree"
            loop = (loop[0] * 10, loop[1] * 10, loop[2])
        else:
            assert flagged_by_frame(ours[2]) == loop[2], f"{name}: vectorised and loop disagree"
        rows.append(row(name, groups, len(ours[2]), ours[:2], loop[:2], target, unsorted[0]))

    if args.only not in "SeasonalArima, newest point":
        finish(args, rows, load_before)
        return
    arima = SeasonalArima(seasonal_order=(0, 1, 1, 7))
    arima_frame = frame[frame["group"].isin(frame["group"].unique()[:arima_groups])]
    ours = timed(partial(detect_frame, arima_frame, arima, "group", newest_only=True))
    loop = timed(partial(plain_loop, arima_frame, arima, True))
    assert flagged_by_frame(ours[2]) == loop[2], "SeasonalArima: detect_frame and loop disagree"
    case = "SeasonalArima, newest point, 1 process"
    rows.append(row(case, arima_groups, len(ours[2]), ours[:2], loop[:2], 60.0))
    fanned = None if args.no_spark else spark_fan_out(arima_frame, arima)
    if fanned is not None:
        seconds, flagged = fanned
        assert flagged == loop[2], "SeasonalArima: Spark fan-out and loop disagree"
        case = "SeasonalArima, newest point, Spark local[2]"
        rows.append(row(case, arima_groups, len(flagged), (seconds, None), loop[:2], 60.0))
    finish(args, rows, load_before)


def finish(args: argparse.Namespace, rows: list[dict[str, Any]], load_before: float) -> None:
    """Print the table and, unless --quick, write the JSON (with --only: the other rows kept)."""
    load_after = os.getloadavg()[0]
    print_table(rows)
    cpus = os.cpu_count()
    print(f"load average (1 min): {load_before:.1f} before, {load_after:.1f} after; {cpus} cpus")
    if not args.quick:
        environment = {
            "python": platform.python_version(),
            "numpy": np.__version__,
            "pandas": pd.__version__,
            "cpus": os.cpu_count(),
            "machine": platform.machine(),
            "load_average_before": load_before,
            "load_average_after": load_after,
        }
        RESULTS.parent.mkdir(parents=True, exist_ok=True)
        previous = json.loads(RESULTS.read_text()) if RESULTS.exists() else {}
        kept = {k: v for k, v in previous.items() if k == "holt_winters_band"}  # other mode's
        if args.only:  # a partial run: its rows carry their own machine state
            new = {r["case"]: {**r, "environment": environment} for r in rows}
            old = previous.get("results", [])
            rows = [new.pop(r["case"], r) for r in old] + list(new.values())
            environment = previous.get("environment", environment)
        report = {"environment": environment, "results": rows, **kept}
        RESULTS.write_text(json.dumps(report, indent=2) + "\n")
        print(f"\nwrote {RESULTS}")


def print_table(rows: list[dict[str, Any]]) -> None:
    header = (
        f"{'case':44} {'groups':>6} {'ours s':>7} {'cpu s':>7} {'unsorted':>8} {'loop s':>7}"
        f" {'loop cpu':>8} {'speedup':>8} {'target':>7}"
    )
    print(header)
    print("-" * len(header))
    for r in rows:
        target = "" if r["target_seconds"] is None else f"<{r['target_seconds']:g}s"
        verdict = "" if r["meets_target"] is None else ("ok" if r["meets_target"] else "MISSED")
        print(
            f"{r['case']:44} {r['groups']:>6} {r['seconds']:>7.3f} {_number(r['cpu_seconds']):>7}"
            f" {_number(r['seconds_unsorted_input']):>8} {r['loop_seconds']:>7.2f}"
            f" {r['loop_cpu_seconds']:>8.2f} {r['speedup']:>7.1f}x {target:>7} {verdict}"
        )


# Band widths compared: Deequ's (the default) and k standard deviations of the residuals.
BANDS: dict[str, float | None] = {
    "HoltWinters(period=7)": None,
    "HoltWinters(period=7, deviation_factor=2)": 2.0,
    "HoltWinters(period=7, deviation_factor=3)": 3.0,
    "HoltWinters(period=7, deviation_factor=4)": 4.0,
}


def _quality() -> Any:
    sys.path.append(str(Path(__file__).resolve().parent))  # after the repository root
    import detection_quality

    return detection_quality


def _band_replay(ids: list[int]) -> list[Any]:
    """``detection_quality.replay``'s records for the HoltWinters bands (and OnlineNormal())."""
    from anomaly.backtest import backtest

    quality = _quality()
    records = []
    for k in ids:
        one, since = quality._window(quality._dataset()[k])
        candidates = {name: HoltWinters(7, factor) for name, factor in BANDS.items()}
        for name, detector in {**candidates, "OnlineNormal()": OnlineNormal()}.items():
            cpu = time.process_time()
            result = backtest(one, {name: detector}, since=since)
            seconds = time.process_time() - cpu
            ev = result.evaluations[(name, 0)]
            incidents = [i for i in one.info["incidents"] if i["first"] >= ev.index[0]]
            found = [quality._found(ev, i) for i in incidents]
            records.append((k, name, result.score(name), found, seconds))
    return records


def holt_winters_band(jobs: int) -> None:
    quality = _quality()
    series = quality._dataset()
    ids = [k for k, one in enumerate(series)
           if one.info["frequency"] == "daily" and not one.info["short"]
           and one.info["kind"] in ("row_count", "distinct")]  # fmt: skip
    started = time.perf_counter()
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        chunks = [ids[j :: jobs * 4] for j in range(jobs * 4)]
        records = [r for part in pool.map(_band_replay, chunks) for r in part]
    names = [*BANDS, "OnlineNormal()"]
    report: dict[str, Any] = {"series": len(ids), "seconds": time.perf_counter() - started}
    for split in ("dev", "test", "all"):
        chosen = [r for r in records if split == "all" or series[r[0]].info["split"] == split]
        rows = quality.summarise(chosen, series)
        count = len({r[0] for r in chosen})
        print(f"\n{split}: {count} weekly series, windows of 30 points")
        quality.print_table(quality.HEADERS, quality.table(rows, names))
        report[split] = rows
    previous = json.loads(RESULTS.read_text()) if RESULTS.exists() else {}
    RESULTS.write_text(json.dumps({**previous, "holt_winters_band": report}, indent=2) + "\n")
    print(f"\n{report['seconds']:.0f} s; wrote {RESULTS}")


def _number(value: float | None) -> str:
    return "" if value is None else f"{value:.3f}"


if __name__ == "__main__":
    main()

"""Benchmark: the default detector's 10k-group newest-point check, this checkout's code against
another revision's (default: ``main``), side by side, and proof that both judge alike.

The 10,000 groups x 365 daily points of ``bench/detectors.py``, judged with ``Adaptive()`` at
the newest point by ``detect_frame``. The machine may be shared, so the two revisions run
alternately in fresh processes (``--rounds``; each the best of three calls) and their ratio is
what to read. The same processes also judge a few hundred varied series (NaN gaps, constant
runs, short histories, heavy tails, small counts, shares, cumulative sizes, level shifts, unit
changes, 1e300 and inf) with six settings of ``Adaptive``, in one call (shared tails) and with
the index API, whole histories and newest points: every output column of the two revisions
must be equal, bit for bit.

    python3 bench/adaptive_speed.py                  # writes bench/results/adaptive_speed.json
    python3 bench/adaptive_speed.py --base HEAD~5 --rounds 2
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import pickle
import subprocess
import sys
import tarfile
import tempfile
import time
from io import BytesIO
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

HERE = Path(__file__).resolve()
OURS = HERE.parents[1]
GROUPS, POINTS, REPEAT = 10_000, 365, 3


def varied_series(count: int = 300, seed: int = 0, length: int = 0) -> list[np.ndarray]:
    """Series of 3 to 200 points (or all of ``length``), 15 kinds, each with what makes
    detectors stumble."""
    rng = np.random.default_rng(seed)
    bank = []
    for k in range(count):
        n = length or int(rng.choice([3, 6, 9, 14, 21, 30, 45, 60, 90, 120, 200]))
        t = np.arange(n)
        kind = k % 15
        if kind == 0:
            x = rng.normal(100, 5, n)
        elif kind == 1:
            x = 50 + rng.standard_t(3, n) * 2  # heavy tails
        elif kind == 2:
            x = rng.poisson(3, n).astype(float)  # small counts: many repeats
        elif kind == 3:
            x = np.clip(rng.normal(0.3, 0.1, n), 0, 1)  # a share
        elif kind == 4:
            x = np.cumsum(rng.uniform(90, 110, n)) + 1000  # a cumulative size
        elif kind == 5:
            x = rng.normal(20, 2, n).round(2)
            x[n // 2 :] = x[n // 2]  # a stale source
        elif kind == 6:
            x = np.full(n, 7.0)  # constant
        elif kind == 7:
            x = 1000 + 50 * np.sin(2 * np.pi * t / 7) + rng.normal(0, 10, n)
            x[rng.random(n) < 0.1] = np.nan  # gaps
        elif kind == 8:
            x = rng.normal(100, 5, n)
            x[n * 2 // 3 :] += 40  # a level shift
        elif kind == 9:
            x = rng.lognormal(3, 1, n)
        elif kind == 10:
            x = np.where(rng.random(n) < 0.8, 1.0, rng.uniform(0.9, 1, n))  # a completeness
        elif kind == 11:
            x = rng.normal(0, 1, n) + 0.05 * t
            x[-1] = 1e300 if n > 10 else x[-1]
        elif kind == 12:
            x = rng.poisson(200, n).astype(float)
            x[rng.random(n) < 0.05] = 0.0  # lost loads
        elif kind == 13:
            x = 500 + 10 * t + rng.normal(0, 20, n)
            if n > 20:
                x[n - 5] = np.inf
        else:
            x = rng.normal(100, 1, n)
            x[: n // 3] *= 60  # a unit change
        bank.append(x)
    return bank


def _frame(bank: list[np.ndarray], stagger: bool) -> pd.DataFrame:
    parts = []
    for g, x in enumerate(bank):
        start = pd.Timestamp("2024-01-01") + pd.Timedelta(days=g % 5 if stagger else 0)
        times = pd.date_range(start, periods=len(x), freq="D")
        parts.append(pd.DataFrame({"group": f"g{g:04d}", "timestamp": times, "value": x}))
    return pd.concat(parts, ignore_index=True)


def _bench_frame(root: Path, groups: int) -> pd.DataFrame:
    """``bench/detectors.py``'s frame (loaded from this checkout, the package from ``root``)."""
    spec = importlib.util.spec_from_file_location("bench_detectors", HERE.parent / "detectors.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    first = sys.path[0]
    spec.loader.exec_module(module)  # it puts its own root first on sys.path: undo that
    sys.path[0] = first
    return module.make_frame(groups, POINTS)


def worker(root: Path, out: Path, identity: bool) -> None:
    """Time the newest-point check with the package at ``root``; with ``identity``, also keep
    every output on the varied series."""
    sys.path.insert(0, str(root))
    import detectors
    from detectors import Adaptive, detect_frame

    assert Path(detectors.__file__).resolve().is_relative_to(root), detectors.__file__
    frame = _bench_frame(root, GROUPS)
    detector = Adaptive(spacing=86_400.0)
    detect_frame(frame, detector, "group", newest_only=True)  # compiles and caches the kernels
    wall, cpu = [], []
    for _ in range(REPEAT):
        start, clock = time.perf_counter(), time.process_time()
        detect_frame(frame, detector, "group", newest_only=True)
        wall.append(time.perf_counter() - start)
        cpu.append(time.process_time() - clock)
    outputs: dict[Any, Any] = {}
    if identity:
        bank = varied_series()
        settings = {
            "default": Adaptive(),
            "alone": Adaptive(share_tails=False),
            "share": Adaptive(domain=(0.0, 1.0)),
            "upper": Adaptive(side="upper", false_alarm_rate=0.01),
            "lower, rare": Adaptive(side="lower", false_alarm_rate=1e-5),
            "season 7": Adaptive(season=7),
        }
        # Staggered and aligned starts; the young (three weeks, aligned) borrow scale floors.
        young = varied_series(150, seed=1, length=21)
        for case, data in (("staggered", _frame(bank, True)), ("aligned", _frame(bank, False)),
                           ("young", _frame(young, False))):  # fmt: skip
            for name, one in settings.items():
                for newest in (True, False):
                    outputs[(name, case, newest)] = detect_frame(
                        data, one, "group", newest_only=newest, anomalies_only=False
                    )
        for g, x in enumerate(bank[:60]):
            e = Adaptive().evaluate(x)
            outputs[("evaluate", g)] = pd.DataFrame(
                {"lower": e.lower, "upper": e.upper, "p": e.p_value, "detail": list(e.detail)}
            )
        small = _bench_frame(root, 2_000)
        outputs["bench, sorted"] = detect_frame(
            small, detector, "group", newest_only=True, anomalies_only=False
        )
        shuffled = small.sample(frac=1.0, random_state=1)
        outputs["bench, shuffled"] = detect_frame(
            shuffled, Adaptive(), "group", newest_only=True, anomalies_only=False
        )
    out.write_bytes(pickle.dumps({"wall": wall, "cpu": cpu, "outputs": outputs}))


def differences(base: dict[Any, Any], ours: dict[Any, Any]) -> tuple[int, int, float]:
    """(values compared, columns that differ, largest relative difference)."""
    assert base.keys() == ours.keys()
    compared, differ, worst = 0, 0, 0.0
    for key, frame in base.items():
        other = ours[key]
        assert list(frame.columns) == list(other.columns) and len(frame) == len(other), key
        for column in frame.columns:
            a, b = frame[column].to_numpy(), other[column].to_numpy()
            compared += len(a)
            if a.dtype.kind == "f":
                same = (a == b) | (np.isnan(a) & np.isnan(b))
                if not same.all():
                    differ += 1
                    with np.errstate(all="ignore"):
                        scale = np.maximum(np.abs(a[~same]), np.finfo(float).tiny)
                        worst = max(worst, float(np.nanmax(np.abs(a - b)[~same] / scale)))
            elif not np.array_equal(a, b):
                differ += 1
                worst = np.inf
    return compared, differ, worst


def checkout(ref: str, into: Path) -> None:
    archive = subprocess.run(["git", "-C", str(OURS), "archive", ref], check=True,
                             capture_output=True).stdout  # fmt: skip
    with tarfile.open(fileobj=BytesIO(archive)) as tar:
        tar.extractall(into, filter="data")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", default="main", help="the revision to compare with")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--worker", nargs=3, metavar=("ROOT", "OUT", "IDENTITY"),
                        help=argparse.SUPPRESS)  # fmt: skip
    args = parser.parse_args()
    if args.worker:
        root, out, identity = args.worker
        worker(Path(root).resolve(), Path(out), identity == "1")
        return
    asked = ["git", "-C", str(OURS), "rev-parse", "--short", args.base]
    revision = subprocess.run(asked, check=True, capture_output=True, text=True).stdout.strip()
    load_before = os.getloadavg()[0]
    runs: dict[str, list[dict[str, Any]]] = {"base": [], "ours": []}
    with tempfile.TemporaryDirectory() as temporary:
        base_root = Path(temporary) / "base"
        checkout(revision, base_root)
        roots = {"base": base_root, "ours": OURS}
        for r in range(args.rounds):
            for side, root in roots.items():
                out = Path(temporary) / f"{side}-{r}.pickle"
                command = [sys.executable, str(HERE), "--worker", str(root), str(out),
                           "1" if r == 0 else "0"]  # fmt: skip
                subprocess.run(command, check=True, env={**os.environ, "PYTHONPATH": str(root)})
                runs[side].append(pickle.loads(out.read_bytes()))
                print(f"round {r + 1} {side:4}: best {min(runs[side][-1]['wall']):.3f} s")
    compared, differ, worst = differences(runs["base"][0]["outputs"], runs["ours"][0]["outputs"])
    best = {side: min(min(run["wall"]) for run in done) for side, done in runs.items()}
    cpu = {side: min(min(run["cpu"]) for run in done) for side, done in runs.items()}
    paired = [min(o["wall"]) / min(b["wall"]) for b, o in zip(runs["base"], runs["ours"],
                                                              strict=True)]  # fmt: skip
    load_after = os.getloadavg()[0]
    print(f"\n{GROUPS:,} groups x {POINTS} points, Adaptive(), newest point (best of "
          f"{args.rounds} x {REPEAT}): {args.base} ({revision}) {best['base']:.3f} s, this "
          f"checkout {best['ours']:.3f} s, ratio {best['ours'] / best['base']:.2f} "
          f"(per round {', '.join(f'{p:.2f}' for p in paired)})")  # fmt: skip
    print(f"CPU seconds: {cpu['base']:.3f} vs {cpu['ours']:.3f}")
    print(f"identity: {compared:,} values compared, {differ} columns differ, "
          f"largest relative difference {worst:g}")  # fmt: skip
    print(f"load average (1 min): {load_before:.1f} before, {load_after:.1f} after")
    sys.path.insert(0, str(HERE.parent))
    from common import write_results

    path = write_results("adaptive_speed", {
        "case": f"Adaptive(), {GROUPS} groups x {POINTS} daily points, newest point",
        "base": {"ref": args.base, "commit": revision, "seconds": best["base"],
                 "cpu_seconds": cpu["base"], "rounds": [r["wall"] for r in runs["base"]]},
        "ours": {"seconds": best["ours"], "cpu_seconds": cpu["ours"],
                 "rounds": [r["wall"] for r in runs["ours"]]},
        "ratio": best["ours"] / best["base"],
        "ratio_per_round": paired,
        "identity": {"values_compared": compared, "columns_differing": differ,
                     "largest_relative_difference": worst},
        "load_average": [load_before, load_after],
    })  # fmt: skip
    print(f"wrote {path}")
    if differ:
        raise SystemExit(f"{differ} output columns differ from {args.base}'s")


if __name__ == "__main__":
    main()

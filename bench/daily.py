"""Detection on daily, short histories: operating curves of ``Adaptive`` and the peers' rules at
matched false-alert rates (``bench/data/daily.py`` describes the series).

Every detector is replayed walk-forward with ``anomaly.backtest`` from the 7th point of each
series (each point judged only on the points before it, as a scheduled check would), once per
sensitivity of its sweep (``SPECS``). For each family and overall, and each operating point:
false alerts per 100 clean checks (alerts on points not labelled as an incident, over those
points; holidays and one-off events count as clean) and incident recall (an incident is found
when any of its labelled points alerts: ``anomaly/backtest/scoring.py``). **Recall at a
matched false-alert rate** ``r`` is the best recall among the sweep's operating points with at
most ``r`` false alerts per 100 clean checks (no interpolation; a detector with none that
quiet gets 0, the recall of never alerting).

Tuning a detector: score a candidate on the development split only with
``bench/daily_candidate.py`` (``evaluate``). Nobody looks at the test split while choosing
parameters: it is run by ``python3 bench/detection_quality.py --daily`` for the report.
"""

from __future__ import annotations

import math
import multiprocessing
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from typing import Any

import common  # noqa: F401  (the repository root first on sys.path: bench/ shadows packages)
from data.daily import FIRST_JUDGED, SERIES_PER_FAMILY, series
from peers import DQOpsPercentile, SodaProphet, ZScore

from anomaly.backtest import Score, backtest
from anomaly.backtest.curve import DEVIATIONS, RATES
from detectors import Adaptive, OnlineNormal, RobustMAD
from detectors.evaluation import ANOMALY

FA_TARGETS = (0.05, 0.1, 0.3, 1.0)
RATE_KEYS = [f"{t:g}" for t in FA_TARGETS]
"""The matched false-alert rates as the JSON and the tables name them."""
"""False alerts per 100 clean checks at which recall is compared."""
FAR_LEVELS = RATES  # the same sweeps as ``anomaly backtest --curve``
SD_LEVELS = DEVIATIONS
DOMAINS = {
    "row_count": (0.0, math.inf),
    "distinct_count": (0.0, math.inf),
    "trend_weekly": (0.0, math.inf),
    "completeness": (0.0, 1.0),
    "share": (0.0, 1.0),
}
"""The domain a scan tells the product's detector for each kind of metric (a scan takes it from
the analyzer: ``anomaly/metric_domain.py``); the peers' rules have no such setting."""
PERCENT_LEVELS = (10.0, 5.0, 2.0, 1.0, 0.5, 0.1, 0.01, 1e-3, 1e-5, 1e-8)
WIDTH_LEVELS = (0.8, 0.9, 0.95, 0.98, 0.99, 0.995, 0.999)
PROPHET_EVERY = 120
"""Prophet fits a model per check (0.2-0.7 s on a quiet core, several seconds on a busy one):
it runs on 1 in ``PROPHET_EVERY`` test series, all their judged points, next to every other
detector on exactly the same series. 120 is what a contended 2-core machine finished; a quiet
one can afford 20."""


@dataclass(frozen=True)
class Spec:
    """A detector's sweep: ``make(level)`` for each level; ``defaults`` are its named operating
    points (the first is the one a user gets); ``peer`` says it is a baseline."""

    make: Callable[[Any], Any]
    levels: Sequence[Any]
    defaults: dict[str, Any]
    peer: bool = True
    slow: bool = False
    label: Callable[[Any], str] = field(default=lambda level: f"{level:g}")


def _prophet(level: Any) -> SodaProphet:
    width, kind = level
    return SodaProphet(interval_width=width, level=kind)


DEFAULT = "Adaptive()"
HOLIDAYS = "Adaptive(holidays='US')"
SPECS: dict[str, Spec] = {
    DEFAULT: Spec(lambda r: Adaptive(false_alarm_rate=r), FAR_LEVELS, {"default": 0.001}, False),
    # Opt-in, not the default: a user who tells the detector the data's country (docs/adaptive.md).
    HOLIDAYS: Spec(
        lambda r: Adaptive(false_alarm_rate=r, holidays="US"), FAR_LEVELS, {"default": 0.001}, False
    ),
    "OnlineNormal()": Spec(lambda k: OnlineNormal(k, k), SD_LEVELS, {"default": 3.0}, False),
    "Elementary z-score (judged day in window)": Spec(
        lambda z: ZScore(z), SD_LEVELS, {"sensitivity 3": 3.0}
    ),
    "14-day rolling z-score": Spec(
        lambda z: ZScore(z, include_current=False), SD_LEVELS, {"3 sd": 3.0}
    ),
    "DQOps percentile (30 days)": Spec(
        lambda p: DQOpsPercentile(p), PERCENT_LEVELS, {"warning 1%": 1.0, "fatal 0.1%": 0.1}
    ),
    "Deequ OnlineNormal (exact)": Spec(
        lambda k: OnlineNormal(k, k, include_current_point=True), SD_LEVELS, {"3 sd": 3.0}
    ),
    "rolling median/MAD (14 days)": Spec(
        lambda k: RobustMAD(k, k, window=14, min_history=FIRST_JUDGED), SD_LEVELS, {"3.5": 3.5}
    ),
    "Soda Prophet": Spec(
        _prophet,
        [*((w, "warn") for w in WIDTH_LEVELS), (0.999, "fail")],
        {"warn": (0.999, "warn"), "fail": (0.999, "fail")},
        slow=True,
        label=lambda level: f"{level[0]:g} {level[1]}",
    ),
}

_EXTRA: dict[str, Spec] = {}  # candidates of evaluate(), inherited by forked workers


def _spec(name: str) -> Spec:
    return _EXTRA[name] if name in _EXTRA else SPECS[name]


def replay(task: tuple[str, int, list[int], list[str]]) -> list[Any]:
    """``(series id, spec, level label, Score, [(incident type, subtle, found)])`` for each
    series of the task and each level of each spec named."""
    split, per_family, ids, names = task
    data = series(split, per_family)
    records = []
    for k in ids:
        one = data[k]
        domain = DOMAINS.get(one.info["family"].rsplit("/", 1)[-1])
        named = {
            (n, spec.label(level)): bound(spec.make(level), domain)
            for n in names
            for spec in [_spec(n)]
            for level in spec.levels
        }
        result = backtest(
            one, {f"{n}|{lab}": d for (n, lab), d in named.items()}, since=one.times[FIRST_JUDGED]
        )
        for n, lab in named:
            ev = result.evaluations[(f"{n}|{lab}", 0)]
            alerts = set(ev.index[ev.codes == ANOMALY].tolist())
            found = [
                (i["type"], i["subtle"], any(p in alerts for p in range(i["first"], i["last"] + 1)))
                for i in one.info["incidents"]
            ]
            records.append((k, n, lab, result.score(f"{n}|{lab}"), found))
    return records


def bound(detector: Any, domain: tuple[float, float] | None) -> Any:
    """``detector`` told its metric's domain, as a scan tells it, where it takes one."""
    if domain is None or not hasattr(detector, "with_domain"):
        return detector
    return detector.with_domain(*domain)


def run(split: str, names: list[str], ids: list[int], jobs: int, per_family: int) -> list[Any]:
    """Replay ``names`` on the series ``ids`` of ``split`` in ``jobs`` forked workers."""
    series(split, per_family)  # built once here, inherited by the workers
    chunks = [(split, per_family, ids[j :: jobs * 8], names) for j in range(jobs * 8)]
    if jobs == 1:
        return [r for chunk in chunks for r in replay(chunk)]
    with ProcessPoolExecutor(jobs, mp_context=multiprocessing.get_context("fork")) as pool:
        return [r for part in pool.map(replay, chunks) for r in part]


def curves(records: list[Any], split: str, per_family: int) -> dict[str, Any]:
    """Per spec, per family (and ``all``): one row per level with false alerts per 100 clean
    checks, recall, precision and F1; and recall of subtle and obvious incidents."""
    data = series(split, per_family)
    sums: dict[tuple[str, str, str], Score] = {}
    kinds: dict[tuple[str, str, str, bool], list[int]] = {}
    for k, name, lab, score, found in records:
        for family in (data[k].info["family"], "all"):
            key = (name, lab, family)
            sums[key] = sums.get(key, Score()) + score
            for _, subtle, hit in found:
                kinds.setdefault((*key, subtle), [0, 0])
                kinds[(*key, subtle)][0] += hit
                kinds[(*key, subtle)][1] += 1
    out: dict[str, Any] = {}
    for (name, lab, family), s in sums.items():
        subtle, obvious = (
            kinds.get((name, lab, family, True)),
            kinds.get((name, lab, family, False)),
        )
        out.setdefault(name, {}).setdefault(family, []).append(
            {
                "level": lab,
                **_point(s),
                "recall_subtle": subtle[0] / subtle[1] if subtle else None,
                "recall_obvious": obvious[0] / obvious[1] if obvious else None,
            }
        )
    return out


def pooled(parts: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """The curves of several draws (``curves`` outputs) as those of one set holding all their
    series: each operating point's counts summed, its rates computed from the sums."""
    sums: dict[str, dict[str, dict[str, Score]]] = {}
    for part in parts:
        for name, families in part.items():
            for family, rows in families.items():
                into = sums.setdefault(name, {}).setdefault(family, {})
                for r in rows:
                    into[r["level"]] = into.get(r["level"], Score()) + Score(
                        incidents=r["incidents"],
                        detected=r["detected"],
                        normal_points=r["clean_checks"],
                        false_alerts=r["false_alerts"],
                        true_alerts=r["true_alerts"],
                    )
    return {
        name: {
            family: [{"level": level, **_point(s)} for level, s in levels.items()]
            for family, levels in families.items()
        }
        for name, families in sums.items()
    }


def _point(s: Score) -> dict[str, Any]:
    """One operating point's rates and the counts they come from (``pooled`` sums the counts)."""
    return {
        "fa_per_100": 100 * _nan0(s.false_alert_rate),
        "recall": _nan0(s.recall),
        "precision": s.precision,
        "f1": _nan0(s.f1),
        "incidents": s.incidents,
        "detected": s.detected,
        "clean_checks": s.normal_points,
        "false_alerts": s.false_alerts,
        "true_alerts": s.true_alerts,
    }


def _nan0(value: float) -> float:
    return 0.0 if value != value else float(value)


def matched(rows: list[dict[str, Any]], target: float) -> tuple[float, str | None]:
    """Best recall (and its level) among operating points with at most ``target`` false alerts
    per 100 clean checks; ``(0.0, None)`` when none is that quiet."""
    quiet = [r for r in rows if r["fa_per_100"] <= target + 1e-12]
    if not quiet:
        return 0.0, None
    best = max(quiet, key=lambda r: (r["recall"], -r["fa_per_100"]))
    return best["recall"], best["level"]


def summarise(found: dict[str, Any], names: Sequence[str]) -> dict[str, Any]:
    """Per spec and family: recall at each matched rate, F1 at the default operating points and
    the best F1 over the sweep."""
    out: dict[str, Any] = {}
    for name in names:
        spec = _spec(name)
        for family, rows in found.get(name, {}).items():
            by_level = {r["level"]: r for r in rows}
            best = max(rows, key=lambda r: r["f1"])
            out.setdefault(name, {})[family] = {
                "recall_at": {
                    f"{t:g}": dict(zip(("recall", "level"), matched(rows, t), strict=True))
                    for t in FA_TARGETS
                },
                "defaults": {
                    point: {
                        key: by_level[spec.label(level)][key]
                        for key in ("f1", "recall", "fa_per_100", "precision")
                    }
                    for point, level in spec.defaults.items()
                },
                "best_f1": {"f1": best["f1"], "level": best["level"]},
            }
    return out


def measure(
    split: str,
    names: list[str],
    jobs: int = 2,
    per_family: int = SERIES_PER_FAMILY,
    ids: list[int] | None = None,
) -> dict[str, Any]:
    """Curves and summaries of ``names`` on ``split`` (all its series, or ``ids``)."""
    chosen = list(range(len(series(split, per_family)))) if ids is None else ids
    started = time.perf_counter()
    records = run(split, names, chosen, jobs, per_family)
    found = curves(records, split, per_family)
    return {
        "curves": found,
        "summary": summarise(found, names),
        "series": len(chosen),
        "seconds": round(time.perf_counter() - started, 1),
    }


def peers(names: list[str] | None = None) -> list[str]:
    return [n for n in (names or list(SPECS)) if SPECS[n].peer]

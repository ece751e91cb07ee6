"""Operating curves: a detector's incident recall at matched false-alert rates.

A detector is replayed once per sensitivity of its sweep (``SWEEPS``: ``false_alarm_rate`` of
``Adaptive``, the deviation factors of ``OnlineNormal`` and ``RobustMAD``); each replay gives
false alerts per 100 clean checks and incident recall (``scoring.py``). **Recall at a matched
rate** ``r`` is the best recall among the operating points with at most ``r`` false alerts per
100 clean checks (no interpolation; none that quiet: 0, the recall of never alerting), so two
detectors are compared at the same cost in false alerts, not at their defaults. The daily
benchmark (``docs/daily-benchmark.md``) reports the same numbers.

>>> import pandas as pd
>>> from anomaly.backtest import LabeledSeries
>>> from detectors import OnlineNormal
>>> times = pd.date_range("2026-01-01", periods=60, freq="D")
>>> values = [100.0 + (7 * k) % 5 for k in range(60)]
>>> values[40] = 40.0
>>> incident = [k == 40 for k in range(60)]
>>> labelled = LabeledSeries.build("Size(*)", pd.Series(values, index=times), incident=incident)
>>> curve = operating_curve(labelled, {"OnlineNormal": OnlineNormal()})
>>> curve.recall_at("OnlineNormal", 1.0)
1.0
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from anomaly.backtest.scoring import Score
from anomaly.judging.tables import text_table

TARGETS = (0.05, 0.1, 0.3, 1.0)
"""False alerts per 100 clean checks at which recall is compared."""
RATES = (
    1e-30, 1e-20, 1e-15, 1e-12, 1e-9, 1e-8, 1e-7, 1e-6, 1e-5, 3e-5, 1e-4, 3e-4, 1e-3, 2e-3,
    3e-3, 0.01, 0.03, 0.1,
)  # fmt: skip
"""``Adaptive``'s false-alarm rates: down to where a rate no longer changes a verdict (its
quietest bands are a rolling window's far tail: ``detectors/adaptive/recurrence.py``)."""
DEVIATIONS = (2.0, 2.5, 3.0, 3.5, 4.0, 5.0, 6.0, 8.0, 12.0, 20.0, 50.0)
FACTORS = ("lower_deviation_factor", "upper_deviation_factor")
SWEEPS: dict[str, tuple[tuple[str, ...], tuple[float, ...]]] = {
    "Adaptive": (("false_alarm_rate",), RATES),
    "OnlineNormal": (FACTORS, DEVIATIONS),
    "RobustMAD": (FACTORS, DEVIATIONS),
    "BatchNormal": (FACTORS, DEVIATIONS),
}
"""Detector class -> the parameters its sensitivity sets and the levels swept."""


@dataclass(frozen=True)
class Point:
    """One operating point: a level of the sweep and what it scored."""

    level: float
    fa_per_100: float
    recall: float
    f1: float


def matched(points: Sequence[Point], target: float) -> tuple[float, float | None]:
    """Best recall (and its level) among ``points`` with at most ``target`` false alerts per
    100 clean checks; ``(0.0, None)`` when none is that quiet.

    >>> matched([Point(1e-3, 0.4, 0.6, 0.5), Point(1e-5, 0.08, 0.3, 0.4)], 0.1)
    (0.3, 1e-05)
    """
    quiet = [p for p in points if p.fa_per_100 <= target + 1e-12]
    if not quiet:
        return 0.0, None
    best = max(quiet, key=lambda p: (p.recall, -p.fa_per_100))
    return best.recall, best.level


def point_of(level: float, score: Score) -> Point:
    """The operating point a score makes (NaN rates, e.g. no incident, as 0)."""

    def plain(value: float) -> float:
        return 0.0 if value != value else float(value)

    return Point(level, 100 * plain(score.false_alert_rate), plain(score.recall), plain(score.f1))


def sweep(detector: Any) -> dict[float, Any]:
    """``detector`` at each level of its class's sweep (``SWEEPS``).

    >>> from detectors import Adaptive
    >>> sorted(sweep(Adaptive()))[:2]
    [1e-30, 1e-20]
    """
    kind = type(detector).__name__
    if kind not in SWEEPS or not dataclasses.is_dataclass(detector):
        known = ", ".join(SWEEPS)
        raise ValueError(
            f"no sensitivity sweep for {kind}: an operating curve needs one of {known}"
        )
    names, levels = SWEEPS[kind]
    one: Any = detector  # a dataclass instance, checked above
    return {level: dataclasses.replace(one, **dict.fromkeys(names, level)) for level in levels}


@dataclass(frozen=True)
class OperatingCurve:
    """Per detector name, its operating points over the sweep."""

    points: dict[str, list[Point]]
    clean_checks: int
    incidents: int

    def recall_at(self, name: str, target: float) -> float:
        """``name``'s recall at ``target`` false alerts per 100 clean checks."""
        return matched(self.points[name], target)[0]

    def table(self, targets: Sequence[float] = TARGETS) -> str:
        """Recall at each matched rate (the level that reached it in brackets), per detector."""
        header = ["detector", *(f"recall @{t:g} FA/100" for t in targets)]
        rows = []
        for name, points in self.points.items():
            cells = []
            for t in targets:
                recall, level = matched(points, t)
                cells.append(
                    "0 (none that quiet)" if level is None else f"{recall:.2f} ({level:g})"
                )
            rows.append([name, *cells])
        note = (
            f"{self.incidents} incidents, {self.clean_checks} clean checks; recall at matched"
            " false alerts per 100 clean checks (the sweep level in brackets)"
        )
        return f"{note}\n{text_table(header, rows)}"

    def to_dict(self) -> dict[str, Any]:
        return {
            "incidents": self.incidents,
            "clean_checks": self.clean_checks,
            "points": {n: [dataclasses.asdict(p) for p in ps] for n, ps in self.points.items()},
        }


def operating_curve(source: Any, detectors: Mapping[str, Any], **options: Any) -> OperatingCurve:
    """Replay each of ``detectors`` (name -> detector) at every level of its sweep over
    ``source`` with ``backtest(source, ..., **options)`` and collect its operating points."""
    from anomaly.backtest.run import backtest

    swept = {(name, level): d for name, one in detectors.items() for level, d in sweep(one).items()}
    keys = {f"{name} @ {level:g}": key for key, _ in swept.items() for name, level in [key]}
    result = backtest(source, {k: swept[key] for k, key in keys.items()}, **options)
    points: dict[str, list[Point]] = {}
    checks, incidents = 0, 0
    for label, (name, level) in keys.items():
        score = result.score(label)
        points.setdefault(name, []).append(point_of(level, score))
        checks, incidents = max(checks, score.normal_points), score.incidents
    return OperatingCurve(points, checks, incidents)

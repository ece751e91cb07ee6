"""How well one detector's alerts on one series match its labels.

Definitions (``docs/backtesting.md``):

* a point is *judged* when the detector said ``ok`` or ``anomaly`` (not ``insufficient history``);
  an *alert* is an ``anomaly``; ``alert_rate = alerts / judged``;
* an *incident* is a run of consecutive points labelled ``incident``; it is *detected* when one of
  its points alerts; ``recall = detected / incidents`` (incidents the detector could not judge
  count as missed: a real check would have missed them too);
* alerts on incident points are true, on unlabelled points false, on ``expected`` points neither;
  ``precision = true / (true + false)``, ``false_alert_rate = false / judged unlabelled points``;
* *delay*: points (and time) from an incident's first point to its first alert.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields
from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from detectors.evaluation import ANOMALY, INSUFFICIENT, OK


@dataclass(frozen=True)
class Score:
    """Counts of one detector on one or more series; rates are derived and NaN when undefined.

    Examples
    --------
    >>> s = Score(points=10, alerts=2, true_alerts=1, false_alerts=1, normal_points=8,
    ...           incidents=2, detected=1, delays=(0,))
    >>> s.precision, s.recall, round(s.f1, 3), s.alert_rate
    (0.5, 0.5, 0.5, 0.2)
    >>> (s + s).incidents
    4
    """

    points: int = 0
    insufficient: int = 0
    alerts: int = 0
    true_alerts: int = 0
    false_alerts: int = 0
    expected_alerts: int = 0
    normal_points: int = 0
    incidents: int = 0
    detected: int = 0
    delays: tuple[int, ...] = ()
    delay_seconds: tuple[float, ...] = ()

    def __add__(self, other: Score) -> Score:
        return Score(*(getattr(self, f.name) + getattr(other, f.name) for f in fields(self)))

    @property
    def alert_rate(self) -> float:
        return _ratio(self.alerts, self.points)

    @property
    def false_alert_rate(self) -> float:
        return _ratio(self.false_alerts, self.normal_points)

    @property
    def precision(self) -> float:
        return _ratio(self.true_alerts, self.true_alerts + self.false_alerts)

    @property
    def recall(self) -> float:
        return _ratio(self.detected, self.incidents)

    @property
    def f1(self) -> float:
        p, r = self.precision, self.recall
        if math.isnan(p) or math.isnan(r):
            return math.nan
        return 0.0 if p + r == 0 else 2 * p * r / (p + r)

    @property
    def mean_delay(self) -> float:
        """Mean delay in points over detected incidents."""
        return float(np.mean(self.delays)) if self.delays else math.nan

    @property
    def mean_delay_seconds(self) -> float:
        values = [d for d in self.delay_seconds if not math.isnan(d)]
        return float(np.mean(values)) if values else math.nan

    def as_dict(self) -> dict[str, Any]:
        """Counts and rates (NaN where undefined), without the per-incident delays."""
        counts = {f.name: getattr(self, f.name) for f in fields(self)}
        del counts["delays"], counts["delay_seconds"]
        rates = ("alert_rate", "false_alert_rate", "precision", "recall", "f1", "mean_delay")
        return {**counts, **{name: getattr(self, name) for name in (*rates, "mean_delay_seconds")}}


def _ratio(part: int, whole: int) -> float:
    return part / whole if whole else math.nan


def incidents(flags: NDArray[np.bool_]) -> list[tuple[int, int]]:
    """``[first, last]`` positions of each run of consecutive flagged points.

    >>> incidents(np.array([False, True, True, False, True]))
    [(1, 2), (4, 4)]
    """
    padded = np.concatenate([[False], flags, [False]]).astype(np.int8)
    edges = np.diff(padded)
    return list(
        zip(
            np.flatnonzero(edges == 1).tolist(),
            (np.flatnonzero(edges == -1) - 1).tolist(),
            strict=True,
        )
    )


def score(
    codes: NDArray[np.int8],
    incident: NDArray[np.bool_],
    expected: NDArray[np.bool_],
    times: pd.Index,
) -> tuple[Score, list[dict[str, Any]]]:
    """The score of one detector's verdicts on one series, and one record per incident."""
    alert = codes == ANOMALY
    judged = alert | (codes == OK)
    normal = ~incident & ~expected
    events = []
    delays, seconds = [], []
    for first, last in incidents(incident):
        hits = np.flatnonzero(alert[first : last + 1])
        record: dict[str, Any] = {
            "start": times[first],
            "end": times[last],
            "points": last - first + 1,
            "detected": bool(len(hits)),
            "delay": int(hits[0]) if len(hits) else None,
            "delay_seconds": None,
        }
        if len(hits):
            delays.append(int(hits[0]))
            gap = times[first + int(hits[0])] - times[first]
            record["delay_seconds"] = (
                gap.total_seconds() if isinstance(gap, pd.Timedelta) else math.nan
            )
            seconds.append(record["delay_seconds"])
        events.append(record)
    result = Score(
        points=int(judged.sum()),
        insufficient=int((codes == INSUFFICIENT).sum()),
        alerts=int(alert.sum()),
        true_alerts=int((alert & incident).sum()),
        false_alerts=int((alert & normal).sum()),
        expected_alerts=int((alert & expected & ~incident).sum()),
        normal_points=int((judged & normal).sum()),
        incidents=len(events),
        detected=sum(e["detected"] for e in events),
        delays=tuple(delays),
        delay_seconds=tuple(seconds),
    )
    return result, events

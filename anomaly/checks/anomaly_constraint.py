"""has_no_anomalies: judge a run's metric against its own stored history.

As in Schelter et al., PVLDB 2018, §3.4.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import numpy as np
import pandas as pd

from anomaly.analyzers.base import Analyzer
from anomaly.checks.levels import ConstraintStatus
from anomaly.errors import ConfigurationError
from anomaly.judging.verdicts import STATUS, detect_newest
from detectors import Adaptive, Status, Verdict, as_detector, is_newest_anomalous
from repository import AnomalyVerdict

AnomalyOutcome = AnomalyVerdict
"""Deprecated: what a constraint judged is the app's one judged point, `AnomalyVerdict`;
`AnomalyConstraint.status_of` says what it means for the check."""


@dataclass(frozen=True)
class AnomalyConstraint:
    """The newest value of `analyzer`'s metric must not be an anomaly for `detector`.

    History is the stored series of the same metric id and group, filtered by `tags` (subset
    match) and the inclusive window [`after`, `before`], and never contains the current run.
    Fewer than `min_history` points is the outcome ``insufficient history``, which fails the
    check only when `fail_on_insufficient_history`.

    Examples
    --------
    >>> from anomaly.analyzers import Size
    >>> from detectors import AbsoluteChange
    >>> c = AnomalyConstraint(Size(), AbsoluteChange(max_rate_decrease=-2, max_rate_increase=2))
    >>> history = pd.Series([1.0, 2.0, 3.0, 4.0], index=pd.date_range("2024-01-01", periods=4))
    >>> c.judge(history, 11.0).status, c.judge(history, 5.0).status
    ('anomaly', 'normal')
    >>> c.status_of(c.judge(history, 11.0)).value
    'failure'
    """

    analyzer: Analyzer[Any]
    detector: Any = None
    tags: Mapping[str, str] | None = None
    after: datetime | int | None = None
    before: datetime | int | None = None
    min_history: int = 1
    fail_on_insufficient_history: bool = False
    hint: str | None = field(default=None, compare=False)

    def __post_init__(self) -> None:
        if self.detector is None:  # the default detector, as scans use it
            object.__setattr__(self, "detector", Adaptive())
        if self.min_history < 0:
            raise ConfigurationError(f"min_history must be >= 0, got {self.min_history}")
        as_detector(self.detector)  # fails now, at definition, for an object that cannot detect

    @property
    def detector_name(self) -> str:
        """The detector's name as it appears in reports."""
        return str(getattr(self.detector, "name", type(self.detector).__name__))

    @property
    def name(self) -> str:
        """The constraint's name in reports."""
        return f"has_no_anomalies({self.analyzer.metric_id}, {self.detector_name})"

    @property
    def predicate(self) -> str:
        """What the constraint asserts."""
        return f"{self.analyzer.metric_id} is no anomaly for {self.detector!r}"

    def judge(
        self, history: pd.Series, value: float, when: datetime | None = None
    ) -> AnomalyVerdict:
        """The verdict on `value` given its `history` (a series by timestamp); `when` is the
        time of `value` (default: one spacing after the last point), and only history before
        it counts. Its ``detail`` is the check's message."""
        history = _earlier(history, when)
        n = len(history)
        if n < self.min_history:
            return self._insufficient(value, n, f"{n} points, at least {self.min_history} needed")
        point = value if when is None else (pd.Timestamp(when), value)
        return self._verdict(value, is_newest_anomalous(history, point, self.detector), n)

    def judge_many(
        self, points: Sequence[tuple[pd.Series, float]], when: datetime
    ) -> list[AnomalyVerdict]:
        """``judge(history, value, when)`` of each ``(history, value)`` pair (the groups of one
        run at time `when`), with one detector call for all of them: a vectorised detector
        judges thousands of groups in one pass."""
        moment = pd.Timestamp(when)
        verdicts: dict[int, AnomalyVerdict] = {}
        parts = []
        for k, (history, value) in enumerate(points):
            earlier = _earlier(history, when)
            if len(earlier) == 0 or len(earlier) < self.min_history or math.isnan(value):
                verdicts[k] = self.judge(history, value, when)  # nothing to batch
                continue
            times = earlier.index.append(pd.DatetimeIndex([moment]))
            values = np.append(earlier.to_numpy(dtype=float), value)
            parts.append(pd.DataFrame({"point": k, "timestamp": times, "value": values}))
        if parts:
            frame = pd.concat(parts, ignore_index=True)
            found: Any = detect_newest(frame, self.detector, "point")
            for row in found.itertuples(index=False):
                verdict = Verdict(
                    time=row.timestamp,
                    value=row.value,
                    status=Status(row.status),
                    lower=row.lower,
                    upper=row.upper,
                    confidence=row.confidence,
                    detail=row.detail,
                    history=int(row.history),
                    p_value=getattr(row, "p_value", math.nan),
                )
                k = int(row.point)
                verdicts[k] = self._verdict(points[k][1], verdict, int(row.history))
        return [verdicts[k] for k in range(len(points))]

    def status_of(self, verdict: AnomalyVerdict) -> ConstraintStatus:
        """What a verdict means for the check: an anomaly or a missing value fails it; too
        little history fails it only when `fail_on_insufficient_history`."""
        if verdict.status == "normal":
            return ConstraintStatus.SUCCESS
        if verdict.status == "insufficient_history" and not self.fail_on_insufficient_history:
            return ConstraintStatus.INSUFFICIENT_HISTORY
        return ConstraintStatus.FAILURE

    def _verdict(self, value: float, found: Verdict, n: int) -> AnomalyVerdict:
        lower, upper = _number(found.lower), _number(found.upper)
        if found.status is Status.INSUFFICIENT_HISTORY:
            return self._insufficient(value, n, found.detail, lower, upper)
        message = None
        if found.status is Status.ANOMALY:
            message = f"Anomaly: {found.detail}" + (f" {self.hint}" if self.hint else "")
        elif found.status is Status.MISSING:
            message = f"the new value is missing: {found.detail}"
        return AnomalyVerdict(
            metric_id=self.analyzer.metric_id,
            status=STATUS[found.status.value],
            detector=self.detector_name,
            value=_number(value),
            lower=lower,
            upper=upper,
            score=None if found.status is Status.MISSING else _number(found.confidence),
            detail=message,
            history_length=n,
            p_value=None if found.status is Status.MISSING else _number(found.p_value),
        )

    def _insufficient(
        self,
        value: float,
        n: int,
        why: str,
        lower: float | None = None,
        upper: float | None = None,
    ) -> AnomalyVerdict:
        message = f"insufficient history for {self.detector_name}: {why}"
        if n == 0:
            message = f"insufficient history: no earlier points of {self.analyzer.metric_id}"
        return AnomalyVerdict(
            metric_id=self.analyzer.metric_id,
            status="insufficient_history",
            detector=self.detector_name,
            value=_number(value),
            lower=lower,
            upper=upper,
            detail=message,
            history_length=n,
        )


def _number(value: float | None) -> float | None:
    return None if value is None or math.isnan(value) else float(value)


def _earlier(history: pd.Series, when: datetime | None) -> pd.Series:
    """The stored points of `history` a value at `when` is judged on (all without a time)."""
    history = history.dropna()
    return history if when is None else history[history.index < pd.Timestamp(when)]

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
from anomaly.judging.verdicts import detect_newest
from detectors import Adaptive, Status, Verdict, as_detector, is_newest_anomalous


@dataclass(frozen=True)
class AnomalyOutcome:
    """What one anomaly constraint found for one group."""

    status: ConstraintStatus
    message: str | None
    lower: float | None
    upper: float | None
    history_length: int
    score: float | None = None
    detail: str | None = None
    p_value: float | None = None


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
    >>> c.judge(history, 11.0).status.value, c.judge(history, 5.0).status.value
    ('failure', 'success')
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
    ) -> AnomalyOutcome:
        """The outcome for `value` given its `history` (a series by timestamp); `when` is the
        time of `value` (default: one spacing after the last point), and only history before
        it counts."""
        history = _earlier(history, when)
        n = len(history)
        if n < self.min_history:
            return self._insufficient(n, f"{n} points, at least {self.min_history} needed")
        point = value if when is None else (pd.Timestamp(when), value)
        return self._outcome(is_newest_anomalous(history, point, self.detector), n)

    def judge_many(
        self, points: Sequence[tuple[pd.Series, float]], when: datetime
    ) -> list[AnomalyOutcome]:
        """``judge(history, value, when)`` of each ``(history, value)`` pair (the groups of one
        run at time `when`), with one detector call for all of them: a vectorised detector
        judges thousands of groups in one pass."""
        moment = pd.Timestamp(when)
        outcomes: dict[int, AnomalyOutcome] = {}
        parts = []
        for k, (history, value) in enumerate(points):
            earlier = _earlier(history, when)
            if len(earlier) == 0 or len(earlier) < self.min_history or math.isnan(value):
                outcomes[k] = self.judge(history, value, when)  # nothing to batch
                continue
            times = earlier.index.append(pd.DatetimeIndex([moment]))
            values = np.append(earlier.to_numpy(dtype=float), value)
            parts.append(pd.DataFrame({"point": k, "timestamp": times, "value": values}))
        if parts:
            frame = pd.concat(parts, ignore_index=True)
            rows = detect_newest(frame, self.detector, "point")
            for row in rows.itertuples(index=False):
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
                outcomes[int(row.point)] = self._outcome(verdict, int(row.history))
        return [outcomes[k] for k in range(len(points))]

    def _outcome(self, verdict: Verdict, n: int) -> AnomalyOutcome:
        lower = None if math.isnan(verdict.lower) else verdict.lower
        upper = None if math.isnan(verdict.upper) else verdict.upper
        p = None if math.isnan(verdict.p_value) else verdict.p_value
        if verdict.status is Status.INSUFFICIENT_HISTORY:
            return self._insufficient(n, verdict.detail, lower, upper)
        if verdict.status is Status.ANOMALY:
            message = f"Anomaly: {verdict.detail}"
            if self.hint:
                message += f" {self.hint}"
            return AnomalyOutcome(
                ConstraintStatus.FAILURE, message, lower, upper, n, verdict.confidence,
                verdict.detail, p,
            )  # fmt: skip
        if verdict.status is Status.MISSING:
            return AnomalyOutcome(
                ConstraintStatus.FAILURE, f"the new value is missing: {verdict.detail}",
                lower, upper, n, None, verdict.detail,
            )  # fmt: skip
        return AnomalyOutcome(
            ConstraintStatus.SUCCESS, None, lower, upper, n, verdict.confidence, verdict.detail, p
        )

    def _insufficient(
        self, n: int, why: str, lower: float | None = None, upper: float | None = None
    ) -> AnomalyOutcome:
        status = (
            ConstraintStatus.FAILURE
            if self.fail_on_insufficient_history
            else ConstraintStatus.INSUFFICIENT_HISTORY
        )
        message = f"insufficient history for {self.detector_name}: {why}"
        if n == 0:
            message = f"insufficient history: no earlier points of {self.analyzer.metric_id}"
        return AnomalyOutcome(status, message, lower, upper, n)


def _earlier(history: pd.Series, when: datetime | None) -> pd.Series:
    """The stored points of `history` a value at `when` is judged on (all without a time)."""
    history = history.dropna()
    return history if when is None else history[history.index < pd.Timestamp(when)]

"""has_no_anomalies: judge a run's metric against its own stored history.

As in Schelter et al., PVLDB 2018, §3.4.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any

import pandas as pd

from anomaly.analyzers.base import Analyzer
from anomaly.checks.levels import ConstraintStatus
from anomaly.errors import ConfigurationError
from anomaly.judging.verdicts import STATUS
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
            return self._insufficient(value, n)
        point = value if when is None else (pd.Timestamp(when), value)
        return self._verdict(value, is_newest_anomalous(history, point, self.detector), n)

    def status_of(self, verdict: AnomalyVerdict) -> ConstraintStatus:
        """What a verdict means for the check: an anomaly or a missing value fails it; too
        little history fails it only when `fail_on_insufficient_history`."""
        if verdict.status == "normal":
            return ConstraintStatus.SUCCESS
        if verdict.status == "insufficient_history" and not self.fail_on_insufficient_history:
            return ConstraintStatus.INSUFFICIENT_HISTORY
        return ConstraintStatus.FAILURE

    def reported(self, verdict: AnomalyVerdict) -> AnomalyVerdict:
        """`verdict` as this check reports it (``judge`` and ``judge_run`` judge alike; this
        words it): its ``detail`` is the check's message (with the `hint` on an anomaly), and
        a verdict without a judgement (too little history, a missing value) has no score.

        >>> from anomaly.analyzers import Size
        >>> c = AnomalyConstraint(Size(), min_history=3)
        >>> c.reported(AnomalyVerdict("Size(*)", "insufficient_history", "Adaptive",
        ...                           history_length=2)).detail
        'insufficient history for Adaptive: 2 points, at least 3 needed'
        """
        n = verdict.history_length or 0
        if verdict.status == "insufficient_history":
            why = verdict.detail or ""
            if n < self.min_history:
                why = f"{n} points, at least {self.min_history} needed"
            message = f"insufficient history for {self.detector_name}: {why}"
            if n == 0:
                message = f"insufficient history: no earlier points of {self.analyzer.metric_id}"
            return replace(verdict, detail=message, score=None, p_value=None)
        if verdict.status == "anomaly":
            hint = f" {self.hint}" if self.hint else ""
            return replace(verdict, detail=f"Anomaly: {verdict.detail}{hint}")
        if verdict.status == "error":  # the detectors' "missing": a NaN value
            message = f"the new value is missing: {verdict.detail}"
            return replace(verdict, detail=message, score=None, p_value=None)
        return replace(verdict, detail=None)

    def _verdict(self, value: float, found: Verdict, n: int) -> AnomalyVerdict:
        judged = found.status not in (Status.MISSING, Status.INSUFFICIENT_HISTORY)
        verdict = AnomalyVerdict(
            metric_id=self.analyzer.metric_id,
            status=STATUS[found.status.value],
            detector=self.detector_name,
            value=_number(value),
            lower=_number(found.lower),
            upper=_number(found.upper),
            score=_number(found.confidence) if judged else None,
            detail=found.detail,
            history_length=n,
            p_value=_number(found.p_value) if judged else None,
        )
        return self.reported(verdict)

    def _insufficient(self, value: float, n: int) -> AnomalyVerdict:
        verdict = AnomalyVerdict(
            metric_id=self.analyzer.metric_id,
            status="insufficient_history",
            detector=self.detector_name,
            value=_number(value),
            history_length=n,
        )
        return self.reported(verdict)


def _number(value: float | None) -> float | None:
    return None if value is None or math.isnan(value) else float(value)


def _earlier(history: pd.Series, when: datetime | None) -> pd.Series:
    """The stored points of `history` a value at `when` is judged on (all without a time)."""
    history = history.dropna()
    return history if when is None else history[history.index < pd.Timestamp(when)]

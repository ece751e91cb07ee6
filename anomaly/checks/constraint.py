"""Constraints: an analyzer's metric plus an assertion, evaluated into a result row."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from anomaly.analyzers.base import Analyzer
from anomaly.checks.assertions import AssertionFn, describe
from anomaly.checks.levels import CheckLevel, ConstraintStatus
from anomaly.metrics import Metric, MetricValue
from repository import AnomalyVerdict


@dataclass(frozen=True)
class ConstraintResult:
    """One row of a verification report: a constraint's outcome for one group.

    An anomaly constraint's row refers to its judged point, `verdict` (the repository's
    `AnomalyVerdict`, the app's one type of it): bounds, detector, history, score and p-value
    are the verdict's.

    >>> from repository import AnomalyVerdict
    >>> verdict = AnomalyVerdict("Size(*)", "anomaly", "Adaptive", lower=1.0, upper=5.0)
    >>> row = ConstraintResult("orders", CheckLevel.ERROR, "has_no_anomalies(Size(*), Adaptive)",
    ...                        "Size(*) is no anomaly", ConstraintStatus.FAILURE, "Anomaly", 9.0,
    ...                        "Size(*)", verdict=verdict)
    >>> row.failed, row.detector, (row.lower, row.upper)
    (True, 'Adaptive', (1.0, 5.0))
    """

    check: str
    level: CheckLevel
    constraint: str
    predicate: str
    status: ConstraintStatus
    message: str | None
    value: float | None
    metric_id: str
    group: Mapping[str, str | None] = field(default_factory=dict)
    verdict: AnomalyVerdict | None = None

    @property
    def failed(self) -> bool:
        """Whether this row fails its check."""
        return self.status is ConstraintStatus.FAILURE

    @property
    def lower(self) -> float | None:
        """The lower bound of the expected band (anomaly constraints)."""
        return None if self.verdict is None else self.verdict.lower

    @property
    def upper(self) -> float | None:
        """The upper bound of the expected band (anomaly constraints)."""
        return None if self.verdict is None else self.verdict.upper

    @property
    def detector(self) -> str | None:
        """The detector's name (anomaly constraints)."""
        return None if self.verdict is None else self.verdict.detector

    @property
    def history_length(self) -> int | None:
        """The number of earlier points judged on (None: judging did not happen)."""
        return None if self.verdict is None else self.verdict.history_length

    @property
    def score(self) -> float | None:
        """The detector's score or confidence (anomaly constraints)."""
        return None if self.verdict is None else self.verdict.score

    @property
    def p_value(self) -> float | None:
        """The calibrated p-value of the verdict (anomaly constraints)."""
        return None if self.verdict is None else self.verdict.p_value


def _same(value: MetricValue) -> Any:
    return value


@dataclass(frozen=True)
class Constraint:
    """A metric-level rule: ``assertion(pick(metric value))`` must hold.

    Examples
    --------
    >>> from anomaly.analyzers import Completeness
    >>> from anomaly.analyzers.state import MatchesState
    >>> from anomaly.checks.assertions import IS_ONE
    >>> c = Constraint("is_complete(title)", Completeness("title"), IS_ONE)
    >>> c.predicate
    'Completeness(title) == 1.0'
    >>> c.evaluate(Completeness("title").metric(MatchesState(9, 10)))[0].value
    'failure'
    """

    name: str
    analyzer: Analyzer[Any]
    assertion: AssertionFn
    hint: str | None = None
    pick: Callable[[MetricValue], Any] = _same
    subject: str | None = None

    @property
    def predicate(self) -> str:
        """The predicate the constraint became, e.g. ``Completeness(title) == 1.0``."""
        return f"{self.subject or self.analyzer.metric_id} {describe(self.assertion)}"

    def evaluate(self, metric: Metric) -> tuple[ConstraintStatus, str | None, float | None]:
        """Status, message and the value shown in the report, for one metric."""
        if not metric.succeeded or metric.value is None:
            return ConstraintStatus.FAILURE, metric.error, None
        try:
            value = self.pick(metric.value)
        except (KeyError, ValueError) as error:
            return ConstraintStatus.FAILURE, f"{self.predicate}: {error}", None
        shown = float(value) if isinstance(value, int | float) else None
        try:
            passed = self.assertion(value)
        except Exception as error:  # a user's assertion must not crash the run
            message = f"assertion of {self.name} raised {type(error).__name__}: {error}"
            return ConstraintStatus.FAILURE, message, shown
        if passed:
            return ConstraintStatus.SUCCESS, None, shown
        # The rule and the value, as a reader of the report needs them: which metric, what it
        # was, what was allowed (Deequ's "does not meet the constraint requirement" said none).
        subject = self.subject or self.analyzer.metric_id
        message = f"{subject} is {_fmt(value)}, required {describe(self.assertion)}"
        if self.hint:
            message += f"! {self.hint}"
        return ConstraintStatus.FAILURE, message, shown


def _fmt(value: Any) -> str:
    if isinstance(value, float) and not math.isnan(value):
        return f"{value:.6g}"
    return repr(value)

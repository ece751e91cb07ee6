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


@dataclass(frozen=True)
class ConstraintResult:
    """One row of a verification report: a constraint's outcome for one group."""

    check: str
    level: CheckLevel
    constraint: str
    predicate: str
    status: ConstraintStatus
    message: str | None
    value: float | None
    metric_id: str
    group: Mapping[str, str | None] = field(default_factory=dict)
    lower: float | None = None
    upper: float | None = None
    detector: str | None = None
    history_length: int | None = None
    score: float | None = None
    p_value: float | None = None

    @property
    def failed(self) -> bool:
        """Whether this row fails its check."""
        return self.status is ConstraintStatus.FAILURE


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
        message = f"Value: {_fmt(value)} does not meet the constraint requirement"
        if self.hint:
            message += f"! {self.hint}"
        return ConstraintStatus.FAILURE, message, shown


def _fmt(value: Any) -> str:
    if isinstance(value, float) and not math.isnan(value):
        return f"{value:.6g}"
    return repr(value)

"""The base the constraint families build on: a list of constraints and a fluent `add`."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Self

from anomaly.analyzers.base import Analyzer
from anomaly.checks.assertions import AssertionFn
from anomaly.checks.constraint import Constraint
from anomaly.metrics import MetricValue


class ConstraintBuilder:
    """Holds a check's constraints; every constraint method returns the check for chaining."""

    def __init__(self) -> None:
        self.constraints: list[Any] = []

    def add_constraint(self, constraint: Any) -> Self:
        """Add a constraint object (a `Constraint` or an anomaly constraint)."""
        self.constraints.append(constraint)
        return self

    def _metric(
        self,
        name: str,
        analyzer: Analyzer[Any],
        assertion: AssertionFn,
        hint: str | None,
        pick: Callable[[MetricValue], Any] | None = None,
        subject: str | None = None,
    ) -> Self:
        if not callable(assertion):
            raise TypeError(f"{name}: assertion must be callable, got {assertion!r}")
        extra = {"pick": pick} if pick is not None else {}
        return self.add_constraint(
            Constraint(name, analyzer, assertion, hint, subject=subject, **extra)
        )

"""Checks: declarative constraints on metrics, including anomaly checks on stored history."""

from __future__ import annotations

from typing import TYPE_CHECKING

from detectors.lazy_exports import lazy_exports

if TYPE_CHECKING:
    from anomaly.checks.anomaly_constraint import AnomalyConstraint
    from anomaly.checks.assertions import Assertion, at_least, at_most, between, equal_to
    from anomaly.checks.check import Check
    from anomaly.checks.constraint import Constraint, ConstraintResult
    from anomaly.checks.distribution import Distribution
    from anomaly.checks.levels import CheckLevel, CheckStatus, ConstraintStatus
else:
    __getattr__, __dir__ = lazy_exports(__name__)

__all__ = [
    "AnomalyConstraint",
    "Assertion",
    "Check",
    "CheckLevel",
    "CheckStatus",
    "Constraint",
    "ConstraintResult",
    "ConstraintStatus",
    "Distribution",
    "at_least",
    "at_most",
    "between",
    "equal_to",
]

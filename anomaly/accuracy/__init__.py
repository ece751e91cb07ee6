"""Accuracy of a dataset against a source of truth, with the Apache Griffin measure DSL.

Importing this package does not import Spark: rules parse and plan in plain Python.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from detectors.lazy_exports import lazy_exports

if TYPE_CHECKING:
    from anomaly.accuracy.analyzer import Accuracy, AccuracyMetric
    from anomaly.accuracy.config import accuracy_from_dict
    from anomaly.accuracy.errors import (
        RuleError,
        RuleJoinError,
        RuleSyntaxError,
        RuleTypeError,
        UnknownFieldError,
    )
    from anomaly.accuracy.parser import parse_rule
    from anomaly.accuracy.plan import RulePlan, plan_rule
    from anomaly.accuracy.state import AccuracyState
else:
    __getattr__, __dir__ = lazy_exports(__name__)

__all__ = [
    "Accuracy",
    "AccuracyMetric",
    "AccuracyState",
    "RuleError",
    "RuleJoinError",
    "RulePlan",
    "RuleSyntaxError",
    "RuleTypeError",
    "UnknownFieldError",
    "accuracy_from_dict",
    "parse_rule",
    "plan_rule",
]

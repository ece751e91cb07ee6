"""anomaly: data-quality metrics on Spark, stored as histories, checked for anomalies.

Everything a pipeline needs is importable from here:

>>> from anomaly import Check, CheckLevel, CheckStatus, VerificationSuite, at_least
>>> Check(CheckLevel.ERROR, "orders").is_complete("id").has_completeness("email", at_least(0.9))
Check(ERROR, 'orders', 2 constraints)
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from anomaly.analyzers import __all__ as _analyzers
from anomaly.moved import install as _install_moved_paths
from detectors.lazy_exports import lazy_exports

if TYPE_CHECKING:
    from anomaly.analyzers import *  # noqa: F403
    from anomaly.checks import (
        Check,
        CheckLevel,
        CheckStatus,
        ConstraintStatus,
        Distribution,
        at_least,
        at_most,
        between,
        equal_to,
    )
    from anomaly.engine.context import AnalyzerContext
    from anomaly.engine.runner import AnalysisRunner, run_analyzers
    from anomaly.errors import (
        AnalysisError,
        AnomalyError,
        ConfigurationError,
        StateError,
        VerificationFailed,
    )
    from anomaly.metrics import Metric
    from anomaly.spark import build_session
    from anomaly.verification import VerificationResult, VerificationSuite
else:
    __getattr__, __dir__ = lazy_exports(__name__)

_install_moved_paths()

__all__ = [
    *_analyzers,
    "AnalysisError",
    "AnalysisRunner",
    "AnalyzerContext",
    "AnomalyError",
    "Check",
    "CheckLevel",
    "CheckStatus",
    "ConfigurationError",
    "ConstraintStatus",
    "Distribution",
    "Metric",
    "StateError",
    "VerificationFailed",
    "VerificationResult",
    "VerificationSuite",
    "at_least",
    "at_most",
    "between",
    "build_session",
    "equal_to",
    "run_analyzers",
]

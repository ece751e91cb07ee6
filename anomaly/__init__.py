"""anomaly: data-quality metrics on Spark, stored as histories, checked for anomalies."""

from anomaly.analyzers import *  # noqa: F403
from anomaly.analyzers import __all__ as _analyzers
from anomaly.context import AnalyzerContext
from anomaly.errors import AnalysisError, AnomalyError, ConfigurationError, StateError
from anomaly.metrics import Metric
from anomaly.runner import AnalysisRunner, run_analyzers
from anomaly.spark import build_session

__all__ = [
    *_analyzers,
    "AnalysisError",
    "AnalysisRunner",
    "AnalyzerContext",
    "AnomalyError",
    "ConfigurationError",
    "Metric",
    "StateError",
    "build_session",
    "run_analyzers",
]

"""The config file's schema (``docs/config.md``) and the one place where judging defaults are
resolved (`resolve_plan`); `ScanSettings` is one scan's settings, resolved once per run."""

from __future__ import annotations

from typing import TYPE_CHECKING

from detectors.lazy_exports import lazy_exports

if TYPE_CHECKING:
    from anomaly.config.alert_config import AlertSinkConfig
    from anomaly.config.config import SCAN_TAG, Defaults, ScanConfig, ServiceConfig
    from anomaly.config.durations import format_duration, parse_duration
    from anomaly.config.loading import load_config
    from anomaly.config.metric_spec import Severity
    from anomaly.config.plans import MIN_HISTORY, MetricPlan, resolve_plan
    from anomaly.config.problems import ConfigFileError, Problem
    from anomaly.config.settings import ScanSettings
else:
    __getattr__, __dir__ = lazy_exports(__name__)

__all__ = [
    "MIN_HISTORY",
    "SCAN_TAG",
    "AlertSinkConfig",
    "ConfigFileError",
    "Defaults",
    "MetricPlan",
    "Problem",
    "ScanConfig",
    "ScanSettings",
    "ServiceConfig",
    "Severity",
    "format_duration",
    "load_config",
    "parse_duration",
    "resolve_plan",
]

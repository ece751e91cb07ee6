"""The scan service: config file, scans, backfill, schedules and alerts (``docs/config.md``).

Importing it does not start Spark; only running a scan does.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from detectors.lazy_exports import lazy_exports

if TYPE_CHECKING:
    from anomaly.config.config import ScanConfig, ServiceConfig
    from anomaly.config.loading import load_config
    from anomaly.config.plans import MetricPlan
    from anomaly.config.problems import ConfigFileError, Problem
    from anomaly.judging.report import Finding, ScanReport, ScanStatus
    from anomaly.judging.sinks import AlertDeliveryError, dispatch
    from anomaly.service.backfill import BackfillReport, backfill
    from anomaly.service.progress import Progress
    from anomaly.service.scan import ScanRunner
    from anomaly.service.scheduler import ScanService
    from anomaly.sources.reading import SourceError
else:
    __getattr__, __dir__ = lazy_exports(__name__)

__all__ = [
    "AlertDeliveryError",
    "BackfillReport",
    "ConfigFileError",
    "Finding",
    "MetricPlan",
    "Problem",
    "Progress",
    "ScanConfig",
    "ScanReport",
    "ScanRunner",
    "ScanService",
    "ScanStatus",
    "ServiceConfig",
    "SourceError",
    "backfill",
    "dispatch",
    "load_config",
]

"""A scan's settings, resolved once per run and passed on (tags, plans, budget, sinks)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta
from typing import TYPE_CHECKING

from anomaly.config.budget_config import checks_per_week
from anomaly.config.config import SCAN_TAG
from repository import DATASET_TAG

if TYPE_CHECKING:
    from anomaly.config.alert_config import AlertSinkConfig
    from anomaly.config.config import ScanConfig, ServiceConfig
    from anomaly.config.plans import MetricPlan
    from anomaly.config.source_config import SourceConfig
    from detectors import AlertBudget


@dataclass(frozen=True)
class ScanSettings:
    """Everything one run of scan `name` needs from the config, looked up once.

    Examples
    --------
    >>> from anomaly.config.config import ServiceConfig
    >>> config = ServiceConfig.model_validate({
    ...     "sources": {"events": {"path": "/data/events", "time_column": "day"}},
    ...     "scans": {"daily": {"source": "events", "metrics": ["Size"], "tags": {"env": "prod"}}},
    ... })
    >>> settings = ScanSettings.of(config, "daily")
    >>> settings.tags, settings.partition, settings.checks_per_week
    ({'dataset': 'events', 'env': 'prod', 'scan': 'daily'}, 'day', 7.0)
    """

    name: str
    scan: ScanConfig
    source: SourceConfig
    tags: dict[str, str]
    plans: list[MetricPlan]
    budget: AlertBudget | None
    checks_per_week: float
    sinks: dict[str, AlertSinkConfig]

    @classmethod
    def of(cls, config: ServiceConfig, name: str) -> ScanSettings:
        """The settings of scan `name` (a `ConfigurationError` naming the scans otherwise)."""
        scan = config.scan(name)
        source = config.sources[scan.source]
        spec = scan.alert_budget or config.defaults.alert_budget
        return cls(
            name=name,
            scan=scan,
            source=source,
            tags={DATASET_TAG: scan.source, **scan.tags, SCAN_TAG: name},
            plans=config.plans(name),
            budget=None if spec is None else spec.budget,
            checks_per_week=checks_per_week(source.partitioning, scan.schedule),
            sinks=config.sinks(name),
        )

    @property
    def partition(self) -> str | None:
        """The source's partition period (``day``, ``hour``), None without a time column."""
        return self.source.partitioning

    @property
    def history_window(self) -> timedelta | None:
        """How far back history is read for detection (None: all of it)."""
        return self.scan.history_window

"""The service config file's root: repository, Spark, sources, scans, alerts and defaults."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import (
    BeforeValidator,
    Field,
    PrivateAttr,
    ValidationInfo,
    field_validator,
    model_validator,
)

from anomaly.config.alert_config import AlertSinkConfig
from anomaly.config.budget_config import AlertBudgetSpec
from anomaly.config.detector_spec import DetectorSpec
from anomaly.config.durations import Duration
from anomaly.config.metric_spec import MetricSpec, Severity
from anomaly.config.model import ConfigModel, check_name
from anomaly.config.monitor_config import MonitorsConfig
from anomaly.config.plans import DEFAULT_DETECTOR, DEFAULT_SEVERITY, MetricPlan, resolve_plan
from anomaly.config.problems import Problem, choice_error, custom_error
from anomaly.config.repository_path import resolve_repository
from anomaly.config.schedule import ScheduleSpec
from anomaly.config.source_config import SourceConfig
from anomaly.config.stream_config import StreamScanConfig, stream_problems
from anomaly.config.tags import SCAN_TAG
from anomaly.errors import ConfigurationError

ALERTS = "alerts"
"""The section of alert sinks (their ``${VAR}`` references are resolved when one is sent)."""


def _as_list(value: Any) -> Any:
    return [value] if isinstance(value, str) else value


def _as_text(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: str(v) if isinstance(v, int | float | bool) else v for k, v in value.items()}
    return value


class SparkSettings(ConfigModel):
    """Local Spark by default; ``master`` for a cluster, ``remote`` for Spark Connect.

    >>> SparkSettings.model_validate({"conf": {"spark.sql.shuffle.partitions": 4}}).conf
    {'spark.sql.shuffle.partitions': '4'}
    """

    master: str = "local[*]"
    remote: str | None = None
    app_name: str = "anomaly"
    conf: Annotated[dict[str, str], BeforeValidator(_as_text)] = {}

    @field_validator("remote")
    @classmethod
    def _connect_url(cls, value: str | None) -> str | None:
        if value is not None and not value.startswith("sc://"):
            raise ValueError(f"remote must be a Spark Connect URL sc://host:port, got {value!r}")
        return value


class Defaults(ConfigModel):
    """How metrics are judged unless their scan or the metric says otherwise (unset
    ``min_history``: `MIN_HISTORY`; `resolve_plan` applies them).

    >>> defaults = Defaults()
    >>> defaults.detector.label, defaults.severity, defaults.min_history
    ('Adaptive', 'error', None)
    """

    detector: DetectorSpec = DetectorSpec.model_validate(DEFAULT_DETECTOR)
    severity: Severity = DEFAULT_SEVERITY
    min_history: int | None = Field(default=None, ge=0)
    alert_budget: AlertBudgetSpec | None = None


class SchedulerSettings(ConfigModel):
    """``anomaly serve``: how many scans may run at the same time (never two of one scan).

    >>> SchedulerSettings().max_concurrent_scans
    2
    """

    max_concurrent_scans: int = Field(default=2, ge=1)


class ScanConfig(ConfigModel):
    """One scan: a source, its metrics and/or monitors (per ``group_by`` value), tags and an
    optional schedule. ``monitors: auto`` alone watches volume, freshness, schema and columns
    (``docs/monitors.md``).

    ``history_window`` limits the history loaded for detection (e.g. ``180d``); all by default.
    ``alert_budget`` caps the false alerts of all its series together (``{false_alerts_per_week:
    1}`` or ``{fdr: 0.05}``; default: the ``defaults`` section's, else none).

    >>> scan = ScanConfig.model_validate({"source": "events", "metrics": ["Size"],
    ...                                   "group_by": "country", "tags": {"env": "prod"}})
    >>> scan.group_by, scan.tags, scan.schedule is None
    (['country'], {'env': 'prod'}, True)
    """

    source: str
    metrics: list[MetricSpec] = []
    monitors: MonitorsConfig | None = None
    group_by: Annotated[list[str], BeforeValidator(_as_list)] = []
    tags: Annotated[dict[str, str], BeforeValidator(_as_text)] = {}
    schedule: ScheduleSpec | None = None
    detector: DetectorSpec | None = None
    severity: Severity | None = None
    min_history: int | None = Field(default=None, ge=0)
    alerts: Annotated[list[str] | None, BeforeValidator(_as_list)] = None
    history_window: Duration | None = None
    alert_budget: AlertBudgetSpec | None = None
    stream: StreamScanConfig | None = None

    @field_validator("tags")
    @classmethod
    def _reserved(cls, tags: dict[str, str]) -> dict[str, str]:
        if SCAN_TAG in tags:
            raise ValueError(f"the tag {SCAN_TAG!r} is set by the service (the scan's name)")
        return tags

    @model_validator(mode="after")
    def _something_to_measure(self) -> ScanConfig:
        if not self.metrics and self.monitors is None:
            raise custom_error(
                "a scan needs at least one metric, or monitors (e.g. monitors: auto)",
                key="metrics",
            )
        return self


class ServiceConfig(ConfigModel):
    """The whole config file (see ``docs/config.md``); ``load_config`` reads one.

    Examples
    --------
    >>> config = ServiceConfig.model_validate({
    ...     "sources": {"events": {"path": "/data/events", "time_column": "day"}},
    ...     "scans": {"daily": {"source": "events", "severity": "warning",
    ...                         "metrics": ["Size", {"analyzer": "Mean", "column": "price",
    ...                                              "detector": "RobustMAD"}]}},
    ... })
    >>> [(p.analyzer.metric_id, p.detector_label, p.severity) for p in config.plans("daily")]
    [('Size(*)', 'Adaptive', 'warning'), ('Mean(price)', 'RobustMAD', 'warning')]
    >>> config.scan("dialy")
    Traceback (most recent call last):
    ...
    anomaly.errors.ConfigurationError: unknown scan 'dialy' (did you mean 'daily'?); allowed: daily
    """

    version: Literal[1] = 1
    repository: str = Field(default="metrics.duckdb", validate_default=True)
    spark: SparkSettings = SparkSettings()
    sources: dict[str, SourceConfig]
    scans: dict[str, ScanConfig]
    alerts: dict[str, AlertSinkConfig] = {}
    defaults: Defaults = Defaults()
    scheduler: SchedulerSettings = SchedulerSettings()
    _warnings: list[Problem] = PrivateAttr(default_factory=list)

    @property
    def warnings(self) -> list[Problem]:
        """What `load_config` found that does not stop the config from loading (an alert's
        unset variable: read-only commands need none; sending that alert fails)."""
        return self._warnings

    @field_validator("repository")
    @classmethod
    def _relative_to_config(cls, value: str, info: ValidationInfo) -> str:
        return resolve_repository(value, (info.context or {}).get("base_dir"))

    @field_validator("sources", "scans", "alerts")
    @classmethod
    def _names(cls, value: dict[str, Any], info: ValidationInfo) -> dict[str, Any]:
        what = {"sources": "source", "scans": "scan", "alerts": "alert"}[str(info.field_name)]
        for name in value:
            check_name(str(name), what)
        return value

    def problems(self) -> list[Problem]:
        """References between sections that do not resolve (checked after validation)."""
        found = []
        for name, scan in self.scans.items():
            if scan.source not in self.sources:
                message = choice_error("source", scan.source, list(self.sources))
                found.append(Problem(("scans", name, "source"), message))
            for i, sink in enumerate(scan.alerts or []):
                if sink not in self.alerts:
                    message = choice_error("alert", sink, list(self.alerts) or ["(none defined)"])
                    found.append(Problem(("scans", name, "alerts", i), message))
        return found + stream_problems(self)

    def scan(self, name: str) -> ScanConfig:
        """The scan called `name` (a `ConfigurationError` naming the defined scans otherwise)."""
        if name not in self.scans:
            raise ConfigurationError(choice_error("scan", name, list(self.scans)))
        return self.scans[name]

    def plans(self, name: str) -> list[MetricPlan]:
        """The metrics of scan `name` with detector, severity and min history resolved."""
        scan = self.scan(name)
        return [
            resolve_plan(metric.analyzer_object, [metric, scan], self.defaults)
            for metric in scan.metrics
        ]

    def alert_budget(self, name: str) -> AlertBudgetSpec | None:
        """The alert budget of scan `name` (its own, else the defaults'), if any."""
        return self.scan(name).alert_budget or self.defaults.alert_budget

    def sinks(self, name: str) -> dict[str, AlertSinkConfig]:
        """The alert sinks of scan `name` (all sinks unless the scan lists some)."""
        chosen = self.scan(name).alerts
        return {k: v for k, v in self.alerts.items() if chosen is None or k in chosen}

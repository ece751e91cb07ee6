"""One resolution of judging defaults: metric, monitor, scan, then the config's defaults."""

from __future__ import annotations

import math
from typing import Any

import pytest
import yaml as yaml_module
from pydantic import ValidationError

from anomaly.analyzers import Size
from anomaly.config import MIN_HISTORY, ServiceConfig, resolve_plan
from anomaly.config.settings import ScanSettings
from anomaly.service.monitor_run import _Judging
from anomaly.streaming.judging import metric_plans
from detectors.holidays import Holidays


def config(scan: dict[str, Any], defaults: dict[str, Any] | None = None) -> ServiceConfig:
    return ServiceConfig.model_validate({
        "repository": ":memory:",
        "sources": {"events": {"path": "/data/events", "time_column": "day"}},
        "scans": {"daily": {"source": "events", "metrics": ["Size"], **scan}},
        "defaults": defaults or {},
    })  # fmt: skip


@pytest.mark.parametrize(
    ("scan", "defaults", "expected"),
    [
        ({}, {}, MIN_HISTORY),
        ({}, {"min_history": 3}, 3),
        ({"min_history": 5}, {"min_history": 3}, 5),
        ({"metrics": [{"analyzer": "Size", "min_history": 2}], "min_history": 5}, {}, 2),
    ],
)
def test_scans_take_the_most_specific_min_history_else_the_one_default(
    scan: dict[str, Any], defaults: dict[str, Any], expected: int
) -> None:
    assert config(scan, defaults).plans("daily")[0].min_history == expected


@pytest.mark.parametrize(("defaults", "expected"), [({}, MIN_HISTORY), ({"min_history": 4}, 4)])
def test_monitors_and_streams_resolve_the_same_default(
    defaults: dict[str, Any], expected: int
) -> None:
    scanned = config({"monitors": "auto"}, defaults)
    monitors = scanned.scan("daily").monitors
    assert monitors is not None and monitors.volume is not None
    judging = _Judging(scanned.scan("daily"), scanned.defaults)
    assert judging.plan(Size(), monitors.volume, "volume").min_history == expected
    assert metric_plans([Size()])[0].min_history == MIN_HISTORY


def test_column_health_is_quiet_unless_set_and_the_default_severity_is_error() -> None:
    assert resolve_plan(Size(), [None]).severity == "error"
    assert resolve_plan(Size(), [None], severity="warning").severity == "warning"
    scanned = config({"severity": "error"})
    assert resolve_plan(Size(), [scanned.scan("daily")], severity="warning").severity == "error"


def test_a_scans_settings_are_resolved_once_into_one_object() -> None:
    settings = ScanSettings.of(config({"alert_budget": {"fdr": 0.05}}), "daily")
    assert settings.tags == {"dataset": "events", "scan": "daily"}
    assert [p.analyzer for p in settings.plans] == [Size()]
    assert settings.budget is not None and settings.checks_per_week == 7.0


@pytest.mark.parametrize(
    ("metric", "detector", "domain"),
    [
        ("Size", "Adaptive", (0.0, math.inf)),
        ({"analyzer": "Completeness", "column": "email"}, "Adaptive", (0.0, 1.0)),
        ({"analyzer": "Mean", "column": "price"}, "Adaptive", None),
    ],
)
def test_the_default_detector_is_told_its_metrics_domain(
    metric: Any, detector: str, domain: tuple[float, float] | None
) -> None:
    plan = config({"metrics": [metric], "detector": detector}).plans("daily")[0]
    assert plan.detector.domain == domain


def test_a_detector_without_a_domain_is_used_as_configured() -> None:
    plan = config({"metrics": ["Size"], "detector": "RobustMAD"}).plans("daily")[0]
    assert type(plan.detector).__name__ == "RobustMAD"
    assert not hasattr(plan.detector, "domain")


@pytest.mark.parametrize(
    ("yaml", "expected"),
    [
        ("holidays: US", Holidays(("US",))),
        ("holidays: [US, CA]", Holidays(("US", "CA"))),
        ("holidays: {countries: [US], dates: [2024-12-24, 12-31]}",
         Holidays(("US",), ("2024-12-24", "12-31"))),  # YAML reads 2024-12-24 as a date
    ],
)  # fmt: skip
def test_the_default_detector_takes_a_holiday_calendar(yaml: str, expected: Holidays) -> None:
    detector = yaml_module.safe_load(f"{{type: Adaptive, {yaml}}}")
    plan = config({"detector": detector}).plans("daily")[0]
    assert plan.detector.holidays == expected
    assert plan.detector.domain == (0.0, math.inf)  # told its domain as without a calendar
    hash(plan.detector)  # a config's lists became a hashable calendar


def test_a_bad_holiday_calendar_names_its_key_and_what_is_allowed() -> None:
    with pytest.raises(ValidationError, match=r"holidays countries must be ISO 3166 codes"):
        config({"detector": {"type": "Adaptive", "holidays": "XX"}})

"""Alert budgets in scans: which anomalies are held back, what is stored and reported."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import numpy as np
import pandas as pd
import pytest

from anomaly.analyzers import Size
from anomaly.config import ScanSettings, ServiceConfig
from anomaly.config.budget_config import checks_per_week
from anomaly.config.plans import MetricPlan
from anomaly.config.schedule import ScheduleSpec
from anomaly.judging.budget import hold_back
from anomaly.judging.report import ScanReport, ScanStatus
from anomaly.judging.run import judge_run
from detectors import Adaptive, AlertBudget
from repository import AnomalyVerdict, MetricRecord, MetricsRepository, ResultKey
from repository.keys import canonical_key

START = datetime(2026, 1, 5, tzinfo=UTC)


def verdict(status: str, p: float | None, country: str) -> AnomalyVerdict:
    detail = "[Adaptive] Value 1.0 is not in bounds"
    return AnomalyVerdict(
        "Size(*)", status, "Adaptive", value=1.0, p_value=p, detail=detail, group={"c": country}
    )


def test_hold_back_turns_the_anomalies_the_budget_refuses_into_held_back() -> None:
    verdicts = [verdict("anomaly", 1e-9, "a"), verdict("anomaly", 9e-4, "b"),
                *(verdict("normal", 0.5, str(i)) for i in range(18))]  # fmt: skip
    kept, outcome = hold_back(verdicts, AlertBudget(false_alerts_per_week=0.1), 7)
    assert [v.status for v in kept[:2]] == ["anomaly", "held_back"]
    assert (kept[1].detail or "").startswith("Held back by the alert budget (p = 0.0009; 0.1 false")
    assert (outcome.series, outcome.held_back) == (20, 1)
    assert outcome.threshold == pytest.approx(0.1 / 140)


@pytest.mark.parametrize(
    ("partition", "schedule", "checks"),
    [("day", None, 7.0), ("hour", None, 168.0), (None, {"interval": "1h"}, 168.0),
     (None, {"cron": "0 */6 * * *"}, 28.0), (None, None, 7.0)],
)  # fmt: skip
def test_how_often_a_scan_judges_each_series(
    partition: str | None, schedule: dict[str, str] | None, checks: float
) -> None:
    spec = None if schedule is None else ScheduleSpec.model_validate(schedule)
    assert checks_per_week(partition, spec) == checks


def test_a_scan_with_a_budget_stores_held_back_verdicts_and_reports_them() -> None:
    config = ServiceConfig.model_validate({
        "repository": ":memory:",
        "sources": {"events": {"path": "/data/events", "time_column": "day"}},
        "scans": {"daily": {"source": "events", "metrics": ["Size"], "group_by": "c",
                            "alert_budget": {"false_alerts_per_week": 0.001}}},
    })  # fmt: skip
    repository = MetricsRepository(":memory:")  # judging needs no Spark
    settings = ScanSettings.of(config, "daily")
    rng = np.random.default_rng(1)
    days = [START + timedelta(days=d) for d in range(60)]
    rows, last = [], []
    for g in range(10):
        values = 1000 * rng.lognormal(0, 0.02, 60)
        values[-1] *= {0: 0.01, 1: 0.85}.get(g, 1.0)  # a collapse, and a smaller dip
        key = canonical_key({"c": str(g)})
        rows += [("Size(*)", key, d, v, False) for d, v in zip(days[:-1], values, strict=False)]
        last.append(
            MetricRecord(
                entity="Dataset", instance="*", name="Size", metric_id="Size(*)",
                value=float(values[-1]), group={"c": str(g)},
            )
        )  # fmt: skip
    frame = pd.DataFrame(rows, columns=["metric_id", "group", "timestamp", "value", "excluded"])
    frame["timestamp"] = pd.to_datetime(frame["timestamp"], utc=True)
    plan = MetricPlan(Size(), Adaptive(), "Adaptive", "error", 7)
    found = judge_run(
        last, {"Size(*)": plan}, repository, ResultKey(days[-1], settings.tags),
        budget=settings.budget, checks_per_week=settings.checks_per_week, history=frame,
    )  # fmt: skip
    report = ScanReport.of("daily", days[-1], settings.partition, found, metrics=1)
    statuses = {f.verdict.group["c"]: f.verdict.status for f in report.findings}
    assert statuses["0"] == "anomaly" and statuses["1"] == "held_back"
    assert report.budget is not None and report.budget.held_back == 1
    assert "1 held back by the alert budget" in report.headline()
    assert report.status is ScanStatus.ERROR  # the collapse still alerts
    stored = repository.load_verdicts(statuses=["held_back"])
    assert stored["c"].tolist() == ["1"] and stored["p_value"].iloc[0] > 0
    assert report.to_dict()["alert_budget"]["held_back"] == 1

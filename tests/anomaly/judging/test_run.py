"""judge_run: one core for scans, backfill partitions, stream windows and monitors."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from anomaly.analyzers import Size
from anomaly.config.plans import MetricPlan
from anomaly.judging.history import history_frame
from anomaly.judging.report import ScanReport, ScanStatus
from anomaly.judging.run import judge_run
from detectors import OnlineNormal
from repository import AnomalyVerdict, MetricRecord, MetricsRepository, ResultKey
from repository.keys import canonical_key

DAY0 = datetime(2026, 3, 1, tzinfo=UTC)
TAGS = {"dataset": "events", "scan": "daily"}
PLANS = {"Size(*)": MetricPlan(Size(), OnlineNormal(), "OnlineNormal", "error", 3)}


def size(value: float, city: str) -> MetricRecord:
    return MetricRecord(
        entity="Dataset",
        instance="*",
        name="Size",
        metric_id="Size(*)",
        value=value,
        group={"city": city},
    )


def stored(repository: MetricsRepository, days: int, city: str = "Zürich") -> None:
    for d in range(days):
        repository.save(ResultKey(DAY0 + timedelta(days=d), TAGS), [size(100.0 + d % 3, city)])


@pytest.mark.parametrize(
    ("value", "status", "level"),
    [(101.0, "normal", ScanStatus.OK), (400.0, "anomaly", ScanStatus.ERROR)],
)
def test_a_run_is_judged_on_its_history_and_stored_once_with_its_verdicts(
    value: float, status: str, level: ScanStatus
) -> None:
    repository = MetricsRepository(":memory:")
    stored(repository, 10)
    key = ResultKey(DAY0 + timedelta(days=10), TAGS)
    found = judge_run([size(value, "Zürich")], PLANS, repository, key)
    [verdict] = found.verdicts
    assert (verdict.status, verdict.group, verdict.severity) == (
        status,
        {"city": "Zürich"},
        "error",
    )
    assert verdict.history_length == 10
    saved = repository.load_verdicts()
    assert saved["status"].tolist() == [status]
    assert repository.history("Size(*)", group={"city": "Zürich"}).iloc[-1] == value
    assert ScanReport.of("daily", key.timestamp, "day", found, metrics=1).status is level


def test_a_replayed_run_judges_its_own_points_not_the_stored_ones() -> None:
    """A stream window replayed after a crash: its points are in the repository already."""
    repository = MetricsRepository(":memory:")
    stored(repository, 11)  # day 10 stored with a normal value
    key = ResultKey(DAY0 + timedelta(days=10), TAGS)
    [verdict] = judge_run([size(400.0, "Zürich")], PLANS, repository, key, store=False).verdicts
    assert verdict.status == "anomaly" and verdict.value == 400.0


def test_added_verdicts_join_the_run_with_their_severity() -> None:
    repository = MetricsRepository(":memory:")
    stored(repository, 10)
    key = ResultKey(DAY0 + timedelta(days=10), TAGS)
    schema = AnomalyVerdict("Schema(price)", "anomaly", "SchemaChange", detail="price dropped")
    found = judge_run([size(101.0, "Zürich")], PLANS, repository, key, added=[(schema, "warning")])
    assert [(v.metric_id, v.severity) for v in found.verdicts] == [
        ("Size(*)", "error"),
        ("Schema(price)", "warning"),
    ]
    assert sorted(repository.load_verdicts()["metric_id"]) == ["Schema(price)", "Size(*)"]


def test_series_are_named_by_the_repositorys_group_key() -> None:
    repository = MetricsRepository(":memory:")
    stored(repository, 3)
    frame = history_frame(repository, TAGS, ["Size(*)"], DAY0 + timedelta(days=3))
    assert set(frame["group"]) == {canonical_key({"city": "Zürich"})} == {'[["city","Zürich"]]'}

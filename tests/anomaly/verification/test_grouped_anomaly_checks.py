"""has_no_anomalies over many groups: one history read and one detector call for all of them,
with the verdicts each group would get on its own."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path

import numpy as np
import pytest

from anomaly import Size
from anomaly.analyzers.state import CountState
from anomaly.checks import AnomalyConstraint, Check, CheckLevel, ConstraintStatus
from anomaly.engine.context import AnalyzerContext
from anomaly.verification.evaluate import evaluate_check
from detectors import Adaptive, OnlineNormal
from repository import MetricRecord, MetricsRepository, ResultKey

DAY0 = datetime(2024, 5, 6, tzinfo=UTC)  # a Monday
DAYS = 42
GROUPS = 40
TAGS = {"dataset": "orders"}


def weekly(group: int, day: int, rng: np.random.Generator) -> float:
    """Rows a day of one country: weekends lower, each country its own size."""
    base = 200.0 * (1 + group % 7)
    return float(round(base * (0.6 if day % 7 >= 5 else 1.0) * rng.normal(1, 0.02)))


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> MetricsRepository:
    repo = MetricsRepository(Path(tmp_path_factory.mktemp("grouped")) / "metrics.duckdb")
    rng = np.random.default_rng(3)
    for day in range(DAYS):
        records = [
            MetricRecord("Dataset", "*", "Size", "Size(*)", weekly(g, day, rng), {"c": str(g)})
            for g in range(GROUPS)
            if not (g == 5 and day % 3 == 0)  # a country missing on some days
        ]
        repo.save(ResultKey(DAY0 + timedelta(days=day), TAGS), records)
    # Two runs at one time for country 7 alone: its history is ambiguous, the others' is not.
    for env in ("prod", "dev"):
        record = MetricRecord("Dataset", "*", "Size", "Size(*)", 1400.0, {"c": "7"})
        repo.save(ResultKey(DAY0 + timedelta(days=DAYS - 1, hours=1), {**TAGS, "env": env}),
                  [record])  # fmt: skip
    return repo


def today(values: dict[int, float]) -> AnalyzerContext:
    metric = Size().metric(CountState(0))
    return AnalyzerContext({
        (Size(), (str(g),)): replace(metric, value=v, group={"c": str(g)})
        for g, v in values.items()
    })  # fmt: skip


@pytest.mark.parametrize(
    "detector", [Adaptive(share_tails=False), OnlineNormal()], ids=["Adaptive", "OnlineNormal"]
)
def test_every_group_gets_the_verdict_it_would_get_alone(
    repo: MetricsRepository, detector: object
) -> None:
    rng = np.random.default_rng(11)
    values = {g: weekly(g, DAYS, rng) for g in range(GROUPS + 2)}  # two new countries
    values[3] *= 0.4  # a partial load
    values[9] = float("nan")  # a value that could not be computed
    when = DAY0 + timedelta(days=DAYS)
    check = Check(CheckLevel.ERROR, "orders").has_no_anomalies(Size(), detector, tags=TAGS)
    rows = evaluate_check(check, today(values), repo, ResultKey(when, TAGS))

    constraint = check.anomaly_constraints[0]
    assert [r.group["c"] for r in rows] == [str(g) for g in values]
    for g, row in zip(values, rows, strict=True):
        if g == 7:
            assert row.status is ConstraintStatus.FAILURE
            assert "AmbiguousSeriesError" in (row.message or "") and "2 runs at" in row.message
            continue
        history = repo.history("Size(*)", group={"c": str(g)}, tags=TAGS,
                               exclude_annotated=True)  # fmt: skip
        alone = constraint.judge(history, values[g], when)
        assert (row.status, row.lower, row.upper, row.p_value) == (
            constraint.status_of(alone), alone.lower, alone.upper, alone.p_value
        )
        if alone.history_length:  # a new group's message says so instead
            assert row.message == alone.detail
    statuses = {g: r.status for g, r in zip(values, rows, strict=True)}
    assert statuses[3] is ConstraintStatus.FAILURE
    assert statuses[9] is ConstraintStatus.FAILURE  # missing value
    assert statuses[GROUPS] is ConstraintStatus.INSUFFICIENT_HISTORY
    assert "new group" in (rows[GROUPS].message or "")
    if isinstance(detector, Adaptive):  # the calibrated default: no other group alerts
        assert [g for g, s in statuses.items() if s is ConstraintStatus.FAILURE] == [3, 7, 9]


def test_a_check_sees_only_history_before_its_run(repo: MetricsRepository) -> None:
    # A backfilled check on day 21 (a Monday) ignores the later days already stored.
    constraint = AnomalyConstraint(Size(), Adaptive(), tags=TAGS)
    check = Check(CheckLevel.ERROR, "orders").add_constraint(constraint)
    when = DAY0 + timedelta(days=21)
    (row,) = evaluate_check(check, today({2: 600.0}), repo, ResultKey(when, TAGS))
    assert row.history_length == 21 and row.status is ConstraintStatus.SUCCESS


class FailsOnNegatives:
    """A user's detector that cannot handle one group's data."""

    def detect(self, values: object, interval: object = None) -> list[object]:
        if any(v < 0 for v in list(values)):  # type: ignore[call-overload]
            raise ValueError("negative sizes are not supported")
        return []


def test_a_detector_error_in_one_group_fails_that_group_only(repo: MetricsRepository) -> None:
    values = {0: 200.0, 1: -1.0, 2: 600.0}
    check = Check(CheckLevel.ERROR, "orders").has_no_anomalies(
        Size(), FailsOnNegatives(), tags=TAGS
    )
    rows = evaluate_check(check, today(values), repo, ResultKey(DAY0 + timedelta(days=DAYS), TAGS))
    assert [r.status for r in rows] == [
        ConstraintStatus.SUCCESS, ConstraintStatus.FAILURE, ConstraintStatus.SUCCESS,
    ]  # fmt: skip
    assert rows[1].message == "ValueError: negative sizes are not supported"

"""has_no_anomalies honours exclusions: a fixed bad run no longer poisons later checks."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from anomaly import Size
from anomaly.analyzers.state import CountState
from anomaly.checks import Check, CheckLevel, ConstraintStatus
from anomaly.engine.context import AnalyzerContext
from anomaly.verification.evaluate import evaluate_check
from detectors import OnlineNormal
from repository import MetricRecord, MetricsRepository, ResultKey

DAY0 = datetime(2024, 5, 1, tzinfo=UTC)
SIZES = [100.0, 102.0, 98.0, 101.0, 99.0, 100.0, 5000.0, 101.0, 99.0, 100.0]  # day 6: bad run


@pytest.fixture
def repo(tmp_path: Path) -> MetricsRepository:
    repo = MetricsRepository(tmp_path / "metrics.duckdb")
    for n, size in enumerate(SIZES):
        record = MetricRecord("Dataset", "*", "Size", "Size(*)", size)
        repo.save(ResultKey(DAY0 + timedelta(days=n), {"dataset": "orders"}), [record])
    return repo


def judge(repo: MetricsRepository, size: float) -> tuple[ConstraintStatus, int, float | None]:
    """The check of day 10 with today's size: status, history length and upper bound."""
    # ignore_anomalies=False learns from every point, as a check that has no memory of past
    # verdicts does: the bad run of day 6 is part of every later baseline unless excluded.
    check = Check(CheckLevel.ERROR, "orders").has_no_anomalies(
        Size(), OnlineNormal(ignore_anomalies=False), tags={"dataset": "orders"}
    )
    context = AnalyzerContext({(Size(), ()): Size().metric(CountState(int(size)))})
    key = ResultKey(DAY0 + timedelta(days=10), {"dataset": "orders"})
    (row,) = evaluate_check(check, context, repo, key)
    return row.status, int(row.history_length or 0), row.upper


def test_an_excluded_run_leaves_the_baseline(repo: MetricsRepository) -> None:
    poisoned, seen, wide = judge(repo, 150.0)
    assert (poisoned, seen) == (ConstraintStatus.SUCCESS, 10)  # 150 hides in the widened band
    assert wide is not None and wide > 4000
    repo.annotate("excluded", DAY0 + timedelta(days=6), metric="Size(*)", note="re-loaded")
    caught, seen, narrow = judge(repo, 150.0)
    assert (caught, seen) == (ConstraintStatus.FAILURE, 9)
    assert narrow is not None and narrow < 110
    assert judge(repo, 100.0)[0] is ConstraintStatus.SUCCESS


def test_exclusions_of_other_metrics_groups_or_runs_do_not_apply(repo: MetricsRepository) -> None:
    day6 = DAY0 + timedelta(days=6)
    repo.annotate("excluded", day6, metric="Mean(price)")
    repo.annotate("excluded", day6, group={"country": "DE"})
    repo.annotate("excluded", day6, tags={"dataset": "customers"})
    repo.annotate("incident", day6, metric="Size(*)")  # a label, not an exclusion
    assert judge(repo, 150.0)[:2] == (ConstraintStatus.SUCCESS, 10)

"""Evaluating one check's constraints against a run's metrics and the stored history."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import pandas as pd

from anomaly.checks import (
    AnomalyConstraint,
    Check,
    Constraint,
    ConstraintResult,
    ConstraintStatus,
)
from anomaly.context import AnalyzerContext
from anomaly.metrics import Metric

if TYPE_CHECKING:
    from repository import MetricsRepository, ResultKey


def evaluate_check(
    check: Check,
    context: AnalyzerContext,
    repository: MetricsRepository | None,
    key: ResultKey | None,
) -> list[ConstraintResult]:
    """One row per constraint and group of `check`."""
    rows = []
    for constraint in check.constraints:
        for metric in context.for_analyzer(constraint.analyzer).values():
            if isinstance(constraint, Constraint):
                rows.append(_metric_row(check, constraint, metric))
            else:
                rows.append(_anomaly_row(check, constraint, metric, repository, key))
    return rows


def _metric_row(check: Check, constraint: Constraint, metric: Metric) -> ConstraintResult:
    status, message, value = constraint.evaluate(metric)
    return ConstraintResult(
        check.description, check.level, constraint.name, constraint.predicate, status, message,
        value, metric.metric_id, metric.group,
    )  # fmt: skip


def _anomaly_row(
    check: Check,
    constraint: AnomalyConstraint,
    metric: Metric,
    repository: MetricsRepository | None,
    key: ResultKey | None,
) -> ConstraintResult:
    def row(status: ConstraintStatus, message: str | None, **extra: Any) -> ConstraintResult:
        value = metric.value if isinstance(metric.value, int | float) else None
        return ConstraintResult(
            check.description, check.level, constraint.name, constraint.predicate, status,
            message, value, metric.metric_id, metric.group,
            detector=constraint.detector_name, **extra,
        )  # fmt: skip

    if not metric.succeeded:
        return row(ConstraintStatus.FAILURE, metric.error)
    if not isinstance(metric.value, int | float):
        return row(
            ConstraintStatus.FAILURE,
            f"{metric.metric_id} has several values; has_no_anomalies needs a single-valued "
            "metric (e.g. ApproxQuantile instead of ApproxQuantiles)",
        )
    if repository is None:
        return row(
            ConstraintStatus.FAILURE,
            "has_no_anomalies needs stored history: call use_repository(repo) on the suite",
        )
    try:
        history = _history(repository, constraint, metric.metric_id, metric.group, key)
        outcome = constraint.judge(history, float(metric.value))
    except Exception as error:  # a detector or storage error fails this constraint only
        return row(ConstraintStatus.FAILURE, f"{type(error).__name__}: {error}")
    message = outcome.message
    if outcome.history_length == 0 and metric.group:
        message = f"new group {dict(metric.group)}: no history yet, nothing to compare with"
    return row(
        outcome.status, message, lower=outcome.lower, upper=outcome.upper,
        history_length=outcome.history_length, score=outcome.score, p_value=outcome.p_value,
    )  # fmt: skip


def _history(
    repository: MetricsRepository,
    constraint: AnomalyConstraint,
    metric_id: str,
    group: Mapping[str, str | None],
    key: ResultKey | None,
) -> pd.Series:
    # Points annotated "excluded" (a fixed bad run, say) never serve as history.
    history = repository.history(
        metric_id, tags=constraint.tags, group=dict(group), after=constraint.after,
        before=constraint.before, exclude_annotated=True,
    )  # fmt: skip
    if key is not None:
        # The run never sees itself (a re-run of the same key) nor later runs (a backfill).
        history = history[history.index < pd.Timestamp(key.timestamp)]
    return history

"""Evaluating one check's constraints against a run's metrics and the stored history."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, cast

import pandas as pd

from anomaly.checks import (
    AnomalyConstraint,
    Check,
    Constraint,
    ConstraintResult,
    ConstraintStatus,
)
from anomaly.engine.context import AnalyzerContext
from anomaly.metrics import Metric
from repository import AnomalyVerdict
from repository.keys import canonical_key

if TYPE_CHECKING:
    from repository import MetricsRepository, ResultKey


def evaluate_check(
    check: Check,
    context: AnalyzerContext,
    repository: MetricsRepository | None,
    key: ResultKey | None,
) -> list[ConstraintResult]:
    """One row per constraint and group of `check`."""
    rows: list[ConstraintResult] = []
    for constraint in check.constraints:
        metrics = list(context.for_analyzer(constraint.analyzer).values())
        if isinstance(constraint, Constraint):
            rows.extend(_metric_row(check, constraint, metric) for metric in metrics)
        else:
            rows.extend(_anomaly_rows(check, constraint, metrics, repository, key))
    return rows


def _metric_row(check: Check, constraint: Constraint, metric: Metric) -> ConstraintResult:
    status, message, value = constraint.evaluate(metric)
    return ConstraintResult(
        check=check.description,
        level=check.level,
        constraint=constraint.name,
        predicate=constraint.predicate,
        status=status,
        message=message,
        value=value,
        metric_id=metric.metric_id,
        group=metric.group,
    )


def _anomaly_rows(
    check: Check,
    constraint: AnomalyConstraint,
    metrics: list[Metric],
    repository: MetricsRepository | None,
    key: ResultKey | None,
) -> list[ConstraintResult]:
    """The rows of one anomaly constraint, one per group: the histories of all groups are read
    in one query and judged in one detector call (a grouped check over thousands of groups)."""

    def row(metric: Metric, status: ConstraintStatus, verdict: AnomalyVerdict) -> ConstraintResult:
        value = metric.value if isinstance(metric.value, int | float) else None
        return ConstraintResult(
            check=check.description,
            level=check.level,
            constraint=constraint.name,
            predicate=constraint.predicate,
            status=status,
            message=verdict.detail,
            value=value,
            metric_id=metric.metric_id,
            group=metric.group,
            verdict=replace(verdict, value=value, group=dict(metric.group)),
        )

    def failure(metric: Metric, message: str | None) -> ConstraintResult:
        """A row whose metric could not be judged (an ``error`` verdict, no history read)."""
        verdict = AnomalyVerdict(
            metric_id=metric.metric_id,
            status="error",
            detector=constraint.detector_name,
            detail=message,
        )
        return row(metric, ConstraintStatus.FAILURE, verdict)

    rows: dict[int, ConstraintResult] = {}
    judged: list[int] = []
    for k, metric in enumerate(metrics):
        problem = _unjudgeable(metric, repository)
        if problem is not None:
            rows[k] = failure(metric, problem)
        else:
            judged.append(k)
    if judged:
        assert repository is not None
        try:
            verdicts = _judge(repository, constraint, [metrics[k] for k in judged], key)
        except Exception:  # one group's data or a storage error: each group on its own then
            verdicts = [_judge_alone(repository, constraint, metrics[k], key) for k in judged]
        for k, verdict in zip(judged, verdicts, strict=True):
            metric = metrics[k]
            if isinstance(verdict, Exception):
                rows[k] = failure(metric, f"{type(verdict).__name__}: {verdict}")
                continue
            if verdict.history_length == 0 and metric.group:
                message = f"new group {dict(metric.group)}: no history yet, nothing to compare with"
                verdict = replace(verdict, detail=message)
            rows[k] = row(metric, constraint.status_of(verdict), verdict)
    return [rows[k] for k in range(len(metrics))]


def _unjudgeable(metric: Metric, repository: MetricsRepository | None) -> str | None:
    """Why this metric cannot be judged against history, if it cannot."""
    if not metric.succeeded:
        return metric.error
    if not isinstance(metric.value, int | float):
        return (
            f"{metric.metric_id} has several values; has_no_anomalies needs a single-valued "
            "metric (e.g. ApproxQuantile instead of ApproxQuantiles)"
        )
    if repository is None:
        return "has_no_anomalies needs stored history: call use_repository(repo) on the suite"
    return None


def _judge_alone(
    repository: MetricsRepository,
    constraint: AnomalyConstraint,
    metric: Metric,
    key: ResultKey | None,
) -> AnomalyVerdict | Exception:
    """One group's outcome, or the error that prevented it (which fails this group only)."""
    try:
        return _judge(repository, constraint, [metric], key)[0]
    except Exception as error:
        return error


def _judge(
    repository: MetricsRepository,
    constraint: AnomalyConstraint,
    metrics: list[Metric],
    key: ResultKey | None,
) -> list[AnomalyVerdict | Exception]:
    """The outcome of each metric (all of one metric id), or the error that prevented it."""
    # Points annotated "excluded" (a fixed bad run, say) never serve as history.
    stored = repository.histories(
        metrics[0].metric_id,
        [m.group for m in metrics],
        tags=constraint.tags,
        after=constraint.after,
        before=constraint.before,
        exclude_annotated=True,
    )
    outcomes: dict[int, AnomalyVerdict | Exception] = {}
    ready: dict[int, tuple[pd.Series, float]] = {}
    for k, metric in enumerate(metrics):
        history = stored[canonical_key(dict(metric.group))]
        if isinstance(history, Exception):
            outcomes[k] = history
        else:
            ready[k] = (history, float(cast(float, metric.value)))
    if key is None:  # no run time: each value follows its history by one spacing
        judged = [constraint.judge(history, value) for history, value in ready.values()]
    else:  # at the run's time: it never sees itself (a re-run) nor later runs (a backfill)
        judged = constraint.judge_many(list(ready.values()), key.timestamp)
    outcomes.update(zip(ready, judged, strict=True))
    return [outcomes[k] for k in range(len(metrics))]

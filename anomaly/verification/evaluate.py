"""Evaluating one check's constraints against a run's metrics and the stored history."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime
from typing import TYPE_CHECKING

import pandas as pd

from anomaly.checks import (
    AnomalyConstraint,
    Check,
    CheckLevel,
    Constraint,
    ConstraintResult,
    ConstraintStatus,
)
from anomaly.config.plans import MetricPlan
from anomaly.engine.context import AnalyzerContext
from anomaly.judging.history import series_frame
from anomaly.judging.run import judge_run
from anomaly.metrics import Metric
from repository import AnomalyVerdict, ResultKey
from repository.keys import canonical_key, to_epoch_ms

if TYPE_CHECKING:
    from anomaly.config.metric_spec import Severity
    from repository import MetricsRepository


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
    return _result(check, constraint, metric, status, message, value)


def _result(
    check: Check,
    constraint: Constraint | AnomalyConstraint,
    metric: Metric,
    status: ConstraintStatus,
    message: str | None,
    value: float | None,
    verdict: AnomalyVerdict | None = None,
) -> ConstraintResult:
    """The row of one constraint and one group."""
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
        verdict=verdict,
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

    severity: Severity = "error" if check.level is CheckLevel.ERROR else "warning"

    def row(metric: Metric, status: ConstraintStatus, verdict: AnomalyVerdict) -> ConstraintResult:
        value = metric.value if isinstance(metric.value, int | float) else None
        verdict = replace(verdict, value=value, group=dict(metric.group))
        return _result(check, constraint, metric, status, verdict.detail, value, verdict)

    def failure(metric: Metric, message: str | None) -> ConstraintResult:
        """A row whose metric could not be judged (an ``error`` verdict, no history read)."""
        verdict = AnomalyVerdict(
            metric_id=metric.metric_id,
            status="error",
            detector=constraint.detector_name,
            detail=message,
            severity=severity,
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
            verdicts = _judge(repository, constraint, [metrics[k] for k in judged], key, severity)
        except Exception:  # one group's data or a storage error: each group on its own then
            verdicts = [
                _judge_alone(repository, constraint, metrics[k], key, severity) for k in judged
            ]
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
    severity: Severity,
) -> AnomalyVerdict | Exception:
    """One group's outcome, or the error that prevented it (which fails this group only)."""
    try:
        return _judge(repository, constraint, [metric], key, severity)[0]
    except Exception as error:
        return error


def _judge(
    repository: MetricsRepository,
    constraint: AnomalyConstraint,
    metrics: list[Metric],
    key: ResultKey | None,
    severity: Severity,
) -> list[AnomalyVerdict | Exception]:
    """The outcome of each metric (all of one metric id), or the error that prevented it:
    judged by ``judge_run`` as a scan's metrics are, on the histories of all groups read in
    one query (``repository.histories``: excluded points left out; a group with several runs
    at one time is an error of its own)."""
    metric_id = metrics[0].metric_id
    groups = [canonical_key(dict(m.group)) for m in metrics]
    stored = repository.histories(
        metric_id,
        [m.group for m in metrics],
        tags=constraint.tags,
        after=constraint.after,
        before=_cut(constraint.before, key),
        exclude_annotated=True,
    )
    outcomes: dict[int, AnomalyVerdict | Exception] = {}
    ready: dict[str, pd.Series] = {}
    moments: dict[pd.Timestamp, list[int]] = {}
    for k, group in enumerate(groups):
        history = stored[group]
        if isinstance(history, Exception):
            outcomes[k] = history
            continue
        ready[group] = history
        # Without a run time, the value follows its history by one spacing.
        moment = pd.Timestamp(key.timestamp) if key else _following(history)
        moments.setdefault(moment, []).append(k)
    plan = MetricPlan(
        constraint.analyzer,
        constraint.detector,
        constraint.detector_name,
        severity,
        constraint.min_history,
    )
    plans = {metric_id: plan}
    for moment, judged in moments.items():
        run = judge_run(
            [next(metrics[k].records()) for k in judged],
            plans,
            repository,
            ResultKey(moment, {}),
            history=series_frame(metric_id, {groups[k]: ready[groups[k]] for k in judged}),
            store=False,  # the suite stores the run with its outcomes, once
        )
        found = {canonical_key(dict(v.group)): v for v in run.verdicts}
        outcomes.update({k: constraint.reported(found[groups[k]]) for k in judged})
    return [outcomes[k] for k in range(len(metrics))]


def _cut(before: datetime | int | None, key: ResultKey | None) -> datetime | int | None:
    """The end of the history of a run keyed `key`: strictly before the run's time, so that it
    never sees itself (a re-run) nor later runs (a backfill; another writer's runs stored
    since), which therefore cannot make its history ambiguous either."""
    if key is None:
        return before
    end = to_epoch_ms(key.timestamp) - 1  # times are stored to the millisecond
    return end if before is None else min(end, to_epoch_ms(before))


def _following(history: pd.Series) -> pd.Timestamp:
    """The time of a value without a run time: one (median) spacing after its history."""
    times = pd.DatetimeIndex(history.index)
    if len(times) >= 2:
        return times[-1] + pd.Series(times[1:] - times[:-1]).median()
    return times[-1] + pd.Timedelta(days=1) if len(times) else pd.Timestamp(0, tz="UTC")

"""Judging one run: the one core that scans, backfills, stream windows and monitors share.

``judge_run`` takes a run's records and plans, frames their history (annotations applied),
calls the detectors, applies the alert budget, adds an ``error`` verdict per failed metric
and any verdicts found elsewhere (a monitor's schema changes), stores the run and its
verdicts in one transaction, and returns them: `RunVerdicts`, what a report and its alerts
are made of.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import timedelta
from typing import TYPE_CHECKING

import pandas as pd

from anomaly.judging.budget import hold_back
from anomaly.judging.history import history_frame, with_run
from anomaly.judging.verdicts import failure_verdicts, judge
from repository import AnomalyVerdict, MetricRecord, ResultKey

if TYPE_CHECKING:
    from anomaly.config.metric_spec import Severity
    from anomaly.config.plans import MetricPlan
    from anomaly.engine.context import AnalyzerContext
    from detectors import AlertBudget, BudgetOutcome
    from repository import MetricsRepository


@dataclass(frozen=True)
class RunVerdicts:
    """A judged run: every verdict (judged, held back, failed, added), each with its
    metric's severity; the alert budget's outcome (None without a budget); its group count.

    >>> RunVerdicts([AnomalyVerdict("Size(*)", "anomaly", "Adaptive", severity="error")]).groups
    0
    """

    verdicts: list[AnomalyVerdict]
    budget: BudgetOutcome | None = None
    groups: int = 0


def judge_run(
    records: Sequence[MetricRecord],
    plans: Mapping[str, MetricPlan],
    repository: MetricsRepository,
    key: ResultKey,
    *,
    budget: AlertBudget | None = None,
    checks_per_week: float = 7.0,
    history: pd.DataFrame | None = None,
    history_tags: Mapping[str, str] | None = None,
    window: timedelta | None = None,
    added: Iterable[tuple[AnomalyVerdict, Severity]] = (),
    store: bool = True,
) -> RunVerdicts:
    """Judge the run `records` (keyed `key`) on the stored history of its series and store
    the run with its verdicts (unless not `store`).

    `history`: the stored points (``history_frame``) when the caller read them already (a
    backfill reads them once for all its partitions), else read here from the runs with
    `history_tags` (default: `key`'s tags) within `window` of the run. The run's own points
    are always its `records`. `added`: verdicts judged elsewhere, with their severity.
    """
    at = key.timestamp
    if history is None:
        after = at - window if window else None
        history = history_frame(repository, history_tags or key.tags, plans, at, after)
    frame = with_run(history, records, plans, at)
    verdicts = judge(frame, at, plans, window)
    outcome = None
    if budget is not None:
        verdicts, outcome = hold_back(verdicts, budget, checks_per_week)
    verdicts += failure_verdicts(records, plans)
    verdicts = [replace(v, severity=plans[v.metric_id].severity) for v in verdicts]
    verdicts += [replace(verdict, severity=severity) for verdict, severity in added]
    if store:
        repository.save(key, records, verdicts=verdicts)
    return RunVerdicts(verdicts, outcome, count_groups(records))


def plans_by_record(context: AnalyzerContext, plans: Sequence[MetricPlan]) -> dict[str, MetricPlan]:
    """Judged record metric id -> plan (multi-valued metrics have one id per key, one plan)."""
    of_analyzer = {p.analyzer: p for p in plans}
    return {
        record.metric_id: of_analyzer[analyzer]
        for (analyzer, _), metric in context.metrics.items()
        if analyzer in of_analyzer
        for record in metric.judged_records()
    }


def count_groups(records: Iterable[MetricRecord]) -> int:
    """The number of distinct groups among records."""
    return len({tuple(sorted(r.group.items())) for r in records})

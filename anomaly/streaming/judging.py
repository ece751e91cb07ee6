"""A closed window becomes one run: stored, judged against earlier windows, alerted as a scan.

The run's key is the window start with the stream's tags plus ``window`` (its label); the
history it is judged on is every earlier window of the stream (the tags without ``window``).
Storing a run again replaces it, so closing a window twice (a replay after a crash) stores the
same run once. The stream sends alerts before it marks the window closed: after a crash in
between, an alert may be sent twice but is never lost.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import timedelta
from typing import Any, cast

from anomaly.analyzers import Analyzer
from anomaly.config.alert_config import AlertSinkConfig
from anomaly.config.metric_spec import Severity
from anomaly.config.plans import MetricPlan, resolve_plan
from anomaly.engine.context import AnalyzerContext
from anomaly.engine.differential.merge import metrics_from_states
from anomaly.judging.report import ScanReport
from anomaly.judging.run import judge_run, plans_by_record
from anomaly.judging.sinks import dispatch
from anomaly.streaming.ledger import WindowDelta
from anomaly.streaming.windows import Window
from detectors import AlertBudget
from repository import MetricRecord, MetricsRepository, ResultKey

LOG = logging.getLogger("anomaly.streaming")
WINDOW_TAG = "window"
LATE_ROWS = "LateRows(*)"
"""The metric id of the rows that reached a window after it closed (stored on its run)."""
DEFAULT: Any = object()
"""Stands for the config's default detector."""


def metric_plans(
    metrics: Sequence[Analyzer[Any] | MetricPlan],
    detector: Any = DEFAULT,
    severity: str | None = None,
    min_history: int | None = None,
) -> list[MetricPlan]:
    """Plans for `metrics`: a `MetricPlan` as given, an analyzer judged by `detector` (default:
    the config default's detector; None: stored, not judged) with the default severity and
    minimum history unless given (`resolve_plan`).

    >>> from anomaly.analyzers import Size
    >>> [(p.analyzer.metric_id, p.severity) for p in metric_plans([Size()], severity="warning")]
    [('Size(*)', 'warning')]
    """
    plans = []
    for metric in metrics:
        if isinstance(metric, MetricPlan):
            plans.append(metric)
            continue
        plan = resolve_plan(metric, [], severity=cast(Severity | None, severity))
        if min_history is not None:
            plan = replace(plan, min_history=min_history)
        if detector is not DEFAULT:
            label = "none" if detector is None else type(detector).__name__
            plan = replace(plan, detector=detector, detector_label=label)
        plans.append(plan)
    return plans


@dataclass(frozen=True)
class WindowResult:
    """A closed window: its metrics, the scan-style report of its verdicts, when it was stored.

    ``stored_at`` is the wall-clock time (``time.time()``) at which its metrics and verdicts
    were in the repository.
    """

    window: Window
    context: AnalyzerContext
    report: ScanReport
    stored_at: float


class WindowJudge:
    """Stores, judges and alerts the closed windows of one stream."""

    def __init__(
        self,
        name: str,
        repository: MetricsRepository,
        plans: Sequence[MetricPlan],
        tags: Mapping[str, str],
        group_by: Sequence[str] = (),
        sinks: Mapping[str, AlertSinkConfig] | None = None,
        history_window: timedelta | None = None,
        budget: AlertBudget | None = None,
        checks_per_week: float = 7.0,
    ) -> None:
        if WINDOW_TAG in tags:
            raise ValueError(f"the tag {WINDOW_TAG!r} is set per window by the stream")
        self.name = name
        self.repository = repository
        self.plans = list(plans)
        self.tags = dict(tags)
        self.group_by = tuple(group_by)
        self.sinks = dict(sinks or {})
        self.history_window = history_window
        self.budget = budget
        self.checks_per_week = checks_per_week

    def key(self, window: Window) -> ResultKey:
        """The repository key of a window's run."""
        return ResultKey(window.start_time, {**self.tags, WINDOW_TAG: window.label})

    def context(self, delta: WindowDelta) -> AnalyzerContext:
        """The window's metrics from its merged states; a metric that failed in any of the
        window's batches fails with that batch's message (its value would be partial)."""
        analyzers = [p.analyzer for p in self.plans]
        context = metrics_from_states(analyzers, {"window": delta.states}, self.group_by)
        if not delta.failures:
            return context
        metrics = dict(context.metrics)
        for (analyzer, group), metric in context.metrics.items():
            message = delta.failures.get(analyzer.metric_id)
            if message is not None:
                metrics[(analyzer, group)] = analyzer.failure(message, metric.group)
        return replace(context, metrics=metrics)

    def store(self, window: Window, delta: WindowDelta) -> WindowResult:
        """Judge the window on the earlier windows and store its run and verdicts in one
        transaction (alerts: `alert`)."""
        started = time.monotonic()
        context = self.context(delta)
        records = list(context)
        # As a scan: the history is every earlier window of the stream (tags without the
        # window's label); one check per window and series for the budget.
        found = judge_run(
            records,
            plans_by_record(context, self.plans),
            self.repository,
            self.key(window),
            budget=self.budget,
            checks_per_week=self.checks_per_week,
            history_tags=self.tags,
            window=self.history_window,
        )
        stored_at = time.time()
        report = ScanReport.of(self.name, window.start_time, None, found, len(self.plans))
        report.seconds = time.monotonic() - started
        # The merged states are not kept: a frequency table may be large.
        return WindowResult(window, replace(context, states={}), report, stored_at)

    def alert(self, result: WindowResult) -> None:
        """Send a window's report to the alert sinks (and log its problems)."""
        if result.report.problems:
            LOG.warning(
                "stream %s window %s: %s",
                self.name,
                result.window.label,
                result.report.headline(),
            )
        dispatch(result.report, self.sinks, self.repository.deliveries)

    def record_late(self, window: Window, rows: int) -> None:
        """Store (replace) the count of rows that reached `window` after it closed."""
        record = MetricRecord(
            entity="Dataset", instance="*", name="LateRows", metric_id=LATE_ROWS, value=float(rows)
        )
        self.repository.save(self.key(window), [record])

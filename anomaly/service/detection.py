"""Judging the points of one run against their stored history: verdicts per metric and group.

A scan and a backfill both go through `judge`, with the history as stored up to the run's
time, which is why a backfill gives the verdicts day-by-day scans would have given.

Points covered by an ``excluded`` annotation (``repo.annotate("excluded", ...)``) are judged
when they are the run's own points but never serve as history, as for ``has_no_anomalies``:
a fixed bad run no longer widens or shifts the band of later runs. ``incident`` and
``expected`` annotations label points for backtests and stay in the history.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any, cast

import pandas as pd

from anomaly.service.annotated import kinds, of_run
from detectors import AlertBudget, BudgetOutcome, Status, detect_frame
from repository import AnomalyVerdict, MetricRecord

if TYPE_CHECKING:
    from anomaly.config.plans import MetricPlan
    from repository import MetricsRepository

COLUMNS = ["metric_id", "group", "timestamp", "value", "excluded"]
EXCLUDED = "excluded"
"""The annotation kind whose points never serve as history (the kind ``has_no_anomalies`` and
the backtest leave out of baselines)."""
STATUS = {
    Status.OK.value: "normal",
    Status.ANOMALY.value: "anomaly",
    Status.INSUFFICIENT_HISTORY.value: "insufficient_history",
    Status.MISSING.value: "error",
}


def group_text(group: Mapping[str, str | None]) -> str:
    """The canonical text of a group (JSON of its sorted items), usable as one frame column.

    >>> group_text({"country": "DE"}), group_values('[["country","DE"]]')
    ('[["country","DE"]]', {'country': 'DE'})
    """
    return json.dumps(sorted(group.items()), separators=(",", ":"))


def group_values(text: str) -> dict[str, str | None]:
    """The group back from `group_text`."""
    return dict(json.loads(text))


def history_frame(
    repo: MetricsRepository,
    tags: Mapping[str, str],
    metric_ids: Iterable[str],
    before: datetime,
    after: datetime | None = None,
) -> pd.DataFrame:
    """Stored succeeded points (``COLUMNS``) of these metrics in runs with these tags, up to
    `before` inclusive, sorted by time; ``excluded`` says whether an ``excluded`` annotation
    covers the point (same scope rules as ``repo.history(..., exclude_annotated=True)``)."""
    ids = sorted(set(metric_ids))
    query = repo.load().with_tags(tags).for_metrics(ids).before(before)
    if after is not None:
        query = query.after(after)
    exclusions = repo.annotations(kinds=[EXCLUDED], tags=tags, after=after, before=before)
    rows = []
    for run in query.get():
        at = run.key.timestamp
        applying = of_run(exclusions, at, run.key.tags)
        for record in run:
            excluded = bool(applying) and bool(kinds(applying, record.metric_id, record.group, at))
            rows.append((record.metric_id, group_text(record.group), at, record.value, excluded))
    frame = pd.DataFrame(rows, columns=COLUMNS).astype({"excluded": bool})
    frame["timestamp"] = pd.to_datetime(frame["timestamp"], utc=True)
    return frame.sort_values("timestamp", kind="stable", ignore_index=True)


def without_exclusions(frame: pd.DataFrame, moment: pd.Timestamp) -> pd.DataFrame:
    """`frame` without its excluded points, except those at `moment` (always judged).

    >>> frame = pd.DataFrame({"timestamp": [1, 2, 3], "excluded": [False, True, True]})
    >>> without_exclusions(frame, 3)["timestamp"].tolist()
    [1, 3]
    """
    if EXCLUDED not in frame.columns:
        return frame  # a frame built elsewhere, without annotations
    return frame[~frame[EXCLUDED].astype(bool) | (frame["timestamp"] == moment)]


def judge(
    frame: pd.DataFrame,
    at: datetime,
    plans: Mapping[str, MetricPlan],
    window: timedelta | None = None,
) -> list[AnomalyVerdict]:
    """Verdicts on the points at time `at` of `frame` (history: its earlier points that are not
    excluded, within `window` of `at` if given), for the metric ids that have a plan with a
    detector."""
    moment = pd.Timestamp(at)
    within = frame["timestamp"] <= moment
    if window is not None:
        within &= frame["timestamp"] >= moment - window
    frame = without_exclusions(frame[within], moment)
    judged = [m for m, p in plans.items() if p.detector is not None]
    current = frame[(frame["timestamp"] == moment) & frame["metric_id"].isin(judged)]
    series = ["metric_id", "group"]
    # The series with a point in this run and their history; one detector call per detector,
    # not per metric: a monitored table has hundreds of series.
    points = frame.merge(current[series].drop_duplicates(), on=series)
    earlier = points.groupby(series)["timestamp"].nunique() - 1
    needed = [plans[str(m)].min_history for m in earlier.index.get_level_values(0)]
    short = earlier[earlier.to_numpy() < needed]
    newest = current.groupby(series)["value"].last()
    verdicts: list[AnomalyVerdict] = []
    for key, count in short.items():
        metric_id, group = cast(tuple[str, str], key)
        plan = plans[metric_id]
        verdict = AnomalyVerdict(
            str(metric_id), "insufficient_history", plan.detector_label,
            value=float(newest[(metric_id, group)]),
            detail=f"{count} earlier points; min_history is {plan.min_history}",
            history_length=int(count), group=group_values(str(group)),
        )  # fmt: skip
        verdicts.append(verdict)
    ready = points[~pd.MultiIndex.from_frame(points[series]).isin(short.index)]
    batches: dict[int, list[str]] = {}
    for metric_id in ready["metric_id"].unique():
        batches.setdefault(id(plans[str(metric_id)].detector), []).append(str(metric_id))
    for ids in batches.values():
        batch = ready[ready["metric_id"].isin(ids)]
        result = detect_frame(
            batch, plans[ids[0]].detector, by=series, newest_only=True, anomalies_only=False
        )
        for row in result.itertuples(index=False):
            verdicts.append(_verdict(str(row.metric_id), plans[str(row.metric_id)], row))
    return sorted(verdicts, key=lambda v: v.metric_id)


HELD_BACK = "held_back"
"""The status of an anomaly an alert budget did not alert on (stored, never alerted)."""


def hold_back(
    verdicts: Sequence[AnomalyVerdict], budget: AlertBudget, checks_per_week: float
) -> tuple[list[AnomalyVerdict], BudgetOutcome]:
    """The run's verdicts with the anomalies the budget does not admit turned ``held_back``.

    Every verdict with a p-value is a series judged this run; all of them set the budget's
    per-check rate (or take part in Benjamini-Hochberg), anomalies or not.
    """
    judged = [v for v in verdicts if v.status in ("normal", "anomaly")]
    keep, outcome = budget.apply(
        [v.p_value for v in judged], [v.status == "anomaly" for v in judged], checks_per_week
    )
    held = {id(v) for v, kept in zip(judged, keep.tolist(), strict=True)
            if v.status == "anomaly" and not kept}  # fmt: skip
    return [_held(v, outcome) if id(v) in held else v for v in verdicts], outcome


def _held(verdict: AnomalyVerdict, outcome: BudgetOutcome) -> AnomalyVerdict:
    why = (
        f"Held back by the alert budget (p = {verdict.p_value:.2g}; {outcome.rule} admits "
        f"p < {outcome.threshold:.2g})"
    )
    detail = f"{why}: {verdict.detail}" if verdict.detail else why
    return replace(verdict, status=HELD_BACK, detail=detail)


def _verdict(metric_id: str, plan: MetricPlan, row: Any) -> AnomalyVerdict:
    return AnomalyVerdict(
        metric_id, STATUS[row.status], plan.detector_label, value=_number(row.value),
        lower=_number(row.lower), upper=_number(row.upper), score=_number(row.confidence),
        detail=row.detail or None, history_length=int(row.history),
        group=group_values(row.group), p_value=_number(getattr(row, "p_value", math.nan)),
    )  # fmt: skip


def _number(value: Any) -> float | None:
    return None if value is None or math.isnan(value) else float(value)


def failure_verdicts(
    records: Sequence[MetricRecord], plans: Mapping[str, MetricPlan]
) -> list[AnomalyVerdict]:
    """An ``error`` verdict for every failed metric (it could not be computed)."""
    verdicts = []
    for record in records:
        if not record.succeeded and record.metric_id in plans:
            detector = plans[record.metric_id].detector_label
            verdicts.append(
                AnomalyVerdict(
                    record.metric_id, "error", detector, detail=record.error, group=record.group
                )
            )
    return verdicts

"""Judging the points of one run against their stored history: verdicts per metric and group.

A scan and a backfill both go through `judge`, with the history as stored up to the run's
time, which is why a backfill gives the verdicts day-by-day scans would have given.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

import pandas as pd

from detectors import Status, detect_frame
from repository import AnomalyVerdict, MetricRecord

if TYPE_CHECKING:
    from anomaly.service.config import MetricPlan
    from repository import MetricsRepository

COLUMNS = ["metric_id", "group", "timestamp", "value"]
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
    `before` inclusive, sorted by time."""
    query = repo.load().with_tags(tags).for_metrics(sorted(set(metric_ids))).before(before)
    if after is not None:
        query = query.after(after)
    rows = [
        (record.metric_id, group_text(record.group), run.key.timestamp, record.value)
        for run in query.get()
        for record in run
    ]
    frame = pd.DataFrame(rows, columns=COLUMNS)
    frame["timestamp"] = pd.to_datetime(frame["timestamp"], utc=True)
    return frame.sort_values("timestamp", kind="stable", ignore_index=True)


def judge(
    frame: pd.DataFrame,
    at: datetime,
    plans: Mapping[str, MetricPlan],
    window: timedelta | None = None,
) -> list[AnomalyVerdict]:
    """Verdicts on the points at time `at` of `frame` (history: its earlier points, within
    `window` of `at` if given), for the metric ids that have a plan with a detector."""
    moment = pd.Timestamp(at)
    within = frame["timestamp"] <= moment
    if window is not None:
        within &= frame["timestamp"] >= moment - window
    frame = frame[within]
    current = frame[frame["timestamp"] == moment]
    verdicts: list[AnomalyVerdict] = []
    for metric_id, now in current.groupby("metric_id", sort=True):
        plan = plans.get(str(metric_id))
        if plan is None or plan.detector is None:
            continue
        points = frame[(frame["metric_id"] == metric_id) & frame["group"].isin(now["group"])]
        earlier = points.groupby("group")["timestamp"].nunique() - 1
        short = earlier[earlier < plan.min_history]
        for group, count in short.items():
            value = float(now.loc[now["group"] == group, "value"].iloc[-1])
            verdict = AnomalyVerdict(
                str(metric_id), "insufficient_history", plan.detector_label, value=value,
                detail=f"{count} earlier points; min_history is {plan.min_history}",
                history_length=int(count), group=group_values(str(group)),
            )  # fmt: skip
            verdicts.append(verdict)
        ready = points[~points["group"].isin(short.index)]
        if ready.empty:
            continue
        result = detect_frame(
            ready, plan.detector, by="group", newest_only=True, anomalies_only=False
        )
        for row in result.itertuples(index=False):
            verdicts.append(_verdict(str(metric_id), plan, row))
    return verdicts


def _verdict(metric_id: str, plan: MetricPlan, row: Any) -> AnomalyVerdict:
    return AnomalyVerdict(
        metric_id, STATUS[row.status], plan.detector_label, value=_number(row.value),
        lower=_number(row.lower), upper=_number(row.upper), score=_number(row.confidence),
        detail=row.detail or None, history_length=int(row.history),
        group=group_values(row.group),
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

"""Verdicts on the points of one run against their history, per metric and group.

A scan, a backfill partition and a stream window all go through `judge` (by way of
`judge_run`), with the history as stored up to the run's time, which is why a backfill gives
the verdicts day-by-day scans would have given. This is the one module outside ``detectors``
that calls ``detect_frame``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import asdict
from datetime import datetime, timedelta
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any, cast

import pandas as pd

from anomaly.judging.history import without_exclusions
from detectors import Status, detect_frame, is_newest_anomalous
from repository import AnomalyVerdict, MetricRecord
from repository.keys import group_of

if TYPE_CHECKING:
    from anomaly.config.plans import MetricPlan

STATUS = {
    Status.OK.value: "normal",
    Status.ANOMALY.value: "anomaly",
    Status.INSUFFICIENT_HISTORY.value: "insufficient_history",
    Status.MISSING.value: "error",
}
"""The detectors' status -> the app's one status vocabulary (the stored verdict's)."""


def detect_newest(frame: pd.DataFrame, detector: Any, by: str | list[str]) -> pd.DataFrame:
    """The detector's verdict on the newest point of each series of `frame` (one row per
    series, anomaly or not): the one call of ``detect_frame`` of the app, shared by scans and
    ``has_no_anomalies``, so a vectorised detector judges thousands of series in one pass."""
    return detect_frame(frame, detector, by=by, newest_only=True, anomalies_only=False)


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
            metric_id=str(metric_id),
            status="insufficient_history",
            detector=plan.detector_label,
            value=_number(newest[(metric_id, group)]),
            detail=f"{count} earlier points; min_history is {plan.min_history}",
            history_length=int(count),
            group=group_of(str(group)),
        )
        verdicts.append(verdict)
    ready = points[~pd.MultiIndex.from_frame(points[series]).isin(short.index)]
    # A new value that is NaN (could not be measured) is the detectors' "missing": judged on
    # its own, since detect_frame drops NaN points and would judge the point before it.
    unmeasured = newest[newest.isna()].index.difference(short.index)
    for key in unmeasured:
        metric_id, group = cast(tuple[str, str], key)
        verdicts.append(_missing(metric_id, group, plans[metric_id], ready, moment))
    ready = ready[~pd.MultiIndex.from_frame(ready[series]).isin(unmeasured)]
    batches: dict[int, list[str]] = {}
    for metric_id in ready["metric_id"].unique():
        batches.setdefault(id(plans[str(metric_id)].detector), []).append(str(metric_id))
    for ids in batches.values():
        batch = ready[ready["metric_id"].isin(ids)]
        result = detect_newest(batch, plans[ids[0]].detector, series)
        for row in result.itertuples(index=False):
            verdicts.append(_verdict(str(row.metric_id), plans[str(row.metric_id)], row))
    return sorted(verdicts, key=lambda v: v.metric_id)


def _missing(
    metric_id: str, group: str, plan: MetricPlan, points: pd.DataFrame, moment: pd.Timestamp
) -> AnomalyVerdict:
    """The verdict on a NaN new value of one series of `points`, at `moment`."""
    mine = points[(points["metric_id"] == metric_id) & (points["group"] == group)]
    earlier = mine[mine["timestamp"] < moment]
    history = pd.Series(earlier["value"].to_numpy(dtype=float), index=earlier["timestamp"])
    found = is_newest_anomalous(history, (moment, math.nan), plan.detector)
    row = SimpleNamespace(**asdict(found) | {"status": found.status.value, "group": group})
    return _verdict(metric_id, plan, row)


def _verdict(metric_id: str, plan: MetricPlan, row: Any) -> AnomalyVerdict:
    return AnomalyVerdict(
        metric_id=metric_id,
        status=STATUS[row.status],
        detector=plan.detector_label,
        value=_number(row.value),
        lower=_number(row.lower),
        upper=_number(row.upper),
        score=_number(row.confidence),
        detail=row.detail or None,
        history_length=int(row.history),
        group=group_of(row.group),
        p_value=_number(getattr(row, "p_value", math.nan)),
    )


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
                    metric_id=record.metric_id,
                    status="error",
                    detector=detector,
                    detail=record.error,
                    group=record.group,
                )
            )
    return verdicts

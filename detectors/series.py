"""The time-aware layer: detectors on series indexed by time instead of by position.

Missing values (NaN, None, NaT times) are dropped, points are sorted by time and, for a
duplicated timestamp, the last one given wins (a re-run replaces its earlier result). A time
given as text that cannot be read as one is an error (``InvalidTimeError``) naming it.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from detectors.anomaly import Status
from detectors.base import as_detector, for_times
from detectors.errors import InvalidTimeError
from detectors.evaluation import STATUS_ARRAY, STATUSES, Evaluation
from detectors.grouped import group_series

Points = (
    pd.Series
    | Mapping[Any, float | None]
    | Iterable[tuple[Any, float | None]]
    | Iterable[float | None]
)


def clean_series(points: Points) -> pd.Series:
    """A float series indexed by time, sorted, without missing values or duplicate times
    (the same cleaning as :func:`~detectors.detect_frame` applies per group).

    Examples
    --------
    >>> clean_series([("2024-01-02", 2.0), ("2024-01-01", 1.0), ("2024-01-02", 3.0)]).tolist()
    [1.0, 3.0]
    >>> clean_series([3.0, None, 4.0]).tolist()  # bare values: their positions are the times
    [3.0, 4.0]
    """
    if isinstance(points, pd.Series):
        times, values = points.index, points.to_numpy()
    else:
        pairs = list(points.items()) if isinstance(points, Mapping) else list(points)
        if all(v is None or isinstance(v, int | float | np.number) for v in pairs):
            pairs = list(enumerate(pairs))
        times = pd.Index([t for t, _ in pairs], dtype=object)
        values = np.array([v for _, v in pairs], dtype=object)
    if times.dtype == object and _looks_temporal(times):
        times = _parse_times(times)
    grouped = group_series(pd.DataFrame({"time": times, "value": values}), [], "time", "value")
    return pd.Series(grouped.values, index=grouped.times)


def _parse_times(given: pd.Index) -> pd.Index:
    """Times given as text (or timestamps): every one read, whatever its format; an unreadable
    one is an error naming it (dropping it would hide the point from the detector)."""
    parsed = pd.Index(pd.to_datetime(given, errors="coerce", format="mixed"))
    unread = [t for t, p in zip(given, parsed, strict=True) if p is pd.NaT and not pd.isna(t)]
    if unread:
        shown = ", ".join(repr(t) for t in unread[:5]) + (", ..." if len(unread) > 5 else "")
        raise InvalidTimeError(
            f"{len(unread)} of {len(given)} times cannot be read as times: {shown}. Allowed: "
            "timestamps, or text in ISO 8601 (2024-05-01, 2024-05-01T06:00:00+00:00) or another "
            "format pandas.to_datetime reads; None or NaT for a missing time (dropped)"
        )
    return parsed


def _looks_temporal(index: pd.Index) -> bool:
    given = [t for t in index if t is not None and t is not pd.NaT]
    return len(given) > 0 and all(isinstance(t, str | pd.Timestamp | np.datetime64) for t in given)


def evaluation_frame(evaluation: Evaluation, times: pd.Index) -> pd.DataFrame:
    """One row per evaluated point: time, value, status, lower, upper, confidence, detail,
    history (the number of earlier points), and p_value for detectors that compute one."""
    frame = pd.DataFrame(
        {
            "time": times[evaluation.index],
            "value": evaluation.value,
            "status": STATUS_ARRAY[evaluation.codes],
            "lower": evaluation.lower,
            "upper": evaluation.upper,
            "confidence": evaluation.confidence,
            "detail": list(evaluation.detail),
            "history": evaluation.index,
        }
    )
    if evaluation.p_value is not None:
        frame["p_value"] = evaluation.p_value
    return frame


def detect_series(
    points: Points,
    detector: object,
    start: Any = None,
    end: Any = None,
    *,
    anomalies_only: bool = True,
) -> pd.DataFrame:
    """Run ``detector`` on a time-indexed series over ``start <= time < end``; earlier points
    are history. Returns the anomalies (or, with ``anomalies_only=False``, every evaluated
    point) as rows of time, value, status, lower, upper, confidence, detail, history.

    Examples
    --------
    >>> from detectors import SimpleThreshold
    >>> points = {"2024-01-03": 5.0, "2024-01-01": 1.0, "2024-01-02": None, "2024-01-04": 0.5}
    >>> result = detect_series(points, SimpleThreshold(upper_bound=2))
    >>> result[["time", "value", "status"]].to_string(index=False)
    '      time  value  status\\n2024-01-03    5.0 anomaly'
    """
    series = clean_series(points)
    times = series.index
    first = 0 if start is None else int(times.searchsorted(_like(start, times), side="left"))
    last = len(series) if end is None else int(times.searchsorted(_like(end, times), side="left"))
    bound = as_detector(for_times(detector, times))
    evaluation = bound.evaluate(series.to_numpy(), (first, max(first, last)))
    frame = evaluation_frame(evaluation, times)
    if anomalies_only:
        frame = frame[frame["status"] == Status.ANOMALY.value].reset_index(drop=True)
    return frame


def _like(bound: Any, times: pd.Index) -> Any:
    """A time bound comparable with ``times`` (strings become timestamps on a time index)."""
    return pd.Timestamp(bound) if isinstance(times, pd.DatetimeIndex) else bound


def _with_newest(times: pd.Index, when: Any) -> pd.Index | None:
    """The history's times plus the new point's (one spacing after the last when it has
    none); ``None`` when the history is not indexed by timestamps."""
    if not isinstance(times, pd.DatetimeIndex):
        return None
    if when is None:
        if len(times) < 2:
            return None
        when = times[-1] + pd.Series(times[1:] - times[:-1]).median()
    return times.append(pd.DatetimeIndex([pd.Timestamp(when)]))


@dataclass(frozen=True)
class Verdict:
    """The verdict on one new point; truthy exactly when it is an anomaly.

    ``history`` is the number of earlier points it was judged against. ``lower``/``upper`` are
    reported for fine points too (NaN only when no band could be computed); ``p_value`` is the
    calibrated detectors' probability of a value this far out on a normal day (NaN otherwise).
    """

    time: Any
    value: float
    status: Status
    lower: float
    upper: float
    confidence: float
    detail: str
    history: int
    p_value: float = math.nan

    @property
    def is_anomaly(self) -> bool:
        return self.status is Status.ANOMALY

    def __bool__(self) -> bool:
        return self.is_anomaly


def is_newest_anomalous(history: Points, new_point: Any, detector: object) -> Verdict:
    """Judge ``new_point`` against ``history``: Deequ's newest-point check, time-aware.

    ``new_point`` is a ``(time, value)`` pair or a bare value (then it follows the whole
    history). Only history strictly before its time counts, so a run never sees itself (or
    later runs) in its own history. A NaN value gives status ``missing``.

    Examples
    --------
    >>> from detectors import OnlineNormal
    >>> history = {f"2024-01-{d:02d}": v for d, v in enumerate([10, 11, 9, 10, 10.5], start=1)}
    >>> verdict = is_newest_anomalous(history, ("2024-01-06", 30.0), OnlineNormal())
    >>> bool(verdict), str(verdict.status), verdict.history
    (True, 'anomaly', 5)
    >>> bool(is_newest_anomalous(history, 10.2, OnlineNormal()))
    False
    """
    series = clean_series(history)
    when: Any = None
    if isinstance(new_point, tuple):
        when, value = new_point
        when = _like(when, series.index)
        series = series[series.index < when]
    else:
        value = new_point
    values = np.append(series.to_numpy(), np.nan if value is None else float(value))
    n = len(series)
    times = _with_newest(series.index, when)
    bound = as_detector(detector if times is None else for_times(detector, times))
    evaluation = bound.evaluate(values, (n, n + 1))
    return Verdict(
        time=when,
        value=float(evaluation.value[0]),
        status=STATUSES[evaluation.codes[0]],
        lower=float(evaluation.lower[0]),
        upper=float(evaluation.upper[0]),
        confidence=float(evaluation.confidence[0]),
        detail=evaluation.detail[0],
        history=n,
        p_value=math.nan if evaluation.p_value is None else float(evaluation.p_value[0]),
    )

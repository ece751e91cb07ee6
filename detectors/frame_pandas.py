"""Detection per group over a long pandas frame of metric points.

Vectorised detectors (:class:`~detectors.vectorised.MatrixDetector`) run once over a groups x
time matrix; any other detector runs once per group. Both give the same rows, in the columns of
:mod:`detectors.frame_schema`. The Spark fan-out runs this on each group's points.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, TypeGuard

import numpy as np
import pandas as pd

from detectors.base import Detector, TimeAware, as_detector, for_times
from detectors.evaluation import ANOMALY, OK, STATUS_ARRAY
from detectors.frame_schema import P_VALUE, RESULT_COLUMNS
from detectors.grouped import GroupedSeries, group_series
from detectors.vectorised import Cell, MatrixDetector


def detect_frame_pandas(
    frame: pd.DataFrame,
    detector: object,
    by: Sequence[str],
    time: str,
    value: str,
    newest_only: bool,
    *,
    anomalies_only: bool,
) -> pd.DataFrame:
    """:func:`~detectors.detect_frame` on a pandas frame (``by`` already a list)."""
    absent = [c for c in [*by, time, value] if c not in frame.columns]
    if absent:
        raise ValueError(f"frame has no column(s) {absent}; it has {list(frame.columns)}")
    grouped = group_series(frame, by, time, value)
    resolved = as_detector(detector)
    if _vectorisable(resolved):
        columns = _vectorised(grouped, resolved, newest_only)
    else:
        columns = _per_group(grouped, resolved, newest_only)
    rows, codes, lower, upper, confidence, details, p_value = columns
    keep = codes == ANOMALY if anomalies_only else np.ones(len(rows), dtype=bool)
    rows = rows[keep]
    result = grouped.keys.iloc[grouped.group[rows]].reset_index(drop=True)
    result[time] = grouped.times[rows]
    result[value] = grouped.values[rows]
    computed = {
        "status": STATUS_ARRAY[codes[keep]],
        "lower": lower[keep],
        "upper": upper[keep],
        "confidence": confidence[keep],
        "detail": np.array(details(np.flatnonzero(keep)), dtype=object),
        "history": grouped.positions[rows],
        P_VALUE: None if p_value is None else p_value[keep],
    }
    for name, _ in RESULT_COLUMNS:
        if computed[name] is not None:
            result[name] = computed[name]
    return result


Columns = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, Any, Any]


def _time_matrix(grouped: GroupedSeries) -> np.ndarray | None:
    """Groups x time of the points' timestamps (NaT-padded), if they are timestamps."""
    times = grouped.times
    if not isinstance(times, pd.DatetimeIndex):
        return None
    stamps = times.tz_convert(None) if times.tz is not None else times
    return grouped.as_matrix(stamps.to_numpy(dtype="datetime64[ns]"), np.datetime64("NaT"))


def _evaluated_rows(grouped: GroupedSeries, newest_only: bool) -> np.ndarray:
    """Flat row numbers of the points to evaluate: all, or each group's newest."""
    return grouped.offsets[1:] - 1 if newest_only else np.arange(len(grouped.values))


def _vectorised(grouped: GroupedSeries, detector: MatrixDetector, newest_only: bool) -> Columns:
    lengths = grouped.lengths
    starts = lengths - 1 if newest_only else np.zeros_like(lengths)
    times = _time_matrix(grouped) if isinstance(detector, TimeAware) else None
    if times is not None:
        bound = for_times(detector, times)
        assert isinstance(bound, MatrixDetector)
        detector = bound
    result = detector.evaluate_matrix(grouped.matrix(), lengths, starts)
    rows = _evaluated_rows(grouped, newest_only)
    cell = (grouped.group[rows], grouped.positions[rows])
    codes = result.codes[cell]
    lower, upper, aux = result.lower[cell], result.upper[cell], result.aux[cell]

    def details(selected: np.ndarray) -> list[str]:
        # Sentences only for the rows returned, and only where there is something to say.
        return [
            ""
            if codes[i] == OK
            else detector.describe(
                Cell(
                    int(cell[1][i]),
                    int(lengths[cell[0][i]]),
                    float(grouped.values[rows[i]]),
                    float(lower[i]),
                    float(upper[i]),
                    int(codes[i]),
                    float(aux[i]),
                )
            )
            for i in selected
        ]

    p_value = None if result.p_value is None else result.p_value[cell]
    return rows, codes, lower, upper, result.confidence[cell], details, p_value


def _per_group(grouped: GroupedSeries, detector: Detector, newest_only: bool) -> Columns:
    evaluations = []
    timed = isinstance(detector, TimeAware) and isinstance(grouped.times, pd.DatetimeIndex)
    for g, length in enumerate(grouped.lengths.tolist()):
        interval = (length - 1, length) if newest_only else (0, length)
        one = detector
        if timed:
            one = as_detector(
                for_times(detector, grouped.times[grouped.offsets[g] : grouped.offsets[g + 1]])
            )
        evaluations.append(one.evaluate(grouped.series(g), interval))
    rows = _evaluated_rows(grouped, newest_only)
    detail = np.array([d for e in evaluations for d in e.detail], dtype=object)

    def concat(field: str) -> np.ndarray:
        parts = [getattr(e, field) for e in evaluations]
        return np.concatenate(parts) if parts else np.empty(0)

    with_p = bool(evaluations) and all(e.p_value is not None for e in evaluations)
    return (
        rows,
        concat("codes").astype(np.int8),
        concat("lower"),
        concat("upper"),
        concat("confidence"),
        lambda selected: detail[selected].tolist(),
        concat("p_value") if with_p else None,
    )


def _vectorisable(detector: object) -> TypeGuard[MatrixDetector]:
    """Whether `detector` judges by its matrix form: not a subclass that overrides ``evaluate``
    alone (a user's detector that wraps a built-in's; its ``evaluate`` must be the one used).

    >>> from detectors import SimpleThreshold
    >>> class Logged(SimpleThreshold):
    ...     def evaluate(self, values, interval=None):
    ...         return super().evaluate(values, interval)
    >>> _vectorisable(SimpleThreshold(upper_bound=1)), _vectorisable(Logged(upper_bound=1))
    (True, False)
    """
    if not isinstance(detector, MatrixDetector):
        return False
    mro = type(detector).__mro__
    evaluate = next(c for c in mro if "evaluate" in c.__dict__)
    matrix = next(c for c in mro if "evaluate_matrix" in c.__dict__)
    return evaluate is MatrixDetector or issubclass(matrix, evaluate)

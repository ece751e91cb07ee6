"""The series of one backtest judged together, as the scan judges a metric's groups.

``Adaptive`` lets the series of one call share what they teach about tail heaviness
(``share_tails``), so a scan's verdict on a group depends on the groups judged with it. A
backtest that replayed each series alone would show alerts the scan never raised; here every
such detector replays all the backtest's series at one spacing in one call (and in one pass,
not one per series). Other detectors, and series without timestamps, are replayed one by one.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from anomaly.backtest.series import LabeledSeries
from detectors import Adaptive, AlertFatigue, Evaluation
from detectors.adaptive.calendar import nanoseconds, spacing_of

Streams = dict[tuple[Any, int], Evaluation]
"""One series' verdicts by (detector, first judged position)."""


def shared_detectors(detectors: Mapping[str, Any]) -> list[tuple[Adaptive, bool]]:
    """The detectors (or alert-fatigue inner detectors) that share tails, each with whether it
    is judged from the start of each series (an inner detector) or from ``since``."""
    found = []
    for detector in detectors.values():
        inner = detector.inner if isinstance(detector, AlertFatigue) else detector
        if isinstance(inner, Adaptive) and inner.share_tails:
            found.append((inner, isinstance(detector, AlertFatigue)))
    return found


def joint_streams(
    series: Sequence[LabeledSeries],
    detectors: Mapping[str, Any],
    windows: Sequence[tuple[int, int]],
) -> list[Streams]:
    """Per series, the walk-forward verdicts of the tail-sharing detectors (``windows``: each
    series' judged positions ``[start, end)``), every group of series at one spacing judged
    in one call; groups of one series are left to the one-by-one replay."""
    streams: list[Streams] = [{} for _ in series]
    for spacing_group in _by_spacing(series).values():
        if len(spacing_group) < 2:
            continue
        for detector, from_start in shared_detectors(detectors):
            starts = [0 if from_start else windows[k][0] for k in spacing_group]
            found = _together(
                detector,
                [series[k] for k in spacing_group],
                starts,
                [windows[k][1] for k in spacing_group],
            )
            for k, first, evaluation in zip(spacing_group, starts, found, strict=True):
                streams[k][(detector, first)] = evaluation
    return streams


def _by_spacing(series: Sequence[LabeledSeries]) -> dict[float, list[int]]:
    groups: dict[float, list[int]] = defaultdict(list)
    for k, one in enumerate(series):
        stamps = nanoseconds(one.times) if isinstance(one.times, pd.DatetimeIndex) else None
        spacing = spacing_of(stamps) if stamps is not None and len(stamps) > 1 else None
        if spacing:
            groups[spacing].append(k)
    return groups


def _together(
    detector: Adaptive, series: list[LabeledSeries], starts: list[int], ends: list[int]
) -> list[Evaluation]:
    width = max(ends)
    values = np.full((len(series), width), np.nan)
    learn = np.zeros(values.shape, dtype=bool)
    stamps = np.full(values.shape, np.datetime64("NaT"), dtype="datetime64[ns]")
    for g, (one, end) in enumerate(zip(series, ends, strict=True)):
        values[g, :end] = one.values[:end]
        learn[g, :end] = ~one.excluded[:end]
        times = pd.DatetimeIndex(one.times[:end])
        stamps[g, :end] = (times.tz_convert(None) if times.tz is not None else times).to_numpy()
    bound = detector.at_times(stamps)
    return bound.walk_forward_rows(values, np.array(starts), np.array(ends), learn)

"""``backtest``: replay detectors walk-forward over metric histories and score their alerts."""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from anomaly.backtest.joint import joint_streams
from anomaly.backtest.labels import read_labels
from anomaly.backtest.naming import named_detectors
from anomaly.backtest.result import BacktestResult
from anomaly.backtest.series import LabeledSeries
from anomaly.backtest.sources import repository_series
from detectors import AlertFatigue, Evaluation, for_times, walk_forward
from repository import Annotation, MetricsRepository
from repository.keys import HasMetricId, TimeLike

FROM_REPOSITORY = "repository"
"""``labels=FROM_REPOSITORY``: the repository's annotations label the points."""

Source = MetricsRepository | LabeledSeries | Sequence[LabeledSeries] | pd.Series


def backtest(
    source: Source,
    detectors: Any,
    *,
    metrics: str | HasMetricId | Iterable[str | HasMetricId] | None = None,
    tags: Mapping[str, str] | None = None,
    groups: Sequence[Mapping[str, str | None]] | None = None,
    name: str | None = None,
    since: TimeLike | str | None = None,
    until: TimeLike | str | None = None,
    labels: str | os.PathLike[str] | Sequence[Annotation] | None = FROM_REPOSITORY,
    exclude_annotated: bool = True,
) -> BacktestResult:
    """Replay each detector over each series as the scheduled check would have run it.

    Every point from ``since`` to ``until`` (inclusive; default: all) is judged on only the
    points before it (earlier points are history only), exactly as
    ``is_newest_anomalous(history, (time, value), detector)`` would have judged it that day;
    points excluded from baselines are judged but never serve as history. A detector that
    lets the series of one call share tail heaviness (``Adaptive``, by default) judges the
    backtest's series together, as the scan judges a metric's groups (``joint.py``).

    Parameters
    ----------
    source
        A repository (then ``metrics`` is required; ``tags``, ``groups`` (default: every group)
        and ``name`` select the series), a ``pandas.Series`` by time, or labelled series.
    detectors
        One detector, a sequence (named by their parameters) or a mapping of names to detectors.
    labels
        ``"repository"`` (the repository's annotations), a CSV file (``labels.py``), a sequence
        of annotations, or ``None``.
    exclude_annotated
        Honour ``excluded`` annotations and labels (default) or judge on the raw history.

    Examples
    --------
    >>> from detectors import OnlineNormal, RobustMAD
    >>> points = pd.Series([10.0, 11, 9, 10, 11, 10, 40, 10, 9, 11],
    ...                    index=pd.date_range("2024-05-01", periods=10, tz="UTC"))
    >>> result = backtest(points, [OnlineNormal(), RobustMAD()],
    ...                   labels=[Annotation("incident", pd.Timestamp("2024-05-07"))])
    >>> result.totals()[["detector", "points", "alerts", "recall", "precision"]]
                detector  points  alerts  recall  precision
    0     OnlineNormal()       8       1     1.0        1.0
    1        RobustMAD()       5       1     1.0        1.0
    """
    named = named_detectors(detectors)
    annotations = _labels(labels)
    series = _series(source, metrics, tags, groups, name, until, annotations, exclude_annotated)
    windows = [window(one.times, since, until) for one in series]
    together = joint_streams(series, named, windows)
    evaluations = {
        (detector_name, k): ev
        for k, one in enumerate(series)
        for detector_name, ev in _replay(one, named, windows[k], together[k]).items()
    }
    return BacktestResult(named, series, evaluations)


def _labels(
    labels: str | os.PathLike[str] | Sequence[Annotation] | None,
) -> Sequence[Annotation] | None:
    if labels is None or (isinstance(labels, str) and labels == FROM_REPOSITORY):
        return None
    if isinstance(labels, str | os.PathLike):
        return read_labels(labels)
    return list(labels)


def _series(
    source: Source,
    metrics: Any,
    tags: Mapping[str, str] | None,
    groups: Sequence[Mapping[str, str | None]] | None,
    name: str | None,
    until: TimeLike | str | None,
    labels: Sequence[Annotation] | None,
    exclude_annotated: bool,
) -> list[LabeledSeries]:
    if isinstance(source, MetricsRepository):
        if metrics is None:
            raise ValueError("backtest of a repository needs metrics= (a metric id or several)")
        bound = None if until is None else moment(until).to_pydatetime()
        return repository_series(
            source,
            metrics,
            tags=tags,
            groups=groups,
            name=name,
            until=bound,
            labels=labels,
            exclude_annotated=exclude_annotated,
        )
    if isinstance(source, pd.Series):
        metric_id = str(source.name) if source.name is not None else "value"
        source = LabeledSeries.build(metric_id, source, labels=labels or ())
    found = [source] if isinstance(source, LabeledSeries) else list(source)
    if not exclude_annotated:
        found = [_without_exclusions(s) for s in found]
    return found


def _without_exclusions(series: LabeledSeries) -> LabeledSeries:
    return dataclasses.replace(series, excluded=np.zeros(len(series), dtype=bool))


def moment(bound: TimeLike | str) -> pd.Timestamp:
    """A time bound as a UTC timestamp: a datetime (naive = UTC), ISO text or epoch millis."""
    if isinstance(bound, int) and not isinstance(bound, bool):
        return pd.Timestamp(bound, unit="ms", tz="UTC")
    stamp = pd.Timestamp(bound)
    return stamp.tz_localize("UTC") if stamp.tzinfo is None else stamp.tz_convert("UTC")


def window(times: pd.Index, since: Any, until: Any) -> tuple[int, int]:
    """Positions ``[start, end)`` of the points with ``since <= time <= until`` (positions
    themselves when the series has no times)."""

    def like(bound: Any) -> Any:
        if not isinstance(times, pd.DatetimeIndex):
            return bound
        stamp = moment(bound)
        return stamp if times.tz is not None else stamp.tz_localize(None)

    start = 0 if since is None else int(times.searchsorted(like(since), side="left"))
    end = len(times) if until is None else int(times.searchsorted(like(until), side="right"))
    return start, max(start, end)


def _replay(
    series: LabeledSeries,
    detectors: Mapping[str, Any],
    judged: tuple[int, int],
    streams: dict[Any, Evaluation],
) -> dict[str, Evaluation]:
    """Walk-forward verdicts of each detector over the ``judged`` positions; detectors sharing
    an inner detector (alert-fatigue variants) share its verdicts, which are computed once
    (``streams``: those already computed, by detector and first judged position)."""
    start, end = judged
    baseline = ~series.excluded

    def stream(detector: Any, first: int) -> Evaluation:
        key = (_key(detector), first)
        if key not in streams:
            timed = for_times(detector, series.times)  # calendar seasons need the times
            streams[key] = walk_forward(timed, series.values, first, end, baseline=baseline)
        return streams[key]

    results = {}
    for detector_name, detector in detectors.items():
        if isinstance(detector, AlertFatigue):
            inner = stream(detector.inner, 0)
            results[detector_name] = detector.quieten(series.values, inner, baseline, start)
        else:
            results[detector_name] = stream(detector, start)
    return results


def _key(detector: Any) -> Any:
    try:
        hash(detector)
    except TypeError:
        return id(detector)
    return detector

"""The history a run is judged on: stored points of its series, with the ``excluded`` marks.

Points covered by an ``excluded`` annotation (``repo.annotate("excluded", ...)``) are judged
when they are the run's own points but never serve as history, as for ``has_no_anomalies``:
a fixed bad run no longer widens or shifts the band of later runs. ``incident`` and
``expected`` annotations label points for backtests and stay in the history.

A series is named by its metric id and its group's key, ``repository.keys.canonical_key``:
the repository's own identity of a group, so ``Zürich`` is ``Zürich`` everywhere.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any

import pandas as pd

from repository import MetricRecord
from repository.keys import canonical_key

if TYPE_CHECKING:
    from repository import MetricsRepository

COLUMNS = ["metric_id", "group", "timestamp", "value", "excluded"]
EXCLUDED = "excluded"
"""The annotation kind whose points never serve as history (the kind ``has_no_anomalies`` and
the backtest leave out of baselines)."""


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
    coverage = repo.coverage(kinds=[EXCLUDED], tags=tags, after=after, before=before)
    rows = []
    # The records of one group share one dict (the query reads each group once): its key is
    # computed once, not once per point (a 60-day scan of 30 columns reads ~10,000 points).
    keys: dict[int, str] = {}
    for run in query.get():
        at = run.key.timestamp
        for record in run:
            excluded = bool(coverage.kinds(record.metric_id, record.group, at, run.key.tags))
            key = keys.get(id(record.group))
            if key is None:
                key = keys[id(record.group)] = canonical_key(record.group)
            rows.append((record.metric_id, key, at, record.value, excluded))
    return _frame(rows)


def series_frame(metric_id: str, series: Mapping[str, pd.Series]) -> pd.DataFrame:
    """A history frame (``COLUMNS``) of `metric_id` from its series by group key, each a
    ``pandas.Series`` by time as ``repo.histories`` reads them (excluded points left out).

    >>> at = pd.to_datetime(["2024-05-01", "2024-05-02"], utc=True)
    >>> series_frame("Size(*)", {"[]": pd.Series([3.0, 4.0], index=at)})["value"].tolist()
    [3.0, 4.0]
    """
    rows = [
        (metric_id, group, at, float(value), False)
        for group, points in series.items()
        for at, value in points.items()
    ]
    return _frame(rows)


def with_run(
    history: pd.DataFrame, records: Iterable[MetricRecord], judged: Iterable[str], at: datetime
) -> pd.DataFrame:
    """`history` before `at`, plus the run's own succeeded points of the `judged` metric ids
    at `at` (taken from the run, not from the repository, where a replay may have stored
    them already)."""
    ids = set(judged)
    earlier = history[history["timestamp"] < pd.Timestamp(at)]
    own = _frame(
        [
            (r.metric_id, canonical_key(r.group), at, r.value, False)
            for r in records
            if r.succeeded and r.metric_id in ids
        ]
    )
    parts = [part for part in (earlier, own) if not part.empty]
    if not parts:
        return earlier
    return pd.concat(parts, ignore_index=True) if len(parts) > 1 else parts[0]


def without_exclusions(frame: pd.DataFrame, moment: pd.Timestamp) -> pd.DataFrame:
    """`frame` without its excluded points, except those at `moment` (always judged).

    >>> frame = pd.DataFrame({"timestamp": [1, 2, 3], "excluded": [False, True, True]})
    >>> without_exclusions(frame, 3)["timestamp"].tolist()
    [1, 3]
    """
    if EXCLUDED not in frame.columns:
        return frame  # a frame built elsewhere, without annotations
    return frame[~frame[EXCLUDED].astype(bool) | (frame["timestamp"] == moment)]


def _frame(rows: Sequence[tuple[Any, ...]]) -> pd.DataFrame:
    frame = pd.DataFrame(rows, columns=COLUMNS).astype({"excluded": bool})
    frame["timestamp"] = pd.to_datetime(frame["timestamp"], utc=True)
    return frame.sort_values("timestamp", kind="stable", ignore_index=True)

"""Series for the report's charts: values, expected band and verdict per point, compactly.

A series is one (dataset, scan, metric id, name, group). Its points are laid on the timeline of
its dataset (every time any of its series has a point or a verdict), so the times are sent once
per dataset and each series is a few aligned arrays: ``v`` values, ``lo``/``hi`` the band of the
verdict on that point, ``st`` one status letter per point (see ``STATUS_LETTERS``) and, when an
annotation covers some point, ``ann`` one digit per point (bit 1 incident, 2 expected,
4 excluded). The band is clipped to the metric's domain (``kind``: a share's band stays in
[0, 1]), ``y`` is the value axis (``anomaly.chart_scale``: it follows the values, a band far
beyond them is drawn cut) and ``unit`` is ``"s"`` for durations (shown in s, min, h or d).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import numpy as np
import pyarrow as pa

from anomaly.chart_scale import clip_band, value_axis
from anomaly.judging.tables import group_label
from anomaly.metric_domain import metric_domain
from anomaly.report.encoding import rounded, rounded_rows
from anomaly.report.reading import columns_of
from repository import ANNOTATION_KINDS, Annotation
from repository.keys import canonical_key, to_epoch_ms

STATUS_LETTERS = {"normal": "n", "anomaly": "a", "error": "e", "insufficient_history": "i"}
"""One letter per verdict status in ``st`` (``-``: no verdict; ``o``: any other status)."""
PRIORITY = {"anomaly": 4, "error": 3, "normal": 2, "insufficient_history": 1}
"""When several detectors judged one point, the band shown is that of the worst verdict."""
SERIES_KEY = ["dataset", "scan", "metric_id", "name", "group_key"]
VERDICT_KEY = ["dataset", "scan", "metric_id", "group_key"]


@dataclass(frozen=True)
class SeriesPayload:
    """The charts' data: one timeline per dataset, one record per series, and the series id of
    every verdict row (-1 when its series has no stored point, e.g. a failed metric).

    Examples
    --------
    >>> points = pa.table({"dataset": ["d", "d"], "scan": ["s", "s"],
    ...     "metric_id": ["Size(*)"] * 2, "name": ["Size"] * 2, "group_key": ["[]"] * 2,
    ...     "ts": [1000, 2000], "value": [5.0, 50.0], "incident": [False] * 2,
    ...     "expected": [False] * 2, "excluded": [False] * 2})
    >>> verdicts = pa.table({"dataset": ["d"], "scan": ["s"], "metric_id": ["Size(*)"],
    ...     "group_key": ["[]"], "ts": [2000], "lower": [1.0], "upper": [9.0],
    ...     "status": ["anomaly"], "detector": ["OnlineNormal"]})
    >>> payload = build_series(points, verdicts, [])
    >>> payload.timelines, payload.series[0]["v"], payload.series[0]["st"]
    ([{'dataset': 'd', 'times': [1000, 2000]}], [5.0, 50.0], '-a')
    >>> payload.series[0]["kind"], payload.series[0]["y"]
    ('count', [-1.94, 52.94])
    >>> payload.verdict_series
    [0]
    """

    timelines: list[dict[str, Any]]
    series: list[dict[str, Any]]
    verdict_series: list[int]


class _Rows:
    """Some rows of a table: its columns (`columns_of`) taken at `index`, as numpy arrays."""

    def __init__(self, columns: dict[str, list[Any]], index: list[int], sids: list[int]) -> None:
        self.columns, self.index = columns, index
        self.sid = np.asarray(sids, dtype="int64")
        self.ts = np.asarray([columns["ts"][i] for i in index], dtype="int64")

    def values(self, name: str) -> list[Any]:
        column = self.columns[name]
        return [column[i] for i in self.index]

    def floats(self, name: str) -> np.ndarray:
        return np.asarray([np.nan if v is None else v for v in self.values(name)], dtype="float64")

    def within(self, first: int, last: int) -> _Rows:
        keep = [k for k, sid in enumerate(self.sid.tolist()) if first <= sid <= last]
        return _Rows(self.columns, [self.index[k] for k in keep], self.sid[keep].tolist())


def build_series(
    points: pa.Table, verdicts: pa.Table, annotations: list[Annotation]
) -> SeriesPayload:
    """Align `points` and `verdicts` (tables of ``reading.read_contents``) per series."""
    point_columns, verdict_columns = columns_of(points), columns_of(verdicts)
    point_keys = list(zip(*(point_columns[c] for c in SERIES_KEY), strict=True))
    point_ts = point_columns["ts"]
    order = sorted(range(len(point_keys)), key=lambda i: (point_keys[i], point_ts[i]))
    keys = sorted(set(point_keys))
    sid_of = {key: sid for sid, key in enumerate(keys)}
    first_of: dict[tuple[Any, ...], int] = {}
    for key in keys:
        first_of.setdefault(key[:3] + key[4:], sid_of[key])
    verdict_keys = zip(*(verdict_columns[c] for c in VERDICT_KEY), strict=True)
    verdict_series = [first_of.get(key, -1) for key in verdict_keys] if verdicts.num_rows else []
    mine_all = _Rows(point_columns, order, [sid_of[point_keys[i]] for i in order])
    judged = _worst_per_point(verdict_columns, verdict_series)
    covering = _covering(annotations, mine_all)
    timelines: list[dict[str, Any]] = []
    series: list[dict[str, Any]] = []
    datasets = sorted({key[0] for key in keys})
    for dataset_index, dataset in enumerate(datasets):
        # Keys are sorted by dataset first, so a dataset's series ids are one range.
        of_dataset = [(sid, key) for sid, key in enumerate(keys) if key[0] == dataset]
        first, count = of_dataset[0][0], len(of_dataset)
        mine = mine_all.within(first, first + count - 1)
        theirs = judged.within(first, first + count - 1)
        times = np.union1d(mine.ts, theirs.ts)
        timelines.append({"dataset": str(dataset), "times": times.tolist()})
        grid = _Grid(count, len(times), first, times)
        values = grid.fill(mine, "value")
        lower, upper = grid.fill(theirs, "lower"), grid.fill(theirs, "upper")
        letters = grid.letters(theirs)
        flags = grid.flags(mine)
        detectors: dict[int, dict[str, None]] = {}
        for sid, detector in zip(theirs.sid.tolist(), theirs.values("detector"), strict=True):
            found = detectors.setdefault(sid, {})
            if detector is not None:
                found[detector] = None
        for i, (sid, key) in enumerate(of_dataset):
            row = dict(zip(SERIES_KEY, key, strict=True))
            group = dict(json.loads(str(row["group_key"])))
            domain = metric_domain(str(row["metric_id"]))
            lower[i], upper[i] = (rounded(edge) for edge in clip_band(lower[i], upper[i], domain))
            axis = value_axis(values[i], lower[i], upper[i], domain)
            record: dict[str, Any] = {
                "id": sid,
                "d": dataset_index,
                "dataset": str(row["dataset"]),
                "scan": str(row["scan"]),
                "metric": str(row["metric_id"]),
                "name": str(row["name"]),
                "group": group,
                "label": group_label(group),
                "detectors": [str(d) for d in detectors.get(sid, {})],
                "v": values[i],
                "lo": lower[i],
                "hi": upper[i],
                "st": letters[i],
                "kind": domain.kind,
                "unit": domain.unit,
                "y": rounded([axis.low, axis.high]),
                "annotations": covering.get(sid, []),
            }
            if flags[i] is not None:
                record["ann"] = flags[i]
            series.append(record)
    return SeriesPayload(timelines, series, verdict_series)


class _Grid:
    """One dataset's series (rows) on its timeline (columns)."""

    def __init__(self, rows: int, columns: int, first: int, times: np.ndarray) -> None:
        self.shape, self.first, self.times = (rows, columns), first, times

    def _at(self, rows: _Rows) -> tuple[np.ndarray, np.ndarray]:
        return rows.sid - self.first, np.searchsorted(self.times, rows.ts)

    def fill(self, rows: _Rows, column: str) -> list[list[float | None]]:
        matrix = np.full(self.shape, np.nan)
        matrix[self._at(rows)] = rows.floats(column)
        return rounded_rows(matrix)

    def letters(self, rows: _Rows) -> list[str]:
        matrix = np.full(self.shape, "-", dtype="<U1")
        matrix[self._at(rows)] = [STATUS_LETTERS.get(s, "o") for s in rows.values("status")]
        return ["".join(row) for row in matrix.tolist()]

    def flags(self, rows: _Rows) -> list[str | None]:
        matrix = np.zeros(self.shape, dtype="int64")
        at = self._at(rows)
        for bit, kind in enumerate(ANNOTATION_KINDS):
            matrix[at] |= np.asarray(rows.values(kind), dtype=bool).astype("int64") << bit
        return ["".join(map(str, row)) if any(row) else None for row in matrix.tolist()]


def _worst_per_point(columns: dict[str, list[Any]], sids: list[int]) -> _Rows:
    """Per (series, time), the first verdict of the worst status (of ``PRIORITY``)."""
    ts, status = columns.get("ts", []), columns.get("status", [])
    rank = [PRIORITY.get(s, 2) for s in status]
    order = sorted(range(len(sids)), key=lambda i: (sids[i], ts[i], -rank[i]))
    kept, seen = [], set()
    for i in order:
        if (sids[i], ts[i]) not in seen:
            seen.add((sids[i], ts[i]))
            kept.append(i)
    return _Rows(columns, kept, [sids[i] for i in kept])


def _covering(annotations: list[Annotation], points: _Rows) -> dict[int, list[int]]:
    """Series id -> ids of the annotations covering at least one of its points (the points'
    flags, computed by the repository's own SQL, decide the tags)."""
    found: dict[int, list[int]] = {}
    for annotation in annotations:
        if annotation.annotation_id is None:
            continue
        start = to_epoch_ms(annotation.start)
        end = to_epoch_ms(annotation.end or annotation.start)
        hit = np.asarray(points.values(annotation.kind), dtype=bool)
        hit &= (points.ts >= start) & (points.ts <= end)
        if annotation.metric_id is not None:
            hit &= np.asarray([m == annotation.metric_id for m in points.values("metric_id")], bool)
        if annotation.group is not None:
            group = canonical_key(annotation.group)
            hit &= np.asarray([g == group for g in points.values("group_key")], bool)
        for sid in np.unique(points.sid[hit]).tolist():
            found.setdefault(int(sid), []).append(int(annotation.annotation_id))
    return found

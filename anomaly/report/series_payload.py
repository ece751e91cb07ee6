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
import pandas as pd

from anomaly.chart_scale import clip_band, value_axis
from anomaly.judging.tables import group_label
from anomaly.metric_domain import metric_domain
from anomaly.report.encoding import rounded, rounded_rows
from repository import ANNOTATION_KINDS, Annotation
from repository.keys import canonical_key

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
    >>> points = pd.DataFrame({"dataset": ["d", "d"], "scan": ["s", "s"],
    ...     "metric_id": ["Size(*)"] * 2, "name": ["Size"] * 2, "group_key": ["[]"] * 2,
    ...     "ts": [1000, 2000], "value": [5.0, 50.0], "incident": [False] * 2,
    ...     "expected": [False] * 2, "excluded": [False] * 2})
    >>> verdicts = pd.DataFrame({"dataset": ["d"], "scan": ["s"], "metric_id": ["Size(*)"],
    ...     "group_key": ["[]"], "ts": [2000], "lower": [1.0], "upper": [9.0],
    ...     "status": ["anomaly"], "detector": ["OnlineNormal"]})
    >>> payload = build_series(points, verdicts, [])
    >>> payload.timelines, payload.series[0]["v"], payload.series[0]["st"]
    ([{'dataset': 'd', 'times': [1000, 2000]}], [5.0, 50.0], '-a')
    >>> payload.series[0]["kind"], payload.series[0]["y"]
    ('count', [-1.94, 52.94])
    >>> payload.verdict_series.tolist()
    [0]
    """

    timelines: list[dict[str, Any]]
    series: list[dict[str, Any]]
    verdict_series: pd.Series


def build_series(
    points: pd.DataFrame, verdicts: pd.DataFrame, annotations: list[Annotation]
) -> SeriesPayload:
    """Align `points` and `verdicts` (frames of ``reading.read_contents``) per series."""
    points = points.sort_values([*SERIES_KEY, "ts"], kind="stable", ignore_index=True)
    keys = points[SERIES_KEY].drop_duplicates(ignore_index=True)
    keys = keys.sort_values(SERIES_KEY, kind="stable", ignore_index=True)
    keys["sid"] = np.arange(len(keys))
    points = points.merge(keys, on=SERIES_KEY, how="left")
    first_of = keys.drop_duplicates(VERDICT_KEY)[[*VERDICT_KEY, "sid"]]
    verdict_series = (
        verdicts[VERDICT_KEY].merge(first_of, on=VERDICT_KEY, how="left")["sid"].fillna(-1)
        if len(verdicts)
        else pd.Series([], dtype="int64")
    ).astype("int64")
    judged = _worst_per_point(verdicts.assign(sid=verdict_series.to_numpy()))
    covering = _covering(annotations, points)
    timelines: list[dict[str, Any]] = []
    series: list[dict[str, Any]] = []
    for dataset_index, (dataset, of_dataset) in enumerate(keys.groupby("dataset", sort=True)):
        # Keys are sorted by dataset first, so a dataset's series ids are one range.
        first, count = int(of_dataset["sid"].iloc[0]), len(of_dataset)
        mine = points[points["sid"].between(first, first + count - 1)]
        theirs = judged[judged["sid"].between(first, first + count - 1)]
        times = np.union1d(mine["ts"].to_numpy("int64"), theirs["ts"].to_numpy("int64"))
        timelines.append({"dataset": str(dataset), "times": times.tolist()})
        grid = _Grid(count, len(times), first, times)
        values = grid.fill(mine, "value")
        lower, upper = grid.fill(theirs, "lower"), grid.fill(theirs, "upper")
        letters = grid.letters(theirs)
        flags = grid.flags(mine)
        detectors = theirs.groupby("sid")["detector"].agg(lambda d: list(dict.fromkeys(d.dropna())))
        for i, row in enumerate(of_dataset.itertuples(index=False)):
            sid, group = first + i, dict(json.loads(str(row.group_key)))
            domain = metric_domain(str(row.metric_id))
            lower[i], upper[i] = (rounded(edge) for edge in clip_band(lower[i], upper[i], domain))
            axis = value_axis(values[i], lower[i], upper[i], domain)
            record: dict[str, Any] = {
                "id": sid,
                "d": dataset_index,
                "dataset": str(row.dataset),
                "scan": str(row.scan),
                "metric": str(row.metric_id),
                "name": str(row.name),
                "group": group,
                "label": group_label(group),
                "detectors": [str(d) for d in detectors.get(sid, [])],
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

    def _at(self, frame: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
        rows = frame["sid"].to_numpy("int64") - self.first
        return rows, np.searchsorted(self.times, frame["ts"].to_numpy("int64"))

    def fill(self, frame: pd.DataFrame, column: str) -> list[list[float | None]]:
        matrix = np.full(self.shape, np.nan)
        matrix[self._at(frame)] = frame[column].to_numpy("float64", na_value=np.nan)
        return rounded_rows(matrix)

    def letters(self, frame: pd.DataFrame) -> list[str]:
        matrix = np.full(self.shape, "-", dtype="<U1")
        matrix[self._at(frame)] = [STATUS_LETTERS.get(s, "o") for s in frame["status"]]
        return ["".join(row) for row in matrix.tolist()]

    def flags(self, frame: pd.DataFrame) -> list[str | None]:
        matrix = np.zeros(self.shape, dtype="int64")
        at = self._at(frame)
        for bit, kind in enumerate(ANNOTATION_KINDS):
            matrix[at] |= frame[kind].to_numpy(bool).astype("int64") << bit
        return ["".join(map(str, row)) if any(row) else None for row in matrix.tolist()]


def _worst_per_point(verdicts: pd.DataFrame) -> pd.DataFrame:
    if verdicts.empty:
        return verdicts.assign(sid=pd.Series([], dtype="int64"))
    rank = verdicts["status"].map(PRIORITY).fillna(2)
    ordered = verdicts.assign(rank=rank).sort_values(
        ["sid", "ts", "rank"], ascending=[True, True, False]
    )
    return ordered.drop_duplicates(["sid", "ts"], keep="first")


def _covering(annotations: list[Annotation], points: pd.DataFrame) -> dict[int, list[int]]:
    """Series id -> ids of the annotations covering at least one of its points (the points'
    flags, computed by the repository's own SQL, decide the tags)."""
    found: dict[int, list[int]] = {}
    for annotation in annotations:
        if annotation.annotation_id is None:
            continue
        start, end = _millis(annotation.start), _millis(annotation.end or annotation.start)
        hit = points[annotation.kind].to_numpy(bool) & points["ts"].between(start, end).to_numpy()
        if annotation.metric_id is not None:
            hit &= (points["metric_id"] == annotation.metric_id).to_numpy()
        if annotation.group is not None:
            hit &= (points["group_key"] == canonical_key(annotation.group)).to_numpy()
        for sid in np.unique(points["sid"].to_numpy()[hit]).tolist():
            found.setdefault(int(sid), []).append(int(annotation.annotation_id))
    return found


def _millis(moment: Any) -> int:
    return int(pd.Timestamp(moment).value // 1_000_000)

"""Series for the report's charts: values, expected band and verdict per point, compactly.

A series is one (dataset, scan, metric id, name, group). Its points are laid on the timeline of
its dataset (every time any of its series has a point or a verdict), so the times are sent once
per dataset and each series is a few aligned arrays: ``v`` values, ``lo``/``hi`` the band of the
verdict on that point, ``st`` one status letter per point (see ``STATUS_LETTERS``) and, when an
annotation covers some point, ``ann`` one digit per point (bit 1 incident, 2 expected,
4 excluded).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from anomaly.report.encoding import rounded
from anomaly.service.tables import group_label
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
    timelines, series = [], []
    for dataset_index, (dataset, of_dataset) in enumerate(keys.groupby("dataset", sort=True)):
        sids = of_dataset["sid"].to_numpy()
        mine = points[points["sid"].isin(sids)]
        theirs = judged[judged["sid"].isin(sids)]
        times = np.union1d(mine["ts"].to_numpy("int64"), theirs["ts"].to_numpy("int64"))
        timelines.append({"dataset": str(dataset), "times": times.tolist()})
        by_point = mine.groupby("sid", sort=False)
        by_verdict: dict[Any, pd.DataFrame] = dict(list(theirs.groupby("sid", sort=False)))
        for row in of_dataset.itertuples(index=False):
            own = by_point.get_group(row.sid)
            record = _series_record(row, dataset_index, times, own, by_verdict.get(row.sid))
            record["annotations"] = _covering(annotations, row, own)
            series.append(record)
    return SeriesPayload(timelines, series, verdict_series)


def _worst_per_point(verdicts: pd.DataFrame) -> pd.DataFrame:
    if verdicts.empty:
        return verdicts.assign(sid=pd.Series([], dtype="int64"))
    rank = verdicts["status"].map(PRIORITY).fillna(2)
    ordered = verdicts.assign(rank=rank).sort_values(
        ["sid", "ts", "rank"], ascending=[True, True, False]
    )
    return ordered.drop_duplicates(["sid", "ts"], keep="first")


def _series_record(
    row: Any, dataset_index: int, times: np.ndarray, own: pd.DataFrame, judged: Any
) -> dict[str, Any]:
    n = len(times)
    values = np.full(n, np.nan)
    at = np.searchsorted(times, own["ts"].to_numpy("int64"))
    values[at] = own["value"].to_numpy("float64")
    lower, upper = np.full(n, np.nan), np.full(n, np.nan)
    letters = np.full(n, "-", dtype="<U1")
    detectors: list[str] = []
    if judged is not None:
        where = np.searchsorted(times, judged["ts"].to_numpy("int64"))
        lower[where] = judged["lower"].to_numpy("float64", na_value=np.nan)
        upper[where] = judged["upper"].to_numpy("float64", na_value=np.nan)
        letters[where] = [STATUS_LETTERS.get(s, "o") for s in judged["status"]]
        detectors = list(dict.fromkeys(judged["detector"].dropna().astype(str)))
    group = dict(json.loads(row.group_key))
    record: dict[str, Any] = {
        "id": int(row.sid),
        "d": dataset_index,
        "dataset": str(row.dataset),
        "scan": str(row.scan),
        "metric": str(row.metric_id),
        "name": str(row.name),
        "group": group,
        "label": group_label(group),
        "detectors": detectors,
        "v": rounded(values),
        "lo": rounded(lower),
        "hi": rounded(upper),
        "st": "".join(letters.tolist()),
    }
    flags = np.zeros(n, dtype="int64")
    for bit, kind in enumerate(ANNOTATION_KINDS):
        flags[at] |= own[kind].to_numpy(bool).astype("int64") << bit
    if flags.any():
        record["ann"] = "".join(map(str, flags.tolist()))
    return record


def _covering(annotations: list[Annotation], row: Any, own: pd.DataFrame) -> list[int]:
    """Ids of the annotations that cover at least one point of the series (their points'
    flags, computed by the repository's own SQL, decide the tags)."""
    found = []
    for annotation in annotations:
        if annotation.metric_id not in (None, row.metric_id):
            continue
        if annotation.group is not None and canonical_key(annotation.group) != row.group_key:
            continue
        start, end = _millis(annotation.start), _millis(annotation.end or annotation.start)
        inside = own[(own["ts"] >= start) & (own["ts"] <= end)]
        if bool(inside[annotation.kind].any()) and annotation.annotation_id is not None:
            found.append(int(annotation.annotation_id))
    return found


def _millis(moment: Any) -> int:
    return int(pd.Timestamp(moment).value // 1_000_000)

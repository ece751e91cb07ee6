"""Series reads for detection: one metric's history (optionally without excluded points, or with
its annotations), the histories of many groups at once, and the latest value of many groups."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

import numpy as np

from repository.annotations import ANNOTATION_KINDS, EXCLUDED, covered_by
from repository.backends.base import Backend, Cursor
from repository.errors import AmbiguousSeriesError
from repository.filters import Where
from repository.frames import run_tags, timestamps, to_frame
from repository.keys import canonical_key, check_group, check_tags, from_epoch_ms, metric_id_of
from repository.query import metric_ids

if TYPE_CHECKING:  # pandas loads where a frame is built: read-only commands never need it
    import pandas as pd

    from repository.keys import HasMetricId, TimeLike

LATEST_COLUMNS = ("entity", "instance", "name", "metric_id", "value", "timestamp", "group_key")
"""The fixed columns of ``latest()`` (``group_key`` as in ``query.POINT_COLUMNS``)."""
_FROM = """
    FROM points p JOIN runs r ON r.run_id = p.run_id JOIN series s ON s.series_id = p.series_id
    JOIN group_keys k ON k.group_id = s.group_id"""


def history(
    connector: Backend,
    metric: str | HasMetricId,
    *,
    tags: Mapping[str, str] | None = None,
    group: Mapping[str, str | None] | None = None,
    name: str | None = None,
    after: TimeLike | None = None,
    before: TimeLike | None = None,
    exclude_annotated: bool = False,
) -> pd.Series:
    """Succeeded values of one series, indexed by run timestamp (UTC), oldest first.

    ``group=None`` accepts the metric's only group; ``group={}`` is the whole-dataset series.
    ``exclude_annotated`` leaves out the points an ``excluded`` annotation covers (the history a
    detector should learn from). Raises ``AmbiguousSeriesError`` when the filters match several
    series (names or groups) or several runs at one timestamp (tags that differ beyond ``tags``).
    """
    import pandas as pd

    extra = Where(connector.dialect)
    if exclude_annotated:
        extra.add(f"NOT {covered_by(EXCLUDED)}")
    millis, data = _series(connector, metric, tags, group, name, after, before, extra, [])
    index = timestamps(millis).rename("timestamp")
    return pd.Series(
        np.asarray(data["value"], dtype="float64"), index=index, name=metric_id_of(metric)
    )


def annotated_history(
    connector: Backend,
    metric: str | HasMetricId,
    *,
    tags: Mapping[str, str] | None = None,
    group: Mapping[str, str | None] | None = None,
    name: str | None = None,
    after: TimeLike | None = None,
    before: TimeLike | None = None,
) -> pd.DataFrame:
    """The series of :func:`history` as a frame indexed by timestamp: ``value`` and one boolean
    column per annotation kind (``incident``, ``expected``, ``excluded``) saying whether an
    annotation of that kind covers the point."""
    import pandas as pd

    flags = [f"{covered_by(kind)} AS {kind}" for kind in ANNOTATION_KINDS]
    extra = Where(connector.dialect)
    millis, data = _series(connector, metric, tags, group, name, after, before, extra, flags)
    frame = pd.DataFrame(
        {"value": np.asarray(data["value"], dtype="float64")},
        index=timestamps(millis).rename("timestamp"),
    )
    for kind in ANNOTATION_KINDS:
        frame[kind] = np.asarray(data[kind], dtype=bool)
    return frame


def _series(
    connector: Backend,
    metric: str | HasMetricId,
    tags: Mapping[str, str] | None,
    group: Mapping[str, str | None] | None,
    name: str | None,
    after: TimeLike | None,
    before: TimeLike | None,
    extra: Where,
    columns: list[str],
) -> tuple[np.ndarray, dict[str, Any]]:
    """Epoch milliseconds and columns of one series' succeeded points (see :func:`history`)."""
    metric_id = metric_id_of(metric)
    where = _points_of(connector, metric_id, tags, after, before)
    if name is not None:
        where.add("s.name = ?", name)
    if group is not None:
        where.add("k.group_key = ?", canonical_key(check_group(group)))
    if extra.clauses:
        where.add(extra.sql, *extra.params)
    selected = ", ".join(
        [
            f"{connector.dialect.epoch_ms('r.ts')} AS ts_ms",
            "p.value",
            "p.series_id",
            "p.run_id",
            *columns,
        ]
    )
    sql = f"SELECT {selected} {_FROM} WHERE {where.sql} ORDER BY r.ts, r.run_id"
    with connector.cursor() as cur:
        data = cur.numpy(sql, where.params)
        series_ids = np.unique(data["series_id"])
        if len(series_ids) > 1:
            raise _several_series(cur, metric_id, series_ids)
        millis = np.asarray(data["ts_ms"], dtype="int64")
        repeated = _repeated_time(cur, metric_id, millis, data["run_id"])
        if repeated is not None:
            raise repeated
    return millis, data


def histories(
    connector: Backend,
    metric: str | HasMetricId,
    groups: Iterable[Mapping[str, str | None]],
    *,
    tags: Mapping[str, str] | None = None,
    after: TimeLike | None = None,
    before: TimeLike | None = None,
    exclude_annotated: bool = False,
) -> dict[str, pd.Series | AmbiguousSeriesError]:
    """:func:`history` of many groups of one metric in one query, by canonical group key
    (``keys.canonical_key``): each group's series, or the error ``history`` would raise for it
    (errors as values: one ambiguous group does not fail the others). A group without stored
    points gets an empty series."""
    import pandas as pd

    metric_id = metric_id_of(metric)
    wanted = list(dict.fromkeys(canonical_key(check_group(g)) for g in groups))
    where = _points_of(connector, metric_id, tags, after, before).within("k.group_key", wanted)
    if exclude_annotated:
        where.add(f"NOT {covered_by(EXCLUDED)}")
    epoch = connector.dialect.epoch_ms("r.ts")
    sql = (
        f"SELECT {epoch} AS ts_ms, p.value, p.series_id, p.run_id, k.group_key {_FROM} "
        f"WHERE {where.sql} ORDER BY k.group_key, r.ts, r.run_id"
    )
    found: dict[str, pd.Series | AmbiguousSeriesError] = {}
    with connector.cursor() as cur:
        data = cur.numpy(sql, where.params) if wanted else {}
        keys = np.asarray(data.get("group_key", []), dtype=object)
        starts = np.flatnonzero(np.r_[True, keys[1:] != keys[:-1]]).tolist() if len(keys) else []
        ends = [*starts[1:], len(keys)] if starts else []
        for start, end in zip(starts, ends, strict=True):
            rows = slice(start, end)
            millis = np.asarray(data["ts_ms"][rows], dtype="int64")
            series_ids = np.unique(data["series_id"][rows])
            error = (
                _several_series(cur, metric_id, series_ids)
                if len(series_ids) > 1
                else _repeated_time(cur, metric_id, millis, data["run_id"][rows])
            )
            found[str(keys[start])] = error or pd.Series(
                np.asarray(data["value"][rows], dtype="float64"),
                index=timestamps(millis).rename("timestamp"),
                name=metric_id,
            )
    empty = pd.Series([], index=timestamps([]).rename("timestamp"), name=metric_id, dtype=float)
    return {key: found.get(key, empty) for key in wanted}


def _points_of(
    connector: Backend,
    metric_id: str,
    tags: Mapping[str, str] | None,
    after: TimeLike | None,
    before: TimeLike | None,
) -> Where:
    """The succeeded points of ``metric_id`` in runs with ``tags`` within the time range."""
    return (
        Where(connector.dialect)
        .add("s.metric_id = ?", metric_id)
        .add("p.error IS NULL")
        .tags("r.run_id", None if tags is None else check_tags(tags))
        .time_range("r.ts", after, before)
    )


def _repeated_time(
    cur: Cursor, metric_id: str, millis: np.ndarray, run_ids: np.ndarray
) -> AmbiguousSeriesError | None:
    """The error for several runs at one time of a series' sorted ``millis``, if any."""
    repeated = np.flatnonzero(np.diff(millis) == 0)
    if not len(repeated):
        return None
    at = int(millis[repeated[0]])
    return _several_runs(cur, metric_id, at, run_ids[millis == at])


def latest(
    connector: Backend,
    metrics: str | HasMetricId | Iterable[str | HasMetricId],
    *,
    tags: Mapping[str, str] | None = None,
    groups: Iterable[Mapping[str, str | None]] | None = None,
    after: TimeLike | None = None,
    before: TimeLike | None = None,
) -> pd.DataFrame:
    """The newest succeeded value of every series (metric, name, group) in one query.

    ``groups`` limits the result to these exact groups; ``None`` means every group. Columns:
    ``LATEST_COLUMNS``, then group columns, then tag columns of the run each value came from.
    """
    checked_tags = None if tags is None else check_tags(tags)
    where = (
        Where(connector.dialect)
        .within("s.metric_id", metric_ids(metrics))
        .add("p.error IS NULL")
        .tags("r.run_id", checked_tags)
        .time_range("r.ts", after, before)
    )
    if groups is not None:
        where.within("k.group_key", [canonical_key(check_group(g)) for g in groups])
    sql = connector.dialect.latest_per_series(_FROM, where.sql)
    with connector.cursor() as cur:
        table = cur.arrow(sql, where.params)
        return to_frame(cur, table, LATEST_COLUMNS, tag_columns=checked_tags or ())


def _several_series(cur: Cursor, metric_id: str, series_ids: np.ndarray) -> AmbiguousSeriesError:
    rows = cur.execute(
        "SELECT s.name, k.group_key FROM series s JOIN group_keys k ON k.group_id = s.group_id "
        "WHERE s.series_id IN (SELECT unnest(?::BIGINT[])) ORDER BY s.name, k.group_key LIMIT 5",
        [[int(i) for i in series_ids]],
    ).fetchall()
    shown = "; ".join(f"name {name!r} group {group_key}" for name, group_key in rows)
    return AmbiguousSeriesError(
        f"metric {metric_id!r} has {len(series_ids)} series matching the filters ({shown}"
        f"{'; ...' if len(series_ids) > len(rows) else ''}); pass name= and/or group= "
        "(group={} is the whole-dataset series) to pick one"
    )


def _several_runs(
    cur: Cursor, metric_id: str, millis: int, run_ids: Iterable[int]
) -> AmbiguousSeriesError:
    tags = run_tags(cur, run_ids)
    return AmbiguousSeriesError(
        f"metric {metric_id!r} has {len(tags)} runs at {from_epoch_ms(millis).isoformat()} "
        f"matching the filters, with tags {list(tags.values())}; add tags= that tell them apart"
    )

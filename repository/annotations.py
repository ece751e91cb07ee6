"""Annotations: what users know about metric points that the numbers do not say.

An annotation marks a time range ``[start, end]`` (both inclusive; one point when equal) of one
metric or all (``metric_id=None``), one group or all (``group=None``; ``{}`` is the whole-dataset
series) in the runs whose tags include ``tags`` (``{}``: every run) as one of:

* ``incident``: a known problem (labels for backtests: alerts here are wanted);
* ``expected``: a planned change (alerts here are neither right nor wrong);
* ``excluded``: not to be learned from: ``history(..., exclude_annotated=True)`` leaves such
  points out, so a fixed bad run no longer widens or shifts the baselines of later checks.

Annotations are independent of runs: deleting runs keeps them, and they may be written before or
after the points they cover. SQL views: ``metric_annotations`` and ``annotated_history``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from repository.backends.base import Backend, Cursor
from repository.filters import Where
from repository.keys import (
    HasMetricId,
    TimeLike,
    canonical_key,
    check_group,
    check_tags,
    from_epoch_ms,
    metric_id_of,
    to_epoch_ms,
)

INCIDENT, EXPECTED, EXCLUDED = "incident", "expected", "excluded"
ANNOTATION_KINDS = (INCIDENT, EXPECTED, EXCLUDED)


@dataclass(frozen=True)
class Annotation:
    """A known incident, expected change or exclusion over ``[start, end]``.

    ``start``/``end`` are datetimes (naive = UTC) or epoch milliseconds and are kept as UTC
    datetimes at millisecond resolution; ``end=None`` marks the single point ``start``.

    Examples
    --------
    >>> a = Annotation("excluded", 1714521600000, metric_id="Size(*)", group={"country": "DE"})
    >>> a.start.isoformat(), a.end == a.start, a.tags
    ('2024-05-01T00:00:00+00:00', True, {})
    >>> Annotation("bad", 0)
    Traceback (most recent call last):
    ValueError: annotation kind must be one of incident, expected, excluded; got 'bad'
    """

    kind: str
    start: datetime | int
    end: datetime | int | None = None
    metric_id: str | None = None
    group: Mapping[str, str | None] | None = None
    tags: Mapping[str, str] = field(default_factory=dict)
    note: str | None = None
    annotation_id: int | None = None
    created_at: datetime | None = None

    def __post_init__(self) -> None:
        if self.kind not in ANNOTATION_KINDS:
            raise ValueError(
                f"annotation kind must be one of {', '.join(ANNOTATION_KINDS)}; got {self.kind!r}"
            )
        start = to_epoch_ms(self.start, "start")
        end = start if self.end is None else to_epoch_ms(self.end, "end")
        if end < start:
            raise ValueError(
                f"annotation end ({from_epoch_ms(end).isoformat()}) is before its start "
                f"({from_epoch_ms(start).isoformat()})"
            )
        if self.metric_id is not None and (
            not isinstance(self.metric_id, str) or not self.metric_id
        ):
            raise ValueError(f"metric_id must be a non-empty str or None, got {self.metric_id!r}")
        if self.note is not None and not isinstance(self.note, str):
            raise TypeError(f"note must be a str or None, got {type(self.note).__name__}")
        set_ = object.__setattr__
        set_(self, "start", from_epoch_ms(start))
        set_(self, "end", from_epoch_ms(end))
        set_(self, "tags", check_tags(self.tags, "annotation tags"))
        if self.group is not None:
            set_(self, "group", check_group(self.group, "annotation group"))

    def covers(self, metric_id: str, group: Mapping[str, str | None], at: TimeLike) -> bool:
        """Whether a point of ``metric_id`` and ``group`` at ``at`` is annotated (tags aside).

        >>> Annotation("incident", 0, 10).covers("Size(*)", {}, 10)
        True
        """
        return (
            (self.metric_id is None or self.metric_id == metric_id)
            and (self.group is None or dict(self.group) == dict(group))
            and self.spans(at)
        )

    def spans(self, at: TimeLike) -> bool:
        """Whether ``at`` lies in ``[start, end]``."""
        return to_epoch_ms(self.start) <= to_epoch_ms(at) <= to_epoch_ms(self.end or self.start)


class Coverage:
    """Which annotations cover stored points: the coverage rule (the annotation's time range,
    its metric and group or all, its tags a subset of the run's), for annotations already
    read; `covered_by` is the same rule in SQL (views and history reads). Every reader of the
    app asks this (``repo.coverage(...)``) rather than applying the rule itself.

    >>> day = 1714521600000
    >>> found = Coverage([Annotation("excluded", day, tags={"env": "prod"}),
    ...                   Annotation("incident", day, metric_id="Size(*)")])
    >>> found.kinds("Size(*)", {}, day, {"dataset": "d", "env": "prod"})
    ('incident', 'excluded')
    >>> found.kinds("Size(*)", {}, day, {"env": "dev"}), found.kinds("Mean(x)", {}, 0, {})
    (('incident',), ())
    """

    def __init__(self, annotations: Iterable[Annotation]) -> None:
        self.annotations = list(annotations)
        self._run: tuple[int, tuple[tuple[str, str], ...]] | None = None
        self._applying: list[Annotation] = []

    def __bool__(self) -> bool:
        return bool(self.annotations)

    def kinds(
        self, metric_id: str, group: Mapping[str, str | None], at: TimeLike, tags: Mapping[str, str]
    ) -> tuple[str, ...]:
        """The kinds of the annotations covering the point of `metric_id` and `group` at `at`
        in a run with `tags`, each once, in ``ANNOTATION_KINDS`` order."""
        if not self.annotations:
            return ()
        run = (to_epoch_ms(at), tuple(sorted(tags.items())))
        if run != self._run:  # the points of one run are asked one after another
            self._run, self._applying = run, of_run(self.annotations, at, tags)
        return covering_kinds(self._applying, metric_id, group, at)


def of_run(
    annotations: Iterable[Annotation], at: TimeLike, tags: Mapping[str, str]
) -> list[Annotation]:
    """The `annotations` that may cover points of the run at `at` with `tags` (time, and
    tags a subset of the run's); metric and group are left to `covering_kinds`."""
    return [a for a in annotations if a.tags.items() <= tags.items() and a.spans(at)]


def covering_kinds(
    applying: Iterable[Annotation], metric_id: str, group: Mapping[str, str | None], at: TimeLike
) -> tuple[str, ...]:
    """The kinds of the annotations of `applying` (`of_run`) covering the point of
    `metric_id` and `group` at `at`, each once, in ``ANNOTATION_KINDS`` order."""
    found = {a.kind for a in applying if a.covers(metric_id, group, at)}
    return tuple(kind for kind in ANNOTATION_KINDS if kind in found)


def covered_by(
    kind: str,
    *,
    run_id: str = "r.run_id",
    ts: str = "r.ts",
    metric_id: str = "s.metric_id",
    group_key: str = "k.group_key",
) -> str:
    """SQL that is true when an annotation of ``kind`` covers the point whose run id, time,
    metric id and group key are the given column expressions: the rule of `Coverage`."""
    if kind not in ANNOTATION_KINDS:
        raise ValueError(f"annotation kind must be one of {ANNOTATION_KINDS}, got {kind!r}")
    return f"""EXISTS (
        SELECT 1 FROM annotations a
        WHERE a.kind = '{kind}' AND {ts} BETWEEN a.start_ts AND a.end_ts
          AND (a.metric_id IS NULL OR a.metric_id = {metric_id})
          AND (a.group_key IS NULL OR a.group_key = {group_key})
          AND NOT EXISTS (
              SELECT 1 FROM annotation_tags t WHERE t.annotation_id = a.annotation_id
                AND NOT EXISTS (
                    SELECT 1 FROM run_tags rt WHERE rt.run_id = {run_id}
                      AND rt.tag = t.tag AND rt.value = t.value)))"""


def add_annotation(connector: Backend, annotation: Annotation) -> int:
    """Store ``annotation`` (its id and creation time are assigned); returns the new id."""
    group_key = None if annotation.group is None else canonical_key(annotation.group)
    with connector.transaction() as cur:
        row = cur.first(
            "INSERT INTO annotations (annotation_id, kind, start_ts, end_ts, metric_id, "
            "group_key, note) VALUES (nextval('annotation_id_seq'), ?, ?, ?, ?, ?, ?) "
            "RETURNING annotation_id",
            [
                annotation.kind,
                annotation.start,
                annotation.end,
                annotation.metric_id,
                group_key,
                annotation.note,
            ],
        )
        assert row is not None
        annotation_id = int(row[0])
        for table, pairs in (
            ("annotation_tags", annotation.tags.items()),
            ("annotation_groups", (annotation.group or {}).items()),
        ):
            names, values = [n for n, _ in pairs], [v for _, v in pairs]
            if names:
                cur.execute(
                    f"INSERT INTO {table} SELECT ?, unnest(?::VARCHAR[]), unnest(?::VARCHAR[])",
                    [annotation_id, names, values],
                )
    return annotation_id


def load_annotations(
    connector: Backend,
    *,
    kinds: Sequence[str] | None = None,
    metric: str | HasMetricId | None = None,
    tags: Mapping[str, str] | None = None,
    group: Mapping[str, str | None] | None = None,
    after: TimeLike | None = None,
    before: TimeLike | None = None,
) -> list[Annotation]:
    """Stored annotations that may apply to the given scope, oldest start first.

    ``metric``/``group`` select annotations of that metric/group or of all; ``tags`` those whose
    tags do not contradict it; ``after``/``before`` those overlapping ``[after, before]``.
    """
    for kind in kinds or ():
        Annotation(kind, 0)  # refuses an unknown kind with the usual message
    if after is not None and before is not None and to_epoch_ms(after) > to_epoch_ms(before):
        raise ValueError(f"after ({after!r}) is later than before ({before!r}): the range is empty")
    d = connector.dialect
    where = Where(d).within("a.kind", kinds)
    if metric is not None:
        where.add("(a.metric_id IS NULL OR a.metric_id = ?)", metric_id_of(metric))
    if group is not None:
        where.add("(a.group_key IS NULL OR a.group_key = ?)", canonical_key(check_group(group)))
    if tags:
        checked = check_tags(tags)
        where.add(
            "NOT EXISTS (SELECT 1 FROM annotation_tags t JOIN (SELECT unnest(?::VARCHAR[]) AS tag, "
            "unnest(?::VARCHAR[]) AS value) f ON t.tag = f.tag "
            "WHERE t.annotation_id = a.annotation_id AND t.value <> f.value)",
            list(checked),
            list(checked.values()),
        )
    # Overlap of [start, end] with [after, before]: end >= after and start <= before.
    where.time_range("a.end_ts", after, None).time_range("a.start_ts", None, before)
    with connector.cursor() as cur:
        rows = cur.execute(
            f"SELECT annotation_id, kind, {d.epoch_ms('start_ts')}, {d.epoch_ms('end_ts')}, "
            f"metric_id, group_key, note, {d.epoch_ms('created_at')} FROM annotations a "
            f"WHERE {where.sql} ORDER BY start_ts, annotation_id",
            where.params,
        ).fetchall()
        ids = [int(r[0]) for r in rows]
        tag_map = _pairs(cur, "annotation_tags", "tag", ids)
        group_map = _pairs(cur, "annotation_groups", "column_name", ids)
    return [
        Annotation(
            kind,
            int(start),
            int(end),
            metric_id,
            None if group_key is None else group_map.get(int(annotation_id), {}),
            tag_map.get(int(annotation_id), {}),
            note,
            int(annotation_id),
            from_epoch_ms(int(created_at)),
        )
        for annotation_id, kind, start, end, metric_id, group_key, note, created_at in rows
    ]


def _pairs(cur: Cursor, table: str, name: str, ids: list[int]) -> dict[int, dict[str, Any]]:
    if not ids:
        return {}
    found: dict[int, dict[str, Any]] = {}
    rows = cur.execute(
        f"SELECT annotation_id, {name}, value FROM {table} "
        f"WHERE {cur.dialect.member('annotation_id', 'BIGINT', len(ids))} "
        "ORDER BY annotation_id, 2",
        [ids],
    ).fetchall()
    for annotation_id, key, value in rows:
        found.setdefault(int(annotation_id), {})[key] = value
    return found


def load_coverage(
    connector: Backend,
    *,
    kinds: Sequence[str] | None = None,
    metric: str | HasMetricId | None = None,
    tags: Mapping[str, str] | None = None,
    after: TimeLike | None = None,
    before: TimeLike | None = None,
) -> Coverage:
    """The `Coverage` of the stored annotations that may apply to the scope (as
    `load_annotations`): which of them cover each point read from it."""
    found = load_annotations(
        connector, kinds=kinds, metric=metric, tags=tags, after=after, before=before
    )
    return Coverage(found)


def delete_annotations(connector: Backend, ids: int | Iterable[int]) -> int:
    """Delete the annotations with these ids; returns how many existed."""
    wanted = [ids] if isinstance(ids, int) else list(ids)
    if not all(isinstance(i, int) and not isinstance(i, bool) for i in wanted):
        raise TypeError(f"annotation ids must be integers, got {wanted!r}")
    listed = connector.dialect.member("annotation_id", "BIGINT", len(wanted))
    with connector.transaction() as cur:
        for table in ("annotation_tags", "annotation_groups"):
            cur.execute(f"DELETE FROM {table} WHERE {listed}", [wanted])
        return cur.changed(f"DELETE FROM annotations WHERE {listed}", [wanted])

"""Writing metric points: records become one Arrow batch, merged into the tables by set-based SQL.

Row-by-row inserts (``executemany``) cost well over 0.1 ms a row in DuckDB: seconds for a 10k-point
run (``bench/repository.py`` measures it). Instead a run is built as Arrow columns in one Python
pass and merged by a fixed handful of statements (new runs, groups and series; replaced points;
inserted points), whatever the number of points or runs: ``import_parquet`` uses the same path
for many runs at once.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

import pyarrow as pa

from repository.backends.base import Cursor
from repository.dimensions import GroupKeys, ensure_groups, ensure_runs
from repository.keys import ResultKey
from repository.records import MetricRecord

POINT_SCHEMA = pa.schema(
    [
        ("run_ref", pa.int64()),
        ("metric_id", pa.string()),
        ("entity", pa.string()),
        ("instance", pa.string()),
        ("name", pa.string()),
        ("group_key", pa.string()),
        ("value", pa.float64()),
        ("error", pa.string()),
    ]
)


@dataclass(frozen=True)
class StagedPoints:
    """Points ready to merge: ``table`` (``POINT_SCHEMA``) refers to ``keys`` and ``groups``."""

    keys: list[ResultKey]
    groups: dict[str, Mapping[str, str | None]]
    table: pa.Table


def stage_records(key: ResultKey, metrics: Iterable[MetricRecord]) -> StagedPoints:
    """Check the records of one run and lay them out as Arrow columns."""
    if not isinstance(key, ResultKey):
        raise TypeError(f"key must be a ResultKey, got {type(key).__name__}")
    groups = GroupKeys()
    columns: list[list[object]] = [[] for _ in range(7)]
    metric_ids, entities, instances, names, group_keys, values, errors = columns
    seen: set[tuple[str, str, str, str, str]] = set()
    for record in metrics:
        if not isinstance(record, MetricRecord):
            raise TypeError(f"metrics must yield MetricRecord, got {type(record).__name__}")
        group_key = groups.key(record.group)
        identity = (record.metric_id, record.entity, record.instance, record.name, group_key)
        if identity in seen:
            raise ValueError(
                f"metric {record.metric_id!r} (name {record.name!r}, instance "
                f"{record.instance!r}, group {dict(record.group)}) appears twice in one run; "
                "each metric may be saved once per run and group"
            )
        seen.add(identity)
        metric_ids.append(record.metric_id)
        entities.append(record.entity)
        instances.append(record.instance)
        names.append(record.name)
        group_keys.append(group_key)
        values.append(None if record.value is None else float(record.value))
        errors.append(record.error)
    types = [pa.string()] * 5 + [pa.float64(), pa.string()]
    arrays = [pa.array(c, t) for c, t in zip(columns, types, strict=True)]
    refs = pa.array([0] * len(metric_ids), pa.int64())
    return StagedPoints(
        [key], groups.groups, pa.Table.from_arrays([refs, *arrays], schema=POINT_SCHEMA)
    )


def stage_runs(runs: Iterable[tuple[ResultKey, Iterable[MetricRecord]]]) -> StagedPoints:
    """The records of several runs as one batch (`stage_records` per run); a key given twice
    is a ``ValueError`` (which of its runs would be kept?)."""
    parts = [stage_records(key, metrics) for key, metrics in runs]
    keys = [part.keys[0] for part in parts]
    if len(set(keys)) < len(keys):
        twice = next(k for i, k in enumerate(keys) if k in keys[:i])
        raise ValueError(f"run {twice} appears twice; each run may be saved once per call")
    groups = {k: v for part in parts for k, v in part.groups.items()}
    tables = [
        part.table.set_column(0, "run_ref", pa.array([i] * part.table.num_rows, pa.int64()))
        for i, part in enumerate(parts)
    ]
    table = pa.concat_tables(tables) if tables else POINT_SCHEMA.empty_table()
    return StagedPoints(keys, groups, table)


def write_points(cur: Cursor, staged: StagedPoints) -> int:
    """Merge staged points inside the caller's transaction; returns the number written.

    A run's earlier points of every metric id present in ``staged`` are replaced (all names and
    groups of that metric id); its other metrics are kept. Rows must be unique per run and series
    (``stage_records`` checks that).
    """
    if staged.table.num_rows == 0:
        return 0
    runs = ensure_runs(cur, staged.keys)
    run_ids = [run_id for run_id, _ in runs]
    existing = [ref for ref, (_, existed) in enumerate(runs) if existed]
    ensure_groups(cur, staged.groups)
    with cur.staged(staged_points=staged.table):
        cur.execute(_NEW_SERIES)
        if existing:
            replaced = [run_ids[ref] for ref in existing]
            among = cur.dialect.member("points.run_id", "BIGINT", len(replaced))
            cur.execute(_REPLACED.format(among=among), [run_ids, existing, replaced])
        cur.execute(_INSERT, [run_ids])
    return int(staged.table.num_rows)


_NEW_SERIES = """
INSERT INTO series
SELECT nextval('series_id_seq'), n.metric_id, n.entity, n.instance, n.name, n.group_id
FROM (SELECT DISTINCT p.metric_id, p.entity, p.instance, p.name, k.group_id
      FROM staged_points p JOIN group_keys k USING (group_key)) n
WHERE NOT EXISTS (
    SELECT 1 FROM series s WHERE s.metric_id = n.metric_id AND s.entity = n.entity
    AND s.instance = n.instance AND s.name = n.name AND s.group_id = n.group_id)
ORDER BY n.metric_id, n.name, n.group_id
"""
# The first parameter maps run_ref (a position) to run_id. Naming the replaced runs' ids again
# (``among``) lets PostgreSQL read only their points by index, instead of every point.
_REPLACED = """
DELETE FROM points USING (
    SELECT DISTINCT (?::BIGINT[])[m.run_ref + 1] AS run_id, s.series_id
    FROM (SELECT DISTINCT run_ref, metric_id FROM staged_points
          WHERE run_ref IN (SELECT unnest(?::BIGINT[]))) m
    JOIN series s USING (metric_id)) d
WHERE {among} AND points.run_id = d.run_id AND points.series_id = d.series_id
"""
# Sorted by series within a run so that compaction and zone maps have less to do. The group ids
# are joined first, behind a fence: PostgreSQL's planner, multiplying the selectivities of the
# metric id, entity, instance and name, expects one series per metric and name, and left alone
# it matched each point to every group's series and only then filtered (6x slower saves).
_INSERT = """
WITH grouped AS MATERIALIZED (
    SELECT p.*, k.group_id FROM staged_points p JOIN group_keys k USING (group_key))
INSERT INTO points
SELECT (?::BIGINT[])[p.run_ref + 1], s.series_id, p.value, p.error
FROM grouped p
JOIN series s ON s.metric_id = p.metric_id AND s.group_id = p.group_id AND s.name = p.name
    AND s.entity = p.entity AND s.instance = p.instance
ORDER BY 1, 2
"""

"""Metric history to and from Parquet: backups, moves between files, loads into a warehouse.

One row per point, self-describing (no ids), the same shape as the ``metric_points`` view:

=============  ======================================  =========================================
column         Arrow type                              meaning
=============  ======================================  =========================================
timestamp      timestamp[us, tz=UTC]                   the run's time
tags           map<string, string>                     the run's tags
metric_id      string                                  analyzer id
entity         string                                  ``Dataset``, ``Column`` or ``Multicolumn``
instance       string                                  ``*``, a column, or ``a,b``
name           string                                  metric name
group          map<string, string> (nullable values)   group column values; empty for the dataset
value          double                                  null for failed metrics
error          string                                  failure message; null on success
=============  ======================================  =========================================

Import merges with ``save`` semantics (a run's points of each imported metric id are replaced), in
one transaction, so importing the same file twice changes nothing. The file is checked and turned
into staged points by the process's in-memory DuckDB instance, whatever store the repository is
in: an export of a DuckDB file imports into PostgreSQL and back.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping

import pyarrow as pa

from repository.backends.base import Backend, Cursor
from repository.backends.duckdb.cursor import scratch
from repository.dimensions import GroupKeys
from repository.filters import Where
from repository.keys import ResultKey, TimeLike, check_tags
from repository.records import ENTITIES
from repository.writer import StagedPoints, write_points

TEXT_MAP = pa.map_(pa.string(), pa.string())
PARQUET_SCHEMA = pa.schema(
    [
        ("timestamp", pa.timestamp("us", tz="UTC")),
        ("tags", TEXT_MAP),
        ("metric_id", pa.string()),
        ("entity", pa.string()),
        ("instance", pa.string()),
        ("name", pa.string()),
        ("group", TEXT_MAP),
        ("value", pa.float64()),
        ("error", pa.string()),
    ]
)
PARQUET_COLUMNS = tuple(PARQUET_SCHEMA.names)
_BATCH_ROWS = 1_000_000


def export_parquet(
    connector: Backend,
    path: str | os.PathLike[str],
    *,
    tags: Mapping[str, str] | None = None,
    after: TimeLike | None = None,
    before: TimeLike | None = None,
    include_failures: bool = True,
) -> int:
    """Write matching points (failures included by default) to one Parquet file; returns rows.

    Streams in batches, so the export never holds the whole history in memory.
    """
    import pyarrow.parquet as pq  # with its filesystems: only exports and imports need it

    where = (
        Where(connector.dialect)
        .tags("r.run_id", None if tags is None else check_tags(tags))
        .time_range("r.timestamp", after, before)
    )
    if not include_failures:
        where.add("p.error IS NULL")
    sql = f"""
        SELECT r.timestamp, r.tags, s.metric_id, s.entity, s.instance, s.name,
               g.group_values AS "group", p.value, p.error
        FROM points p JOIN run_overview r ON r.run_id = p.run_id
        JOIN series s ON s.series_id = p.series_id JOIN group_overview g ON g.group_id = s.group_id
        WHERE {where.sql}
        ORDER BY r.timestamp, r.run_id, s.series_id"""
    rows = 0
    with (
        connector.cursor() as cur,
        pq.ParquetWriter(os.fspath(path), PARQUET_SCHEMA, compression="zstd") as writer,
    ):
        for batch in cur.batches(sql, where.params, _BATCH_ROWS, PARQUET_SCHEMA):
            writer.write_batch(batch)
            rows += batch.num_rows
    return rows


def import_parquet(connector: Backend, path: str | os.PathLike[str]) -> int:
    """Merge a Parquet file written by ``export_parquet`` (or shaped like it); returns rows."""
    import pyarrow.parquet as pq  # with its filesystems: only exports and imports need it

    table = pq.read_table(os.fspath(path))
    missing = [c for c in PARQUET_COLUMNS if c not in table.column_names]
    if missing:
        raise ValueError(
            f"{os.fspath(path)} lacks the columns {missing}; an import needs "
            f"{list(PARQUET_COLUMNS)}"
        )
    with scratch() as duck:
        staged = _stage(duck, table.select(PARQUET_COLUMNS), os.fspath(path))
    with connector.transaction() as cur:
        return write_points(cur, staged)


def _stage(cur: Cursor, table: pa.Table, path: str) -> StagedPoints:
    """The imported rows checked and laid out as staged points (in DuckDB SQL)."""
    with cur.staged(imported=table):
        _check(cur, path)
        # Keys are computed in Python, as on save, for the distinct tag sets and groups only.
        runs = cur.execute(
            "SELECT DISTINCT epoch_ms(timestamp), coalesce(to_json(tags), '{}') "
            "FROM imported ORDER BY ALL"
        ).fetchall()
        # Differently ordered tag maps are one run: refer to each distinct key once.
        refs: dict[ResultKey, int] = {}
        run_ref = [refs.setdefault(ResultKey(m, json.loads(t)), len(refs)) for m, t in runs]
        groups = GroupKeys()
        group_rows = [
            (text, groups.key(json.loads(text)))
            for (text,) in cur.execute(
                "SELECT DISTINCT coalesce(to_json(\"group\"), '{}') FROM imported"
            ).fetchall()
        ]
        run_refs = pa.table(
            {
                "millis": pa.array([m for m, _ in runs], pa.int64()),
                "tags_json": pa.array([t for _, t in runs], pa.string()),
                "run_ref": pa.array(run_ref, pa.int64()),
            }
        )
        group_refs = pa.table(
            {
                "group_json": pa.array([t for t, _ in group_rows], pa.string()),
                "group_key": pa.array([k for _, k in group_rows], pa.string()),
            }
        )
        with cur.staged(run_refs=run_refs, group_refs=group_refs):
            points = cur.arrow(
                """
                SELECT r.run_ref, i.metric_id, i.entity, i.instance, i.name, g.group_key,
                       i.value, i.error
                FROM imported i
                JOIN run_refs r ON r.millis = epoch_ms(i.timestamp)
                    AND r.tags_json = coalesce(to_json(i.tags), '{}')
                JOIN group_refs g ON g.group_json = coalesce(to_json(i."group"), '{}')
                """,
            )
    with cur.staged(import_points=points):
        duplicate = cur.first(_DUPLICATE)
    if duplicate is not None:
        raise ValueError(
            f"{path}: metric {duplicate[0]!r} (name {duplicate[1]!r}, group "
            f"{duplicate[2]}) appears {duplicate[3]} times in one run"
        )
    return StagedPoints(list(refs), groups.groups, points)


_DUPLICATE = """
SELECT metric_id, name, group_key, count(*) FROM import_points
GROUP BY run_ref, metric_id, entity, instance, name, group_key HAVING count(*) > 1 LIMIT 1
"""


def _check(cur: Cursor, path: str) -> None:
    bad = cur.first(
        """
        SELECT metric_id, reason FROM (
            SELECT metric_id, CASE
                WHEN timestamp IS NULL OR metric_id IS NULL OR entity IS NULL
                    OR instance IS NULL OR name IS NULL
                    THEN 'timestamp, metric_id, entity, instance and name must not be null'
                WHEN entity NOT IN (SELECT unnest(?::VARCHAR[]))
                    THEN 'entity must be one of Dataset, Column, Multicolumn, got ' || entity
                WHEN value IS NULL AND error IS NULL THEN 'it has neither a value nor an error'
                END AS reason
            FROM imported)
        WHERE reason IS NOT NULL LIMIT 1""",
        [list(ENTITIES)],
    )
    if bad is not None:
        raise ValueError(f"{path}: a row of metric {bad[0]!r} is invalid: {bad[1]}")

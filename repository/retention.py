"""Retention and compaction.

``delete_runs`` removes whole runs (their points, outcomes and verdicts) by time range and tags in
one transaction, then the series and groups nothing refers to any more. DuckDB marks deleted rows
and frees their blocks at the next checkpoint; freed blocks are reused by later writes, but the
file does not shrink (nor does ``VACUUM`` shrink it). ``compact`` copies the repository into a
fresh file (``COPY FROM DATABASE`` for the schema, then every table's rows) that atomically
replaces the old one, so the file holds only live data; by default the points are copied sorted
by series: appended runs interleave every series, and sorting puts each series' points into one
or two row groups, so ``history()`` reads a few row groups instead of all of them (see
``bench/repository.py``).
"""

from __future__ import annotations

import contextlib
from collections.abc import Mapping
from dataclasses import dataclass

import duckdb

from repository.connection import Connector, Cursor
from repository.filters import Where
from repository.keys import TimeLike, check_tags
from repository.results import first_row


@dataclass(frozen=True)
class DeletedRows:
    """What ``delete_runs`` removed.

    Examples
    --------
    >>> from repository import MetricRecord, MetricsRepository, ResultKey
    >>> repo = MetricsRepository(":memory:")
    >>> repo.save(ResultKey(0), [MetricRecord("Dataset", "*", "Size", "Size(*)", 1.0)])
    >>> repo.delete_runs(before=0)
    DeletedRows(runs=1, points=1, outcomes=0, verdicts=0)
    >>> repo.close()
    """

    runs: int
    points: int
    outcomes: int
    verdicts: int


def delete_runs(
    connector: Connector,
    *,
    after: TimeLike | None = None,
    before: TimeLike | None = None,
    tags: Mapping[str, str] | None = None,
) -> DeletedRows:
    """Delete the runs in ``[after, before]`` (inclusive) whose tags include ``tags``."""
    if after is None and before is None and not tags:
        raise ValueError("delete_runs needs after=, before= or tags=; refusing to delete all runs")
    where = (
        Where()
        .time_range("ts", after, before)
        .tags("run_id", None if tags is None else check_tags(tags))
    )
    with connector.transaction() as cur:
        cur.execute(
            f"CREATE TEMP TABLE doomed_runs AS SELECT run_id FROM runs WHERE {where.sql}",
            where.params,
        )
        try:
            counts = {
                table: _delete(cur, table)
                for table in (
                    "points",
                    "check_outcomes",
                    "anomaly_verdicts",
                    "schema_snapshots",
                    "run_tags",
                    "runs",
                )
            }
            if counts["runs"]:
                _delete_orphans(cur)
        finally:
            cur.execute("DROP TABLE doomed_runs")
    return DeletedRows(
        counts["runs"], counts["points"], counts["check_outcomes"], counts["anomaly_verdicts"]
    )


def _delete(cur: Cursor, table: str) -> int:
    row = first_row(cur, f"DELETE FROM {table} WHERE run_id IN (SELECT run_id FROM doomed_runs)")
    return int(row[0]) if row else 0


def _delete_orphans(cur: Cursor) -> None:
    cur.execute("DELETE FROM series WHERE series_id NOT IN (SELECT DISTINCT series_id FROM points)")
    cur.execute("""
        CREATE TEMP TABLE used_groups AS
        SELECT group_id FROM series UNION SELECT group_id FROM check_outcomes
        UNION SELECT group_id FROM anomaly_verdicts""")
    for table in ("group_values", "group_keys"):
        cur.execute(f"DELETE FROM {table} WHERE group_id NOT IN (SELECT group_id FROM used_groups)")
    cur.execute("DROP TABLE used_groups")


def compact(connector: Connector, *, recluster: bool = True) -> None:
    """Copy the repository into a fresh file that replaces it, with points sorted by series
    (``recluster``); an in-memory repository is re-sorted in place.

    DuckDB reuses the blocks that deletes free but never returns them to the file system, and
    rewriting a table in place (one transaction deleting and re-inserting it) needs new blocks
    for the new rows while the old ones are still in use: the file grew by the size of the points
    table. A copy holds only live rows. Takes seconds for 10M points; other processes wait.
    """
    if connector.in_memory:
        if recluster:
            with connector.transaction() as cur:
                cur.execute(
                    "CREATE TEMP TABLE sorted_points AS "
                    "SELECT * FROM points ORDER BY series_id, run_id"
                )
                cur.execute("DELETE FROM points")
                cur.execute("INSERT INTO points SELECT * FROM sorted_points")
                cur.execute("DROP TABLE sorted_points")
        return
    connector.rewrite(lambda cur, old, new: _copy(cur, old, new, recluster))


def _copy(cur: Cursor, old: str, new: str, recluster: bool) -> None:
    """Every table, view, sequence (with its position) and row of ``old`` into ``new``."""
    cur.execute(f"COPY FROM DATABASE {old} TO {new} (SCHEMA)")
    tables = cur.execute(
        "SELECT schema_name, table_name FROM duckdb_tables() WHERE database_name = ? ORDER BY ALL",
        [old],
    ).fetchall()
    cur.execute("BEGIN TRANSACTION")
    try:
        for schema, table in tables:
            name = f'"{schema}"."{table}"'
            # Sorted, a series' points sit in one or two row groups instead of in all of them.
            order = " ORDER BY series_id, run_id" if recluster and table == "points" else ""
            cur.execute(f"INSERT INTO {new}.{name} SELECT * FROM {old}.{name}{order}")
        cur.execute("COMMIT")
    except BaseException:
        with contextlib.suppress(duckdb.Error):
            cur.execute("ROLLBACK")
        raise

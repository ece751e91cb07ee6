"""Retention and compaction.

``delete_runs`` removes whole runs (their points, outcomes and verdicts) by time range and tags in
one transaction, then the series and groups nothing refers to any more. Neither store gives the
space of deleted rows back to the file system by itself: DuckDB reuses freed blocks but never
shrinks the file, PostgreSQL reuses the space once autovacuum has passed. ``compact`` asks the
backend to rewrite the repository with only its live rows, the points sorted by series (see
``DuckDBBackend.compact`` and ``PostgresBackend.compact``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from repository.backends.base import Backend, Cursor
from repository.filters import Where
from repository.keys import TimeLike, check_tags


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
    connector: Backend,
    *,
    after: TimeLike | None = None,
    before: TimeLike | None = None,
    tags: Mapping[str, str] | None = None,
) -> DeletedRows:
    """Delete the runs in ``[after, before]`` (inclusive) whose tags include ``tags``."""
    if after is None and before is None and not tags:
        raise ValueError("delete_runs needs after=, before= or tags=; refusing to delete all runs")
    where = (
        Where(connector.dialect)
        .time_range("ts", after, before)
        .tags("run_id", None if tags is None else check_tags(tags))
    )
    with connector.transaction() as cur:
        doomed = [
            run_id
            for (run_id,) in cur.execute(
                f"SELECT run_id FROM runs WHERE {where.sql}", where.params
            ).fetchall()
        ]
        if not doomed:
            return DeletedRows(0, 0, 0, 0)
        listed = cur.dialect.member("run_id", "BIGINT", len(doomed))
        counts = {
            table: cur.changed(f"DELETE FROM {table} WHERE {listed}", [doomed])
            for table in (
                "points",
                "check_outcomes",
                "anomaly_verdicts",
                "schema_snapshots",
                "run_tags",
                "runs",
            )
        }
        _delete_orphans(cur)
    return DeletedRows(
        counts["runs"], counts["points"], counts["check_outcomes"], counts["anomaly_verdicts"]
    )


def _delete_orphans(cur: Cursor) -> None:
    cur.execute(
        "DELETE FROM series WHERE NOT EXISTS "
        "(SELECT 1 FROM points p WHERE p.series_id = series.series_id)"
    )
    used = " UNION ".join(
        f"SELECT group_id FROM {table}"
        for table in ("series", "check_outcomes", "anomaly_verdicts")
    )
    for table in ("group_values", "group_keys"):
        cur.execute(
            f"DELETE FROM {table} WHERE NOT EXISTS (SELECT 1 FROM ({used}) u "
            f"WHERE u.group_id = {table}.group_id)"
        )


def compact(connector: Backend, *, recluster: bool = True) -> None:
    """Rewrite the repository with only its live rows, points sorted by series (``recluster``)."""
    connector.compact(recluster)

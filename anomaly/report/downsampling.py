"""Bounded ``/api/series`` answers: at most ``limit`` points, chosen in SQL so memory stays
bounded however long the history (730k points once made a 132 MB answer and 1.1 GB of memory).

Each series (dataset, scan, group) gets an equal share of the limit and is cut into time buckets
of equal point counts; a bucket keeps its first, last, lowest and highest point, and every point
judged an anomaly or an error. So a spike, a drop and every alert stay visible. Should the kept
points still exceed the limit (more alerts than the limit), alerts come first, then extremes,
then the buckets' ends; the answer is in time order either way. The same SQL runs on DuckDB and
PostgreSQL. (Only ``/api/series`` is bounded so; the page's own charts are built elsewhere.)
"""

from __future__ import annotations

from collections.abc import Sequence

from anomaly.judging.fields import PROBLEMS

KEYS = ("dataset", "scan", "group_key")
"""The columns of the points that tell series apart."""


def downsample(points_sql: str, columns: Sequence[str]) -> str:
    """SQL keeping at most ``limit`` of the points `points_sql` selects, oldest first per series.

    `points_sql` selects the `KEYS` columns, ``time``, ``run_id`` and ``name`` (the order of
    points at one time), ``value`` and ``status`` (and `columns`, which the answer has). Its
    parameters come first, then the limit twice.

    >>> downsample("SELECT 1", ["time"]).split()[:3]
    ['WITH', 'points', 'AS']
    """
    keys = ", ".join(KEYS)
    problems = ", ".join(f"'{status}'" for status in PROBLEMS)
    bucket = f"PARTITION BY {keys}, bucket"
    return f"""
        WITH points AS ({points_sql}),
        series AS (SELECT count(*) AS k FROM (SELECT DISTINCT {keys} FROM points) d),
        numbered AS (
            SELECT p.*, row_number() OVER (PARTITION BY {keys} ORDER BY time, run_id, name) AS rn,
                   count(*) OVER (PARTITION BY {keys}) AS n
            FROM points p),
        bucketed AS (
            SELECT b.*, CAST(floor(CAST(b.rn - 1 AS DOUBLE PRECISION) * greatest(
                       1, floor(CAST(? AS DOUBLE PRECISION) / (4 * s.k))) / b.n)
                   AS BIGINT) AS bucket
            FROM numbered b CROSS JOIN series s),
        ranked AS (
            SELECT r.*,
                   row_number() OVER ({bucket} ORDER BY rn) AS first_in,
                   row_number() OVER ({bucket} ORDER BY rn DESC) AS last_in,
                   row_number() OVER ({bucket} ORDER BY value NULLS LAST, rn) AS lowest_in,
                   row_number() OVER ({bucket} ORDER BY value DESC NULLS LAST, rn) AS highest_in
            FROM bucketed r),
        kept AS (
            SELECT k.*, CASE WHEN k.status IN ({problems}) THEN 0
                             WHEN k.lowest_in = 1 OR k.highest_in = 1 THEN 1
                             ELSE 2 END AS priority
            FROM ranked k
            WHERE k.status IN ({problems}) OR k.first_in = 1 OR k.last_in = 1
                  OR k.lowest_in = 1 OR k.highest_in = 1),
        chosen AS (SELECT * FROM kept ORDER BY priority, rn, {keys} LIMIT ?)
        SELECT {", ".join(columns)} FROM chosen ORDER BY {keys}, rn"""

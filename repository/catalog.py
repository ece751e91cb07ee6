"""What a repository holds: datasets, tag values, metrics and groups."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from repository.backends.base import Backend
from repository.filters import Where
from repository.frames import group_values, utc
from repository.keys import HasMetricId, check_tags, metric_id_of

if TYPE_CHECKING:  # pandas loads where a frame is built: read-only commands never need it
    import pandas as pd

METRIC_COLUMNS = (
    "metric_id",
    "entity",
    "instance",
    "name",
    "groups",
    "points",
    "failures",
    "first",
    "last",
)


def tag_values(connector: Backend, tag: str) -> list[str]:
    """The distinct values of one tag over all runs, sorted."""
    with connector.cursor() as cur:
        rows = cur.execute(
            "SELECT DISTINCT value FROM run_tags WHERE tag = ? ORDER BY value", [tag]
        ).fetchall()
    return [value for (value,) in rows]


def list_metrics(connector: Backend, tags: Mapping[str, str] | None = None) -> pd.DataFrame:
    """One row per metric (id, entity, instance, name) with its number of groups, points,
    failures and the first and last run time (UTC)."""
    where = Where(connector.dialect).tags("r.run_id", None if tags is None else check_tags(tags))
    sql = f"""
        SELECT s.metric_id, s.entity, s.instance, s.name, count(DISTINCT s.group_id) AS groups,
               count(*) FILTER (WHERE p.error IS NULL) AS points,
               count(*) FILTER (WHERE p.error IS NOT NULL) AS failures,
               min(r.ts) AS first, max(r.ts) AS last
        FROM points p JOIN runs r ON r.run_id = p.run_id JOIN series s ON s.series_id = p.series_id
        WHERE {where.sql}
        GROUP BY s.metric_id, s.entity, s.instance, s.name
        ORDER BY s.metric_id, s.entity, s.instance, s.name"""
    with connector.cursor() as cur:
        frame = cur.arrow(sql, where.params).to_pandas()
    for column in ("first", "last"):
        frame[column] = utc(frame[column])
    return frame[list(METRIC_COLUMNS)]


def list_groups(
    connector: Backend,
    metric: str | HasMetricId | None = None,
    tags: Mapping[str, str] | None = None,
) -> list[dict[str, str | None]]:
    """The distinct groups (column -> value; ``{}`` is the whole dataset) of one metric or all,
    ready to pass to ``history(group=...)`` or ``latest(groups=...)``."""
    where = Where(connector.dialect)
    if metric is not None:
        where.add("s.metric_id = ?", metric_id_of(metric))
    source = "series s"
    if tags is not None:
        # Series carry no tags: only points link them to runs.
        where.tags("r.run_id", check_tags(tags))
        source = (
            "points p JOIN runs r ON r.run_id = p.run_id JOIN series s ON s.series_id = p.series_id"
        )
    sql = (
        f"SELECT s.group_id, k.group_key FROM {source} "
        f"JOIN group_keys k ON k.group_id = s.group_id WHERE {where.sql} "
        "GROUP BY s.group_id, k.group_key ORDER BY k.group_key <> '[]', k.group_key"
    )
    with connector.cursor() as cur:
        ids = [group_id for group_id, _ in cur.execute(sql, where.params).fetchall()]
        values = group_values(cur, ids)
    return [values[group_id] for group_id in ids]

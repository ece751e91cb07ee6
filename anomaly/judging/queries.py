"""Reading one metric's series and verdicts back from the repository (CLI and plots).

Plain rows, no pandas: the read-only commands answer in a fraction of a second, and loading
pandas alone took half a second.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import Any, NamedTuple

from anomaly.config.problems import suggest
from anomaly.config.tags import SCAN_TAG
from anomaly.errors import AnomalyError
from repository import MetricsRepository
from repository.keys import canonical_key


class QueryError(AnomalyError):
    """A query names a metric that is not stored, or matches several series.

    >>> repo = MetricsRepository(":memory:")
    >>> check_metric(repo, "Size(*)")
    Traceback (most recent call last):
    ...
    anomaly.judging.queries.QueryError: no metrics stored
    """


class Point(NamedTuple):
    """A stored point of one series: its group (as `canonical_key`), time (UTC), value, and
    the kinds of the annotations covering it (``"excluded"``, ``"excluded, incident"``, or
    ``""``)."""

    group: str
    timestamp: datetime
    value: float | None
    annotations: str


def metric_points(
    repo: MetricsRepository,
    metric: str,
    tags: Mapping[str, str] | None = None,
    group: Mapping[str, str | None] | None = None,
    since: datetime | None = None,
    until: datetime | None = None,
) -> list[Point]:
    """The stored points of `metric`, by group then oldest first. Unknown metrics and points
    of several scans at one time raise `QueryError`.

    >>> from repository import MetricRecord, ResultKey
    >>> repo = MetricsRepository(":memory:")
    >>> repo.save(ResultKey(0, {"scan": "daily"}), [MetricRecord("Dataset", "*", "Size", "Size(*)", 3.0)])
    >>> metric_points(repo, "Size(*)")
    [Point(group='[]', timestamp=datetime.datetime(1970, 1, 1, 0, 0, tzinfo=datetime.timezone.utc), value=3.0, annotations='')]
    """  # noqa: E501
    query = repo.load().for_metrics([metric]).with_tags(dict(tags or {}))
    if group:
        query = query.with_group(group)
    if since is not None:
        query = query.after(since)
    if until is not None:
        query = query.before(until)
    coverage = repo.coverage(metric=metric, tags=tags or None, after=since, before=until)
    points, scans = [], set()
    for run in query.get():
        at = utc(run.key.timestamp)
        for r in run:
            marks = ", ".join(coverage.kinds(r.metric_id, r.group, at, run.key.tags))
            points.append(Point(canonical_key(r.group), at, r.value, marks))
            scans.add(run.key.tags.get(SCAN_TAG))
    if not points:
        check_metric(repo, metric, tags)
    if len({(p.group, p.timestamp) for p in points}) < len(points):
        named = sorted(s for s in scans if s is not None)
        raise QueryError(
            f"{metric} has several points per time and group, from runs with different tags "
            f"(scans: {', '.join(named) or 'none'}): choose one with --scan or --tag"
        )
    return sorted(points, key=lambda p: (p.group, p.timestamp))


VERDICT_COLUMNS = [
    "timestamp",
    "scan",
    "metric_id",
    "group",
    "value",
    "lower",
    "upper",
    "status",
    "detector",
    "history_length",
    "detail",
    "annotations",
    "run_time",
    "dataset",
    "score",
]


def verdict_rows(
    repo: MetricsRepository,
    metrics: Sequence[str] | None = None,
    tags: Mapping[str, str] | None = None,
    group: Mapping[str, str | None] | None = None,
    statuses: Sequence[str] | None = None,
    since: datetime | None = None,
    until: datetime | None = None,
) -> list[dict[str, Any]]:
    """Stored verdicts, one mapping of ``VERDICT_COLUMNS`` each (``group`` as `canonical_key`,
    ``annotations`` as in `metric_points` for the judged point, times in UTC), newest first,
    from the documented ``anomaly_results`` view. Tags and group are subset matches."""
    where: list[str] = ["true"]
    params: list[object] = []
    for column, values in (("metric_id", metrics), ("status", statuses)):
        if values:
            where.append(f"{column} IN (SELECT unnest(?))")
            params.append(list(values))
    if since is not None:
        where.append("timestamp >= ?")
        params.append(since)
    if until is not None:
        where.append("timestamp <= ?")
        params.append(until)
    sql = (
        "SELECT timestamp, tags, metric_id, group_values, value, lower, upper, status, "
        f"detector, history_length, detail, run_timestamp, dataset, score FROM anomaly_results "
        f"WHERE {' AND '.join(where)} "
        "ORDER BY timestamp DESC, metric_id"
    )
    with repo.sql() as cur:
        rows = cur.execute(sql, params).fetchall()
    wanted_tags, wanted_group = dict(tags or {}), dict(group or {})
    coverage = repo.coverage(tags=tags or None, after=since, before=until)
    kept = []
    for row in rows:
        if _subset(wanted_tags, row[1]) and _subset(wanted_group, row[3]):
            marks = ", ".join(coverage.kinds(row[2], row[3], row[0], row[1]))
            scan, key = row[1].get(SCAN_TAG), canonical_key(row[3])
            values = (utc(row[0]), scan, row[2], key, *row[4:11], marks, utc(row[11]), *row[12:])
            kept.append(dict(zip(VERDICT_COLUMNS, values, strict=True)))
    return kept


def utc(moment: datetime | None) -> Any:
    """A stored time in UTC (naive times are UTC); None stays None."""
    if moment is None:
        return None
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)


def _subset(wanted: Mapping[str, str | None], present: Mapping[str, str | None]) -> bool:
    return all(k in present and present[k] == v for k, v in wanted.items())


def check_metric(
    repo: MetricsRepository, metric: str, tags: Mapping[str, str] | None = None
) -> None:
    """Raise `QueryError` naming the stored metrics when `metric` has no point at all."""
    known = repo.metrics(dict(tags) if tags else None)  # pandas, on this error path only
    ids = sorted(known["metric_id"].unique()) if not known.empty else []
    if metric in ids:
        return
    if not ids:
        raise QueryError(f"no metrics stored{' with tags ' + str(dict(tags)) if tags else ''}")
    shown = ", ".join(ids[:15]) + (", ..." if len(ids) > 15 else "")
    raise QueryError(f"unknown metric {metric!r}{suggest(metric, ids)}; stored metrics: {shown}")

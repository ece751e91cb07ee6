"""The live UI's JSON API: query parameters checked strictly, answers as flat JSON rows.

Each endpoint reads the repository's documented views through ``MetricsRepository.sql()`` (on
DuckDB the shared-read lock and a read-only attachment, on PostgreSQL a read-only transaction),
with the store's SQL for what differs (``repo.dialect``): the same rows on both. Rows are flat
objects with an ISO ``time``, which charting tools take as they are (Grafana's Infinity data
source: URL, JSON, no root selector). A bad parameter is an `ApiError` (HTTP 400) whose message
names it, its value and what is allowed (a value that is not plain digits where a number is
wanted, or that holds a NUL character, which PostgreSQL cannot store, too). ``/api/series``
answers at most ``limit`` points, downsampled in SQL (``downsampling``) when there are more,
with the counts in the ``X-Total-Points`` and ``X-Returned-Points`` headers.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from anomaly.config.periods import parse_time
from anomaly.errors import ConfigurationError
from anomaly.judging.fields import PROBLEMS, iso_time
from anomaly.report.downsampling import downsample
from anomaly.report.encoding import number, plain
from anomaly.report.snapshot import annotation_row
from repository import ANNOTATION_KINDS, MetricsRepository
from repository.backends.dialects import Dialect
from repository.results import Cursor, fetch_arrow, first_row

MAX_LIMIT = 10_000
DEFAULT_LIMIT = 500
SERIES_LIMIT = 5_000
"""The points ``/api/series`` answers by default (``limit`` takes up to `MAX_LIMIT`)."""


class Rows(list[dict[str, Any]]):
    """An endpoint's rows, with response headers that describe them (counts)."""

    def __init__(self, rows: list[dict[str, Any]], headers: Mapping[str, str] | None = None):
        super().__init__(rows)
        self.headers = dict(headers or {})


class ApiError(ValueError):
    """A request the API refuses (HTTP 400), with a message for the caller.

    >>> Params({"limit": ["0"]}, {"limit"}).limit()
    Traceback (most recent call last):
    anomaly.report.api.ApiError: limit must be an integer from 1 to 10000, got '0'
    """


class Params:
    """The query parameters of one request, each checked when read.

    Parameters
    ----------
    values
        Parameter name -> every value given for it.
    allowed
        The names this endpoint takes; any other name is refused.
    """

    def __init__(self, values: Mapping[str, Sequence[str]], allowed: set[str]) -> None:
        for name, given in values.items():
            if "\x00" in name or any("\x00" in value for value in given):
                raise ApiError(
                    f"parameter {name.replace(chr(0), '')!r} holds a NUL character (\\x00): "
                    "values must be text without it"
                )
        unknown = sorted(set(values) - allowed)
        if unknown:
            raise ApiError(
                f"unknown parameter {unknown[0]!r}; this endpoint takes: "
                f"{', '.join(sorted(allowed)) or 'no parameters'}"
            )
        self.values = values

    def one(self, name: str, required: bool = False) -> str | None:
        """A parameter given at most once (and not empty)."""
        given = self.values.get(name, [])
        if len(given) > 1:
            raise ApiError(f"{name} may be given once, got {len(given)} values")
        if not given:
            if required:
                raise ApiError(f"{name} is required")
            return None
        if not given[0]:
            raise ApiError(f"{name} must not be empty")
        return given[0]

    def many(self, name: str, allowed: Sequence[str] | None = None) -> list[str]:
        """A repeatable parameter (``status=anomaly&status=error``, or comma-separated)."""
        found = [v.strip() for given in self.values.get(name, []) for v in given.split(",")]
        for value in found:
            if allowed is not None and value not in allowed:
                raise ApiError(f"{name} must be one of {', '.join(allowed)}; got {value!r}")
            if not value:
                raise ApiError(f"{name} must not be empty")
        return found

    def time(self, name: str) -> datetime | None:
        """An ISO time (UTC unless it has an offset), ``now``, ``today`` or ``yesterday``."""
        text = self.one(name)
        if text is None:
            return None
        try:
            return parse_time(text)
        except ConfigurationError as error:
            raise ApiError(f"{name}: {error}") from None

    def group(self) -> dict[str, str]:
        """``group=COLUMN=VALUE`` (repeatable): the series' group must have these values."""
        found = {}
        for item in self.values.get("group", []):
            column, sep, value = item.partition("=")
            if not sep or not column:
                raise ApiError(f"group takes COLUMN=VALUE, got {item!r}")
            found[column] = value
        return found

    def limit(self, default: int = DEFAULT_LIMIT) -> int:
        """``limit``: 1 to ``MAX_LIMIT`` rows (default `default`), in ASCII digits (``²`` or
        ``٣`` are digits to Python, not numbers to ``int``)."""
        text = self.one("limit")
        if text is None:
            return default
        if not (text.isascii() and text.isdigit()) or not 1 <= int(text) <= MAX_LIMIT:
            raise ApiError(f"limit must be an integer from 1 to {MAX_LIMIT}, got {text!r}")
        return int(text)

    def window(self) -> tuple[datetime | None, datetime | None]:
        """``since`` and ``until`` (inclusive); ``since`` after ``until`` is refused."""
        since, until = self.time("since"), self.time("until")
        if since is not None and until is not None and since > until:
            raise ApiError(f"since ({since.isoformat()}) is after until ({until.isoformat()})")
        return since, until


_SCAN = "'scan'"
"""The scan tag's name, as a SQL literal."""


class _Where:
    """AND-ed SQL conditions over one documented view, every value a bound parameter."""

    def __init__(self, dialect: Dialect) -> None:
        self.d = dialect
        self.clauses: list[str] = ["TRUE"]
        self.params: list[Any] = []

    def add(self, clause: str, *params: Any) -> None:
        self.clauses.append(clause)
        self.params.extend(params)

    def among(self, column: str, values: list[str]) -> None:
        """``column`` is one of ``values``."""
        self.add(self.d.member(column, "VARCHAR", len(values)), values)

    def common(self, alias: str, params: Params) -> None:
        """``dataset``, ``scan``, ``since`` and ``until``, which every endpoint takes."""
        dataset, scan = params.one("dataset"), params.one("scan")
        if dataset is not None:
            self.add(f"{alias}.dataset = ?", dataset)
        if scan is not None:
            self.add(f"{self.d.map_value(f'{alias}.tags', _SCAN)} = ?", scan)
        since, until = params.window()
        if since is not None:
            self.add(f"{alias}.timestamp >= ?", since)
        if until is not None:
            self.add(f"{alias}.timestamp <= ?", until)

    @property
    def sql(self) -> str:
        return " AND ".join(self.clauses)


SERIES_PARAMS = {"metric", "dataset", "scan", "group", "since", "until", "limit"}
_SERIES_COLUMNS = [
    "time", "dataset", "scan", "metric", '"group"', "value", "lower", "upper", "status", "detector"
]  # fmt: skip


def series_rows(repo: MetricsRepository, params: Params) -> Rows:
    """Points of one metric (every matching dataset, scan and group), oldest first, with the
    band and status of the (worst) verdict on each point: at most ``limit`` points
    (`SERIES_LIMIT` by default), downsampled when there are more (``downsampling``)."""
    d = repo.dialect
    where = _Where(d)
    where.add("h.metric_id = ?", params.one("metric", required=True))
    where.common("h", params)
    for column, value in params.group().items():
        where.add(f"{d.map_value('h.group_values', '?')} = ?", column, value)
    # The worst verdict per point, the detector's name breaking ties (the same on both stores);
    # a filter on row_number() rather than DuckDB's QUALIFY, which PostgreSQL lacks.
    sql = f"""
        WITH judged AS (
            SELECT run_id, metric_id, group_key, timestamp, lower, upper, status, detector
            FROM (
                SELECT run_id, metric_id, group_key, timestamp, lower, upper, status, detector,
                       row_number() OVER (
                           PARTITION BY run_id, metric_id, group_key, timestamp
                           ORDER BY CASE status WHEN 'anomaly' THEN 0 WHEN 'error' THEN 1
                                    ELSE 2 END, detector) AS worst
                FROM anomaly_results) ranked
            WHERE worst = 1)
        SELECT h.timestamp AS time, h.dataset, {d.map_value("h.tags", _SCAN)} AS scan,
               h.metric_id AS metric, h.group_values AS "group", h.value, v.lower, v.upper,
               v.status, v.detector, h.group_key, h.run_id, h.name
        FROM metric_history h LEFT JOIN judged v ON v.run_id = h.run_id
             AND v.metric_id = h.metric_id AND v.group_key = h.group_key
             AND v.timestamp = h.timestamp
        WHERE {where.sql}"""
    limit = params.limit(SERIES_LIMIT)
    columns = ", ".join(_SERIES_COLUMNS)
    with repo.sql() as cur:
        found = first_row(cur, f"SELECT count(*) FROM ({sql}) p", where.params)
        total = int(found[0]) if found else 0
        if total <= limit:
            ordered = f"""SELECT {columns} FROM ({sql}) p
                          ORDER BY dataset, scan, group_key, time, run_id, name"""
            rows = _fetch(cur, ordered, where.params)
        else:
            rows = _fetch(cur, downsample(sql, _SERIES_COLUMNS), [*where.params, limit, limit])
    headers = {"X-Total-Points": str(total), "X-Returned-Points": str(len(rows))}
    return Rows(rows, headers)


ANOMALY_PARAMS = {"metric", "dataset", "scan", "status", "since", "until", "limit"}


def anomaly_rows(repo: MetricsRepository, params: Params) -> list[dict[str, Any]]:
    """Verdicts, newest first: anomalies and failed metrics unless ``status`` says otherwise
    (``status=all`` for every verdict; statuses are free text, ``VERDICT_STATUSES`` the usual)."""
    statuses = params.many("status") or list(PROBLEMS)
    d = repo.dialect
    where = _Where(d)
    if "all" not in statuses:
        where.among("v.status", statuses)
    metrics = params.many("metric")
    if metrics:
        where.among("v.metric_id", metrics)
    where.common("v", params)
    sql = f"""
        SELECT v.timestamp AS time, v.run_timestamp AS run_time, v.dataset,
               {d.map_value("v.tags", _SCAN)} AS scan, v.metric_id AS metric,
               v.group_values AS "group", v.value, v.lower, v.upper, v.status, v.detector,
               v.score, v.detail, v.history_length AS history
        FROM anomaly_results v WHERE {where.sql}
        ORDER BY v.timestamp DESC, v.run_id DESC, v.metric_id, v.group_key, v.detector
        LIMIT ?"""
    return _rows(repo, sql, [*where.params, params.limit()])


OUTCOME_PARAMS = {"dataset", "scan", "check", "status", "since", "until", "limit"}


def outcome_rows(repo: MetricsRepository, params: Params) -> list[dict[str, Any]]:
    """Check outcomes, newest first (``check`` and ``status`` repeatable)."""
    d = repo.dialect
    where = _Where(d)
    for name, column in (("check", "c.check_name"), ("status", "c.status")):
        values = params.many(name)
        if values:
            where.among(column, values)
    where.common("c", params)
    sql = f"""
        SELECT c.timestamp AS time, c.dataset, {d.map_value("c.tags", _SCAN)} AS scan,
               c.check_name AS "check", c.constraint_name AS "constraint", c.level, c.status,
               c.message, c.metric_id AS metric, c.value, c.lower, c.upper,
               c.group_values AS "group"
        FROM check_results c WHERE {where.sql}
        ORDER BY c.timestamp DESC, c.run_id DESC, c.check_name, c.constraint_name, c.group_key
        LIMIT ?"""
    return _rows(repo, sql, [*where.params, params.limit()])


ANNOTATION_PARAMS = {"kind", "metric", "since", "until"}


def annotation_rows(repo: MetricsRepository, params: Params) -> list[dict[str, Any]]:
    """Annotations overlapping ``[since, until]`` of the given kinds and metric (or all)."""
    kinds = params.many("kind", ANNOTATION_KINDS) or None
    since, until = params.window()
    found = repo.annotations(kinds=kinds, metric=params.one("metric"), after=since, before=until)
    rows = []
    for annotation in found:
        row = annotation_row(annotation)
        row["start"], row["end"] = iso_time(annotation.start), iso_time(annotation.end)
        row["group"] = None if annotation.group is None else dict(annotation.group)
        rows.append(row)
    return rows


def _rows(repo: MetricsRepository, sql: str, params: list[Any]) -> list[dict[str, Any]]:
    """The query's rows with ISO times, groups as objects and numbers rounded."""
    with repo.sql() as cur:
        return _fetch(cur, sql, params)


def _fetch(cur: Cursor, sql: str, params: list[Any]) -> list[dict[str, Any]]:
    rows = fetch_arrow(cur, sql, params).to_pylist()
    return [
        {
            key: iso_time(value)
            if isinstance(value, datetime)
            else _group(value)
            if key == "group"
            else number(value)
            if isinstance(value, float)
            else plain(value)
            for key, value in row.items()
        }
        for row in rows
    ]


def _group(values: Any) -> dict[str, Any]:
    if values is None:
        return {}
    if isinstance(values, Mapping):
        return dict(values)
    return {k: v for k, v in values}  # Arrow returns a MAP as (key, value) pairs

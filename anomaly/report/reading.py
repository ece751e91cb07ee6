"""What the report reads: the repository's documented SQL views, as Arrow tables, in one read.

Every query goes through ``MetricsRepository.sql()``: a DuckDB file is attached read-only under
the repository's shared lock, a PostgreSQL repository read in one read-only transaction, so a
report never writes and never sees half of a run. What differs between the two stores' SQL
comes from ``repo.dialect``. Tag filters and every user value are bound parameters.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import pyarrow as pa

from repository import Annotation, MetricsRepository
from repository.backends.dialects import Dialect
from repository.results import Cursor, fetch_arrow, first_row

KNOWN_SCAN_LOG_COLUMNS = (
    "scan_id", "scan", "started_at", "ended_at", "status", "error",
    "host", "pid", "process_start",  # the process of an execution (schema version 6)
)  # fmt: skip
KNOWN_VERDICT_COLUMNS = (
    "run_id", "run_timestamp", "timestamp", "dataset", "tags", "metric_id", "group_key",
    "group_values", "value", "lower", "upper", "detector", "score", "detail", "status",
    "history_length",
)  # fmt: skip
"""Columns of the ``anomaly_results`` view the report knows; any other column (alert budgets,
p-values, ...) is shown as it is."""
OUTCOME_LIMIT = 5000
"""The newest check outcomes a report shows (the total is reported beside them)."""


@dataclass(frozen=True)
class RepositoryContents:
    """One consistent read of everything a report shows (Arrow tables with epoch-millisecond
    times; no pandas, so ``anomaly report`` starts fast).

    Examples
    --------
    >>> repo = MetricsRepository(":memory:")
    >>> contents = read_contents(repo)
    >>> contents.points.num_rows, contents.verdicts.num_rows, contents.annotations
    (0, 0, [])
    """

    points: pa.Table
    verdicts: pa.Table
    outcomes: pa.Table
    outcome_total: int
    scan_log: pa.Table
    runs: pa.Table
    annotations: list[Annotation]


def read_contents(
    repo: MetricsRepository,
    tags: Mapping[str, str] | None = None,
    outcome_limit: int = OUTCOME_LIMIT,
) -> RepositoryContents:
    """Points, verdicts, newest outcomes, scan log, runs and annotations, read in one go so the
    parts agree: a DuckDB file stays attached (a concurrent writer waits); on PostgreSQL the
    queries share one snapshot. The annotations are read first, by the repository, in a read of
    their own: never inside the other one. (A read nested in a read deadlocks with a writer of
    the same process: the writer waits for the outer read to end, the inner read for the
    writer; ``serve --ui`` hung so within a second.)"""
    wanted = dict(tags or {})
    d = repo.dialect
    annotations = repo.annotations(tags=wanted or None)
    with repo.sql() as cur:
        flags = "h.incident, h.expected, h.excluded" if annotations else _NO_FLAGS
        source = "annotated_history" if annotations else "metric_history"
        where, params = _tag_filter(d, "h.tags", wanted)
        points = fetch_arrow(
            cur,
            f"""SELECT coalesce(h.dataset, '') AS dataset, {_scan(d, "h")},
                       h.metric_id, h.name, h.group_key, {d.epoch_ms("h.timestamp")} AS ts,
                       h.value, {flags}
                FROM {source} h WHERE {where}""",
            params,
        )
        where, params = _tag_filter(d, "v.tags", wanted)
        others = d.star(
            "v",
            _columns(cur, "anomaly_results"),
            exclude=("dataset", "tags", "timestamp", "run_timestamp", "group_values"),
        )
        # Ties broken down to the detector: rows come in the same order on both stores.
        verdicts = fetch_arrow(
            cur,
            f"""SELECT coalesce(v.dataset, '') AS dataset, {_scan(d, "v")},
                       {d.epoch_ms("v.timestamp")} AS ts, {d.epoch_ms("v.run_timestamp")} AS run_ts,
                       {others}
                FROM anomaly_results v WHERE {where}
                ORDER BY v.timestamp, v.run_id, v.metric_id, v.group_key, v.detector""",
            params,
        )
        where, params = _tag_filter(d, "c.tags", wanted)
        total = first_row(cur, f"SELECT count(*) FROM check_results c WHERE {where}", params)
        outcome_total = int(total[0]) if total else 0
        outcomes = fetch_arrow(
            cur,
            f"""SELECT coalesce(c.dataset, '') AS dataset, {_scan(d, "c")},
                       {d.epoch_ms("c.timestamp")} AS ts, c.check_name, c.constraint_name, c.level,
                       c.status, c.message, c.metric_id, c.value, c.lower, c.upper, c.group_key
                FROM check_results c WHERE {where}
                ORDER BY c.timestamp DESC, c.run_id DESC, c.check_name, c.constraint_name,
                         c.group_key
                LIMIT ?""",
            [*params, int(outcome_limit)],
        )
        times = {column: d.epoch_ms(column) for column in ("started_at", "ended_at")}
        scan_log = fetch_arrow(
            cur,
            f"SELECT {d.star('', _columns(cur, 'scan_log'), replace=times)}"
            " FROM scan_log ORDER BY started_at DESC, scan_id DESC",
            [],
        )
        where, params = _tag_filter(d, "r.tags", wanted)
        runs = fetch_arrow(
            cur,
            f"""SELECT coalesce(r.dataset, '') AS dataset, {_scan(d, "r")},
                       {d.epoch_ms("r.timestamp")} AS ts, {d.epoch_ms("r.saved_at")} AS saved_at
                FROM run_overview r WHERE {where}""",
            params,
        )
    return RepositoryContents(
        points, verdicts, outcomes, outcome_total, scan_log, runs, annotations
    )


_NO_FLAGS = "false AS incident, false AS expected, false AS excluded"


def _scan(d: Dialect, alias: str) -> str:
    """The ``scan`` tag of the rows of ``alias`` (``''`` when absent)."""
    tag = d.map_value(f"{alias}.tags", "'scan'")
    return f"coalesce({tag}, '') AS scan"


def _tag_filter(d: Dialect, column: str, tags: Mapping[str, str]) -> tuple[str, list[Any]]:
    """A condition on the tags ``column`` (the runs having all of ``tags``) and its parameters.

    >>> from repository.backends.dialects import DUCKDB
    >>> _tag_filter(DUCKDB, "r.tags", {"scan": "daily"})
    ('TRUE AND r.tags[?] = ?', ['scan', 'daily'])
    """
    clauses, params = ["TRUE"], []
    for name, value in tags.items():
        clauses.append(f"{d.map_value(column, '?')} = ?")
        params += [name, value]
    return " AND ".join(clauses), params


def _columns(cur: Cursor, relation: str) -> list[str]:
    """The columns of a view or table, in order (``Dialect.star`` lists them on PostgreSQL)."""
    return list(fetch_arrow(cur, f"SELECT * FROM {relation} LIMIT 0").column_names)


def columns_of(table: pa.Table) -> dict[str, list[Any]]:
    """The columns of `table` as Python lists, valued as a pandas frame of it gave them: an
    integer column holding a null is a float one (so the snapshot reads as it always did).

    >>> columns_of(pa.table({"n": [1, None], "m": [1, 2]}))
    {'n': [1.0, None], 'm': [1, 2]}
    """
    found = {}
    for name, column in zip(table.column_names, table.columns, strict=True):
        if pa.types.is_integer(column.type) and column.null_count:
            column = column.cast(pa.float64())
        found[name] = column.to_pylist()
    return found


def records_of(table: pa.Table) -> list[dict[str, Any]]:
    """The rows of `table` as dicts of `columns_of` values, in order."""
    columns = columns_of(table)
    return [
        dict(zip(columns, values, strict=True)) for values in zip(*columns.values(), strict=True)
    ]

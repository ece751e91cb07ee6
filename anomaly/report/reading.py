"""What the report reads: the repository's documented SQL views, as frames, in one read.

Every query goes through ``MetricsRepository.sql()``: the file is attached read-only under the
repository's shared lock (``repository/connection.py``), so a report never writes and never
sees half of a run. Tag filters and every user value are bound parameters.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import pandas as pd

from repository import Annotation, MetricsRepository
from repository.results import Cursor, fetch_arrow, first_row

KNOWN_SCAN_LOG_COLUMNS = ("scan_id", "scan", "started_at", "ended_at", "status", "error")
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
    """One consistent read of everything a report shows (frames with epoch-millisecond times).

    Examples
    --------
    >>> repo = MetricsRepository(":memory:")
    >>> contents = read_contents(repo)
    >>> contents.points.empty, contents.verdicts.empty, contents.annotations
    (True, True, [])
    """

    points: pd.DataFrame
    verdicts: pd.DataFrame
    outcomes: pd.DataFrame
    outcome_total: int
    scan_log: pd.DataFrame
    runs: pd.DataFrame
    annotations: list[Annotation]


def read_contents(
    repo: MetricsRepository,
    tags: Mapping[str, str] | None = None,
    outcome_limit: int = OUTCOME_LIMIT,
) -> RepositoryContents:
    """Points, verdicts, newest outcomes, scan log, runs and annotations, read while the file
    stays attached (so a concurrent writer waits and the parts agree)."""
    wanted = dict(tags or {})
    where, params = _tag_filter(wanted)
    with repo.sql() as cur:
        annotations = repo.annotations(tags=wanted or None)
        flags = "h.incident, h.expected, h.excluded" if annotations else _NO_FLAGS
        source = "annotated_history" if annotations else "metric_history"
        points = _frame(
            cur,
            f"""SELECT coalesce(h.dataset, '') AS dataset, coalesce(h.tags['scan'], '') AS scan,
                       h.metric_id, h.name, h.group_key, epoch_ms(h.timestamp) AS ts, h.value,
                       {flags}
                FROM {source} h WHERE {where.format(t="h.tags")}""",
            params,
        )
        verdicts = _frame(
            cur,
            f"""SELECT coalesce(v.dataset, '') AS dataset, coalesce(v.tags['scan'], '') AS scan,
                       epoch_ms(v.timestamp) AS ts, epoch_ms(v.run_timestamp) AS run_ts,
                       v.* EXCLUDE (dataset, tags, timestamp, run_timestamp, group_values)
                FROM anomaly_results v WHERE {where.format(t="v.tags")}
                ORDER BY v.timestamp, v.run_id""",
            params,
        )
        outcome_where = f"WHERE {where.format(t='c.tags')}"
        total = first_row(cur, f"SELECT count(*) FROM check_results c {outcome_where}", params)
        outcome_total = int(total[0]) if total else 0
        outcomes = _frame(
            cur,
            f"""SELECT coalesce(c.dataset, '') AS dataset, coalesce(c.tags['scan'], '') AS scan,
                       epoch_ms(c.timestamp) AS ts, c.check_name, c.constraint_name, c.level,
                       c.status, c.message, c.metric_id, c.value, c.lower, c.upper, c.group_key
                FROM check_results c {outcome_where}
                ORDER BY c.timestamp DESC, c.run_id DESC LIMIT ?""",
            [*params, int(outcome_limit)],
        )
        scan_log = _frame(
            cur,
            "SELECT * REPLACE (epoch_ms(started_at) AS started_at, epoch_ms(ended_at) AS ended_at)"
            " FROM scan_log ORDER BY started_at DESC, scan_id DESC",
            [],
        )
        runs = _frame(
            cur,
            f"""SELECT coalesce(r.dataset, '') AS dataset, coalesce(r.tags['scan'], '') AS scan,
                       epoch_ms(r.timestamp) AS ts, epoch_ms(r.saved_at) AS saved_at
                FROM run_overview r WHERE {where.format(t="r.tags")}""",
            params,
        )
    return RepositoryContents(
        points, verdicts, outcomes, outcome_total, scan_log, runs, annotations
    )


_NO_FLAGS = "false AS incident, false AS expected, false AS excluded"


def _tag_filter(tags: Mapping[str, str]) -> tuple[str, list[Any]]:
    """A condition template (``{t}`` is the tags column) and its parameters."""
    clauses, params = ["TRUE"], []
    for name, value in tags.items():
        clauses.append("{t}[?] = ?")
        params += [name, value]
    return " AND ".join(clauses), params


def _frame(cur: Cursor, sql: str, params: list[Any]) -> pd.DataFrame:
    return fetch_arrow(cur, sql, params).to_pandas()

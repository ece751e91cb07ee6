"""Check and constraint outcomes of a run: stored with the run, queried like metrics.

Re-saving a run's outcomes replaces that run's earlier outcomes of the same checks (all their
constraints and groups); other checks of the run are kept. SQL view: ``check_results``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import pyarrow as pa

from repository.backends.base import Backend, Cursor
from repository.dimensions import (
    GroupKeys,
    optional_float,
    replace_run_rows,
    rows_to_table,
)
from repository.filters import Where
from repository.frames import to_frame
from repository.keys import ResultKey, TimeLike, check_fields, check_tags

if TYPE_CHECKING:  # pandas loads where a frame is built: read-only commands never need it
    import pandas as pd

OUTCOME_COLUMNS = (
    "timestamp",
    "check",
    "constraint",
    "level",
    "status",
    "message",
    "metric_id",
    "value",
    "lower",
    "upper",
    "group_key",
)
"""The fixed columns of ``load_outcomes()``; group then tag columns follow. ``group_key`` is the
canonical JSON of the group, which tells a null group value from an absent group column."""


_STAGED = pa.schema(
    [
        ("check_name", pa.string()),
        ("constraint_name", pa.string()),
        ("level", pa.string()),
        ("status", pa.string()),
        ("message", pa.string()),
        ("metric_id", pa.string()),
        ("value", pa.float64()),
        ("lower", pa.float64()),
        ("upper", pa.float64()),
        ("group_key", pa.string()),
    ]
)
"""The columns of staged outcomes, in the order of ``stage_outcomes``' rows."""


@dataclass(frozen=True)
class CheckOutcome:
    """The outcome of one constraint of one check, for one group, in one run.

    ``level`` is the check's level (e.g. ``Warning``/``Error``), ``status`` the constraint's
    (e.g. ``Success``/``Failure``); ``lower``/``upper`` are the bounds the value was held to.

    Examples
    --------
    >>> CheckOutcome("orders", "is_complete(id)", "Success", level="Error", value=1.0).status
    'Success'
    """

    check: str
    constraint: str
    status: str
    level: str | None = None
    message: str | None = None
    metric_id: str | None = None
    value: float | None = None
    lower: float | None = None
    upper: float | None = None
    group: Mapping[str, str | None] = field(default_factory=dict)

    def __post_init__(self) -> None:
        check_fields(self, ("check", "constraint", "status"), ("value", "lower", "upper"))


def stage_outcomes(outcomes: Iterable[CheckOutcome], groups: GroupKeys) -> pa.Table:
    """Outcomes as Arrow columns (group keys registered in ``groups``)."""
    rows = []
    for outcome in outcomes:
        if not isinstance(outcome, CheckOutcome):
            raise TypeError(f"outcomes must be CheckOutcome, got {type(outcome).__name__}")
        rows.append(
            (
                outcome.check,
                outcome.constraint,
                outcome.level,
                outcome.status,
                outcome.message,
                outcome.metric_id,
                optional_float(outcome.value),
                optional_float(outcome.lower),
                optional_float(outcome.upper),
                groups.key(outcome.group),
            )
        )
    return rows_to_table(_STAGED.names, _STAGED.types, rows)


def write_outcomes(cur: Cursor, key: ResultKey, staged: pa.Table, groups: GroupKeys) -> None:
    """Insert staged outcomes for ``key``'s run, replacing its earlier outcomes of those checks."""
    replace_run_rows(
        cur,
        key,
        groups,
        {"staged_outcomes": staged},
        "DELETE FROM check_outcomes WHERE run_id = ? AND check_name IN "
        "(SELECT DISTINCT check_name FROM staged_outcomes)",
        "INSERT INTO check_outcomes SELECT ?, o.check_name, o.constraint_name, o.level, "
        "o.status, o.message, o.metric_id, o.value, o.lower, o.upper, k.group_id "
        "FROM staged_outcomes o JOIN group_keys k USING (group_key)",
    )


def load_outcomes(
    connector: Backend,
    *,
    tags: Mapping[str, str] | None = None,
    checks: Sequence[str] | None = None,
    statuses: Sequence[str] | None = None,
    after: TimeLike | None = None,
    before: TimeLike | None = None,
) -> pd.DataFrame:
    """Stored outcomes, oldest run first: ``OUTCOME_COLUMNS``, group columns, tag columns."""
    checked = None if tags is None else check_tags(tags)
    where = (
        Where(connector.dialect)
        .tags("r.run_id", checked)
        .within("o.check_name", checks)
        .within("o.status", statuses)
        .time_range("r.ts", after, before)
    )
    sql = f"""
        SELECT {connector.dialect.epoch_ms("r.ts")} AS ts_ms, o.run_id, o.group_id,
               o.check_name AS "check", o.constraint_name AS "constraint", o.level, o.status,
               o.message, o.metric_id, o.value, o.lower, o.upper, k.group_key
        FROM check_outcomes o JOIN runs r ON r.run_id = o.run_id
        JOIN group_keys k ON k.group_id = o.group_id
        WHERE {where.sql}
        ORDER BY r.ts, r.run_id, o.check_name, o.constraint_name, k.group_key"""
    with connector.cursor() as cur:
        table = cur.arrow(sql, where.params)
        return to_frame(cur, table, OUTCOME_COLUMNS, tag_columns=checked or ())

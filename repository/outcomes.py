"""Check and constraint outcomes of a run: stored with the run, queried like metrics.

Re-saving a run's outcomes replaces that run's earlier outcomes of the same checks (all their
constraints and groups); other checks of the run are kept. SQL view: ``check_results``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from operator import attrgetter
from typing import TYPE_CHECKING

import pyarrow as pa

from repository.backends.base import Backend, Cursor
from repository.dimensions import GroupKeys, replace_run_rows
from repository.filters import Where
from repository.keys import ResultKey, TimeLike, check_fields, check_tags
from repository.run_rows import read_run_rows, stage_rows

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
"""The fixed columns of ``load_outcomes()``; group then tag columns follow (``group_key`` as in
``query.POINT_COLUMNS``)."""


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
    return stage_rows(
        outcomes,
        CheckOutcome,
        "outcomes",
        [
            ("check_name", pa.string(), attrgetter("check")),
            ("constraint_name", pa.string(), attrgetter("constraint")),
            ("level", pa.string(), attrgetter("level")),
            ("status", pa.string(), attrgetter("status")),
            ("message", pa.string(), attrgetter("message")),
            ("metric_id", pa.string(), attrgetter("metric_id")),
            ("value", pa.float64(), attrgetter("value")),
            ("lower", pa.float64(), attrgetter("lower")),
            ("upper", pa.float64(), attrgetter("upper")),
            ("group_key", pa.string(), lambda o: groups.key(o.group)),
        ],
    )


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
    return read_run_rows(
        connector,
        "check_outcomes o",
        f"""{connector.dialect.epoch_ms("r.ts")} AS ts_ms, o.run_id, o.group_id,
               o.check_name AS "check", o.constraint_name AS "constraint", o.level, o.status,
               o.message, o.metric_id, o.value, o.lower, o.upper, k.group_key""",
        where,
        "r.ts, r.run_id, o.check_name, o.constraint_name, k.group_key",
        OUTCOME_COLUMNS,
        tag_columns=checked or (),
    )

"""Query results as pandas: timestamps in UTC, one column per group column and one per tag.

Rows come from SQL with a ``ts_ms`` column and, where relevant, ``group_id`` and ``run_id``; the
group and tag columns are looked up for the distinct ids only and mapped onto the rows, so
neither pivoting nor a column name ever goes through SQL text.

Column names: a group column whose name is already a result column is renamed ``group.<name>``;
a tag whose name is a result or group column is renamed ``tag.<name>``. A row with no value for a
group column (a different grouping, or the whole dataset) shows ``None``, as does a null group
value: ``get()`` keeps the difference.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Final

import pyarrow as pa

from repository.backends.base import Cursor

if TYPE_CHECKING:  # pandas loads where a frame is built: read-only commands never need it
    import pandas as pd

TIMESTAMP_DTYPE: Final = "datetime64[ns, UTC]"


def timestamps(millis: Iterable[int] | pd.Series) -> pd.DatetimeIndex:
    """UTC timestamps of epoch milliseconds."""
    import pandas as pd

    values = pd.to_datetime(pd.Series(millis, dtype="int64"), unit="ms", utc=True)
    return pd.DatetimeIndex(values.astype(TIMESTAMP_DTYPE))


def utc(column: pd.Series) -> pd.Series:
    """A column of timestamps (or nulls) as UTC ``datetime64[ns, UTC]``."""
    import pandas as pd

    return pd.to_datetime(column, utc=True).astype(TIMESTAMP_DTYPE)


def group_values(cur: Cursor, group_ids: Iterable[int]) -> dict[int, dict[str, str | None]]:
    """Column values of each group id (an empty dict for the whole dataset)."""
    ids = sorted({int(i) for i in group_ids})
    groups: dict[int, dict[str, str | None]] = {i: {} for i in ids}
    rows = cur.execute(
        "SELECT group_id, column_name, value FROM group_values "
        f"WHERE {cur.dialect.member('group_id', 'BIGINT', len(ids))} "
        "ORDER BY group_id, column_name",
        [ids],
    ).fetchall()
    for group_id, column, value in rows:
        groups[group_id][column] = value
    return groups


def run_tags(cur: Cursor, run_ids: Iterable[int]) -> dict[int, dict[str, str]]:
    """Tags of each run id."""
    ids = sorted({int(i) for i in run_ids})
    tags: dict[int, dict[str, str]] = {i: {} for i in ids}
    rows = cur.execute(
        "SELECT run_id, tag, value FROM run_tags "
        f"WHERE {cur.dialect.member('run_id', 'BIGINT', len(ids))} ORDER BY run_id, tag",
        [ids],
    ).fetchall()
    for run_id, tag, value in rows:
        tags[run_id][tag] = value
    return tags


def to_frame(
    cur: Cursor,
    table: pa.Table,
    columns: Sequence[str],
    *,
    group_columns: Iterable[str] = (),
    tag_columns: Iterable[str] = (),
) -> pd.DataFrame:
    """``columns`` of ``table`` (``timestamp`` built from ``ts_ms``) plus group and tag columns.

    ``group_columns``/``tag_columns`` are always present (the ones a query filtered on), so an
    empty result still has them.
    """
    import pandas as pd

    raw = table.to_pandas()
    frame = pd.DataFrame(index=raw.index)
    for column in columns:
        if column == "timestamp":
            frame[column] = pd.Series(timestamps(raw["ts_ms"]), index=raw.index)
        elif column in raw:
            frame[column] = raw[column]
        else:
            frame[column] = pd.Series(dtype=object, index=raw.index)
    taken = set(columns)
    if "group_id" in raw:
        groups = group_values(cur, raw["group_id"])
        _add_mapped(frame, raw["group_id"], groups, group_columns, taken, "group.")
    if "run_id" in raw:
        tags = run_tags(cur, raw["run_id"])
        _add_mapped(frame, raw["run_id"], tags, tag_columns, taken, "tag.")
    return frame


def _add_mapped(
    frame: pd.DataFrame,
    ids: pd.Series,
    values: Mapping[int, Mapping[str, str | None]],
    required: Iterable[str],
    taken: set[str],
    prefix: str,
) -> None:
    import pandas as pd

    names = sorted({name for mapping in values.values() for name in mapping} | set(required))
    for name in names:
        lookup = {i: mapping.get(name) for i, mapping in values.items()}
        column = f"{prefix}{name}" if name in taken else name
        taken.add(column)
        frame[column] = ids.map(lookup).astype(object) if len(ids) else pd.Series(dtype=object)

"""A run's rows of records (check outcomes, anomaly verdicts): staged as Arrow columns from the
records, and read back joined with their run and group.

Each record type lists its staged columns once, as ``(column, Arrow type, reader)``; reading
one shape of query for both keeps their ordering and frames alike.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any

import pyarrow as pa

from repository.backends.base import Backend
from repository.dimensions import optional_float, rows_to_table
from repository.filters import Where
from repository.frames import to_frame

if TYPE_CHECKING:  # pandas loads where a frame is built: read-only commands never need it
    import pandas as pd

StagedColumn = tuple[str, pa.DataType, Callable[[Any], Any]]
"""A staged column: its name, its Arrow type and how to read its value from a record (float
columns hold ``optional_float`` of what the reader gives)."""


def stage_rows(
    records: Iterable[object], record_type: type, plural: str, columns: Sequence[StagedColumn]
) -> pa.Table:
    """``records``, each a ``record_type``, as an Arrow table of ``columns``.

    Examples
    --------
    >>> stage_rows([-3, 4], int, "numbers", [("x", pa.float64(), abs)]).column("x").to_pylist()
    [3.0, 4.0]
    >>> stage_rows(["3"], int, "numbers", [("x", pa.float64(), abs)])
    Traceback (most recent call last):
    TypeError: numbers must be int, got str
    """
    readers = [_as_float(read) if pa.types.is_floating(kind) else read for _, kind, read in columns]
    rows = []
    for record in records:
        if not isinstance(record, record_type):
            got = type(record).__name__
            raise TypeError(f"{plural} must be {record_type.__name__}, got {got}")
        rows.append(tuple(read(record) for read in readers))
    return rows_to_table([c[0] for c in columns], [c[1] for c in columns], rows)


def _as_float(read: Callable[[Any], Any]) -> Callable[[Any], float | None]:
    return lambda record: optional_float(read(record))


def read_run_rows(
    connector: Backend,
    table: str,
    select: str,
    where: Where,
    order: str,
    columns: Sequence[str],
    *,
    group_columns: Iterable[str] = (),
    tag_columns: Iterable[str] = (),
) -> pd.DataFrame:
    """The rows of ``table`` (``"check_outcomes o"``: name and alias) that match ``where``, with
    their run as ``r`` and group key as ``k``, in ``order``, as a frame of ``columns`` (see
    ``frames.to_frame``)."""
    alias = table.split()[-1]
    sql = f"""
        SELECT {select}
        FROM {table} JOIN runs r ON r.run_id = {alias}.run_id
        JOIN group_keys k ON k.group_id = {alias}.group_id
        WHERE {where.sql}
        ORDER BY {order}"""
    with connector.cursor() as cur:
        found = cur.arrow(sql, where.params)
        return to_frame(cur, found, columns, group_columns=group_columns, tag_columns=tag_columns)

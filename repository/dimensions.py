"""Runs and groups: the dimensions every stored row refers to, created on first use.

Both are looked up by their canonical key (``ResultKey.tags_key`` plus the timestamp, and
``canonical_key(group)``) inside the caller's write transaction; the caller holds the write lock,
so two writers never create the same run or group twice.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import pyarrow as pa

from repository.backends.base import Cursor
from repository.keys import ResultKey, canonical_key, check_group

UTC_MS = pa.timestamp("ms", tz="UTC")


class GroupKeys:
    """Canonical keys of groups, computed once per distinct group."""

    def __init__(self) -> None:
        self.groups: dict[str, Mapping[str, str | None]] = {}
        self._seen: dict[tuple[tuple[str, str | None], ...], str] = {}

    def key(self, group: Mapping[str, str | None]) -> str:
        """The canonical key of ``group``, checking it the first time it is seen."""
        try:
            items = tuple(sorted(group.items()))
            return self._seen[items]
        except KeyError:
            pass
        except (AttributeError, TypeError):
            check_group(group)  # raises the explanatory error
            raise
        checked = check_group(group)
        key = self._seen[items] = canonical_key(checked)
        self.groups[key] = checked
        return key


def optional_float(value: float | None) -> float | None:
    """``value`` as a float, keeping ``None``."""
    return None if value is None else float(value)


def rows_to_table(
    names: Sequence[str], types: Sequence[pa.DataType], rows: Sequence[tuple[object, ...]]
) -> pa.Table:
    """An Arrow table of ``rows`` with these column names and types."""
    columns = list(zip(*rows, strict=True)) if rows else [()] * len(names)
    return pa.table({n: pa.array(c, t) for n, c, t in zip(names, columns, types, strict=True)})


def replace_run_rows(
    cur: Cursor, key: ResultKey, groups: GroupKeys, staged: dict[str, pa.Table], *statements: str
) -> None:
    """Write a run's staged rows (``{name: table}``, e.g. outcomes or verdicts) with
    ``statements``, each taking the run id as its one parameter: first a ``DELETE`` of the rows
    they replace, then the ``INSERT``. Nothing is written, and no run created, for no rows."""
    if all(table.num_rows == 0 for table in staged.values()):
        return
    [(run_id, _)] = ensure_runs(cur, [key])
    ensure_groups(cur, groups.groups)
    with cur.staged(**staged):
        for statement in statements:
            cur.execute(statement, [run_id])


def ensure_runs(cur: Cursor, keys: Sequence[ResultKey]) -> list[tuple[int, bool]]:
    """``(run_id, existed)`` of each of the distinct ``keys``, creating the missing runs."""
    # Lists travel as bound parameters: cheaper than registering an Arrow table for a few rows.
    # Inserting first saves the lookup in the common case of a new run.
    d = cur.dialect
    rows = cur.execute(
        "INSERT INTO runs (run_id, ts, tags_key, dataset) "
        f"SELECT nextval('run_id_seq'), {d.timestamp_of_ms('k.millis')}, k.tags_key, k.dataset "
        "FROM (SELECT unnest(?::BIGINT[]) AS millis, unnest(?::VARCHAR[]) AS tags_key, "
        "unnest(?::VARCHAR[]) AS dataset) k WHERE NOT EXISTS (SELECT 1 FROM runs r "
        f"WHERE r.ts = {d.timestamp_of_ms('k.millis')} AND r.tags_key = k.tags_key) "
        f"RETURNING {d.epoch_ms('ts')}, tags_key, run_id",
        [[k.epoch_ms for k in keys], [k.tags_key for k in keys], [k.dataset for k in keys]],
    ).fetchall()
    created = {(millis, tags_key): run_id for millis, tags_key, run_id in rows}
    tags = [
        (created[(k.epoch_ms, k.tags_key)], t, v)
        for k in keys
        if (k.epoch_ms, k.tags_key) in created
        for t, v in k.tags.items()
    ]
    _insert_triples(cur, "run_tags", tags)
    found: dict[tuple[int, str], int] = {}
    if len(created) < len(keys):
        rows = cur.execute(
            f"SELECT {d.epoch_ms('ts')}, tags_key, run_id FROM runs "
            "WHERE tags_key IN (SELECT unnest(?::VARCHAR[])) "
            f"AND ts IN (SELECT {d.timestamp_of_ms('m.millis')} "
            "FROM (SELECT unnest(?::BIGINT[]) AS millis) m)",
            [[k.tags_key for k in keys], [k.epoch_ms for k in keys]],
        ).fetchall()
        found = {(millis, tags_key): run_id for millis, tags_key, run_id in rows}
    return [
        (created[ident], False) if ident in created else (found[ident], True)
        for ident in ((k.epoch_ms, k.tags_key) for k in keys)
    ]


def ensure_groups(cur: Cursor, groups: Mapping[str, Mapping[str, str | None]]) -> None:
    """Create the groups (canonical key -> column values) not stored yet."""
    if not groups:
        return
    created = cur.execute(
        "INSERT INTO group_keys SELECT nextval('group_id_seq'), group_key "
        "FROM (SELECT unnest(?::VARCHAR[]) AS group_key) n WHERE NOT EXISTS "
        "(SELECT 1 FROM group_keys k WHERE k.group_key = n.group_key) "
        "RETURNING group_id, group_key",
        [list(groups)],
    ).fetchall()
    values = [(gid, column, value) for gid, key in created for column, value in groups[key].items()]
    _insert_triples(cur, "group_values", values)


def _insert_triples(cur: Cursor, table: str, rows: Sequence[tuple[int, str, str | None]]) -> None:
    if rows:
        ids, names, values = (list(column) for column in zip(*rows, strict=True))
        cur.execute(
            f"INSERT INTO {table} SELECT unnest(?::BIGINT[]), unnest(?::VARCHAR[]), "
            "unnest(?::VARCHAR[])",
            [ids, names, values],
        )

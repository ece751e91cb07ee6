"""Schema snapshots: a source's columns (names, types, nullability, order) at each run.

A snapshot is a JSON object, by convention Spark's ``StructType.jsonValue()``; the repository
stores it as text beside the run it belongs to, so schema-change monitors can compare a run
with the one before. Saving a run's snapshot again replaces it. SQL view: ``schema_history``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from repository.backends.base import Backend
from repository.dimensions import ensure_runs
from repository.filters import Where
from repository.frames import run_tags
from repository.keys import ResultKey, TimeLike, check_tags, from_epoch_ms


@dataclass(frozen=True)
class StoredSchema:
    """One stored snapshot: the run's time and tags, and the schema JSON object.

    Examples
    --------
    >>> from datetime import UTC
    >>> stored = StoredSchema(datetime(2026, 3, 1, tzinfo=UTC), {"dataset": "orders"},
    ...                       {"type": "struct", "fields": []})
    >>> stored.columns
    0
    """

    timestamp: datetime
    tags: Mapping[str, str]
    schema: Mapping[str, Any] = field(default_factory=dict)

    @property
    def columns(self) -> int:
        """The number of top-level columns (``fields`` of the struct)."""
        return len(self.schema.get("fields", ()))


def save_schema(connector: Backend, key: ResultKey, schema: Mapping[str, Any]) -> None:
    """Store `schema` (a JSON object with a ``fields`` list) as the snapshot of `key`'s run."""
    if not isinstance(key, ResultKey):
        raise TypeError(f"key must be a ResultKey, got {type(key).__name__}")
    fields = schema.get("fields") if isinstance(schema, Mapping) else None
    if not isinstance(fields, list):
        raise ValueError(
            "schema must be a JSON object with a 'fields' list (Spark's "
            f"StructType.jsonValue()), got {type(schema).__name__}"
        )
    try:
        text = json.dumps(schema, sort_keys=True, separators=(",", ":"))
    except (TypeError, ValueError) as error:
        raise ValueError(f"schema must be JSON-serialisable: {error}") from None
    with connector.transaction() as cur:
        [(run_id, _)] = ensure_runs(cur, [key])
        cur.execute("DELETE FROM schema_snapshots WHERE run_id = ?", [run_id])
        cur.execute(
            "INSERT INTO schema_snapshots (run_id, schema_json, column_count) VALUES (?, ?, ?)",
            [run_id, text, len(fields)],
        )


def load_schemas(
    connector: Backend,
    *,
    tags: Mapping[str, str] | None = None,
    after: TimeLike | None = None,
    before: TimeLike | None = None,
    last: int | None = None,
) -> list[StoredSchema]:
    """Snapshots of runs whose tags include `tags`, within ``[after, before]`` (inclusive),
    oldest first; only the `last` newest of them when given."""
    if last is not None and (not isinstance(last, int) or last < 1):
        raise ValueError(f"last must be a positive int, got {last!r}")
    checked = None if tags is None else check_tags(tags)
    where = Where(connector.dialect).tags("r.run_id", checked).time_range("r.ts", after, before)
    limit = "" if last is None else f" LIMIT {int(last)}"
    sql = (
        f"SELECT r.run_id, {connector.dialect.epoch_ms('r.ts')}, s.schema_json "
        "FROM schema_snapshots s "
        f"JOIN runs r USING (run_id) WHERE {where.sql} ORDER BY r.ts DESC, r.run_id DESC{limit}"
    )
    with connector.cursor() as cur:
        rows = cur.execute(sql, where.params).fetchall()
        tag_map = run_tags(cur, [row[0] for row in rows])
    return [
        StoredSchema(from_epoch_ms(int(millis)), tag_map[run_id], json.loads(text))
        for run_id, millis, text in reversed(rows)
    ]

"""The current schema: the SQL views users query directly, and the version check run on open.

Tables (version 5) are defined in ``migrations.py``; the views here are the documented, stable way
to read a repository file with plain DuckDB (``duckdb metrics.duckdb``), e.g.::

    SELECT timestamp, value FROM metric_history
    WHERE metric_id = 'Size(*)' AND tags['dataset'] = 'orders' ORDER BY timestamp;

``tags`` and ``group_values`` are ``MAP(VARCHAR, VARCHAR)``; ``group_key`` is the canonical JSON of
the group (``[]`` for the whole dataset). Views are dropped before and recreated after every
migration, so migration steps never have to care about them.
"""

from __future__ import annotations

import duckdb

from repository.annotations import ANNOTATION_KINDS, covered_by
from repository.errors import MigrationError, NotARepositoryError, SchemaVersionError
from repository.migrations import LATEST_VERSION, MIGRATIONS
from repository.results import Cursor, first_row


def _annotated_history() -> str:
    flags = [
        covered_by(
            kind, run_id="h.run_id", ts="h.timestamp", metric_id="h.metric_id",
            group_key="h.group_key",
        ) + f" AS {kind}"
        for kind in ANNOTATION_KINDS
    ]  # fmt: skip
    return f"SELECT h.*, {', '.join(flags)} FROM metric_history h"


VIEWS: dict[str, str] = {
    "run_overview": """
        SELECT r.run_id, r.ts AS timestamp, r.dataset,
               coalesce(t.tags, MAP()::MAP(VARCHAR, VARCHAR)) AS tags, r.tags_key, r.saved_at
        FROM runs r LEFT JOIN (
            SELECT run_id, map(list(tag ORDER BY tag), list(value ORDER BY tag)) AS tags
            FROM run_tags GROUP BY run_id) t USING (run_id)""",
    "group_overview": """
        SELECT k.group_id, k.group_key,
               coalesce(v.group_values, MAP()::MAP(VARCHAR, VARCHAR)) AS group_values
        FROM group_keys k LEFT JOIN (
            SELECT group_id,
                   map(list(column_name ORDER BY column_name),
                       list(value ORDER BY column_name)) AS group_values
            FROM group_values GROUP BY group_id) v USING (group_id)""",
    "metric_points": """
        SELECT r.run_id, r.timestamp, r.dataset, r.tags, s.metric_id, s.entity, s.instance,
               s.name, g.group_key, g.group_values, p.value, p.error,
               p.error IS NULL AS succeeded
        FROM points p JOIN run_overview r USING (run_id) JOIN series s USING (series_id)
        JOIN group_overview g ON g.group_id = s.group_id""",
    "metric_history": "SELECT * EXCLUDE (error, succeeded) FROM metric_points WHERE succeeded",
    "metric_failures": "SELECT * EXCLUDE (succeeded) FROM metric_points WHERE NOT succeeded",
    "latest_metric_values": """
        SELECT * FROM metric_history
        QUALIFY row_number() OVER (
            PARTITION BY dataset, metric_id, entity, instance, name, group_key
            ORDER BY timestamp DESC, run_id DESC) = 1""",
    "check_results": """
        SELECT r.run_id, r.timestamp, r.dataset, r.tags, c.check_name, c.constraint_name,
               c.level, c.status, c.message, c.metric_id, c.value, c.lower, c.upper,
               g.group_key, g.group_values
        FROM check_outcomes c JOIN run_overview r USING (run_id)
        JOIN group_overview g ON g.group_id = c.group_id""",
    "anomaly_results": """
        SELECT r.run_id, r.timestamp AS run_timestamp, v.ts AS timestamp, r.dataset, r.tags,
               v.metric_id, g.group_key, g.group_values, v.value, v.lower, v.upper,
               v.detector, v.score, v.detail, v.status, v.history_length, v.p_value
        FROM anomaly_verdicts v JOIN run_overview r USING (run_id)
        JOIN group_overview g ON g.group_id = v.group_id""",
    "metric_annotations": """
        SELECT a.annotation_id, a.kind, a.start_ts AS start, a.end_ts AS "end", a.metric_id,
               a.group_key,
               CASE WHEN a.group_key IS NOT NULL
                    THEN coalesce(g.group_values, MAP()::MAP(VARCHAR, VARCHAR)) END AS group_values,
               coalesce(t.tags, MAP()::MAP(VARCHAR, VARCHAR)) AS tags, a.note, a.created_at
        FROM annotations a
        LEFT JOIN (
            SELECT annotation_id, map(list(tag ORDER BY tag), list(value ORDER BY tag)) AS tags
            FROM annotation_tags GROUP BY annotation_id) t USING (annotation_id)
        LEFT JOIN (
            SELECT annotation_id,
                   map(list(column_name ORDER BY column_name),
                       list(value ORDER BY column_name)) AS group_values
            FROM annotation_groups GROUP BY annotation_id) g USING (annotation_id)""",
    "annotated_history": _annotated_history(),
    "schema_history": """
        SELECT r.run_id, r.timestamp, r.dataset, r.tags, s.column_count, s.schema_json,
               s.saved_at
        FROM schema_snapshots s JOIN run_overview r USING (run_id)""",
    "analyzer_state_index": """
        SELECT dataset, partition, metric_id, kind, format_version,
               octet_length(payload) AS payload_bytes, updated_at
        FROM analyzer_states""",
}


def schema_version(cur: Cursor) -> int:
    """The file's schema version: 0 for an empty database.

    Raises
    ------
    NotARepositoryError
        The database has tables but no ``schema_version``: it belongs to something else.
    """
    try:
        row = first_row(cur, "SELECT max(version) FROM schema_version")
    except duckdb.CatalogException:
        tables = [
            name
            for (name,) in cur.execute(
                "SELECT table_name FROM duckdb_tables() WHERE database_name = current_database() "
                "ORDER BY table_name LIMIT 5"
            ).fetchall()
        ]
        if tables:
            raise NotARepositoryError(
                f"the DuckDB database has tables ({', '.join(tables)}) but no schema_version "
                "table: it is not a metrics repository"
            ) from None
        return 0
    if row is None or row[0] is None:
        raise NotARepositoryError("the schema_version table is empty: not a metrics repository")
    return int(row[0])


def ensure_schema(cur: Cursor) -> int:
    """Check the file's version and migrate it forward; returns the version found before."""
    found = schema_version(cur)
    if found > LATEST_VERSION:
        raise SchemaVersionError(
            f"the repository has schema version {found}, but this package reads versions up to "
            f"{LATEST_VERSION}: it was written by a newer release; upgrade the package"
        )
    if found < LATEST_VERSION:
        _migrate(cur, found)
    return found


def open_schema(cur: Cursor, writable: bool) -> bool:
    """Check a freshly opened file: migrate it forward if ``writable``; False if it needs that
    but was opened read-only (the connector then reopens it read-write)."""
    if writable:
        ensure_schema(cur)
        return True
    found = schema_version(cur)
    if found > LATEST_VERSION:
        ensure_schema(cur)  # raises the SchemaVersionError
    return found == LATEST_VERSION


def _migrate(cur: Cursor, found: int) -> None:
    cur.execute("BEGIN TRANSACTION")
    try:
        for view in VIEWS:
            cur.execute(f"DROP VIEW IF EXISTS {view}")
        for step in MIGRATIONS[found:]:
            step.apply(cur)
            cur.execute(
                "INSERT INTO schema_version (version, description) VALUES (?, ?)",
                [step.version, step.description],
            )
        for view, body in VIEWS.items():
            cur.execute(f"CREATE VIEW {view} AS {body}")
        cur.execute("COMMIT")
    except Exception as exc:
        cur.execute("ROLLBACK")
        raise MigrationError(
            f"migrating the repository from schema version {found} to {LATEST_VERSION} failed "
            f"and was rolled back: {exc}"
        ) from exc

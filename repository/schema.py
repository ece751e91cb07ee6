"""The current schema: the SQL views users query directly, and the version check run on open.

Tables (version 5) are defined in ``migrations.py``; the views here are the documented, stable way
to read a repository with plain SQL, e.g. with DuckDB (``duckdb metrics.duckdb``)::

    SELECT timestamp, value FROM metric_history
    WHERE metric_id = 'Size(*)' AND tags['dataset'] = 'orders' ORDER BY timestamp;

``tags`` and ``group_values`` are ``MAP(VARCHAR, VARCHAR)`` in DuckDB and ``jsonb`` objects in
PostgreSQL (there: ``tags ->> 'dataset'``); ``group_key`` is the canonical JSON of the group
(``[]`` for the whole dataset). Views are dropped before and recreated after every migration, so
migration steps never have to care about them.
"""

from __future__ import annotations

from repository.annotations import ANNOTATION_KINDS, covered_by
from repository.backends.base import Cursor
from repository.backends.dialects import Dialect
from repository.errors import MigrationError, NotARepositoryError, SchemaVersionError
from repository.migrations import LATEST_VERSION, MIGRATIONS

_POINT_COLUMNS = (
    "run_id, timestamp, dataset, tags, metric_id, entity, instance, name, group_key, "
    "group_values, value"
)


def view_definitions(d: Dialect) -> dict[str, str]:
    """The body of every view, in the dialect of one store."""
    flags = [
        covered_by(
            kind,
            run_id="h.run_id",
            ts="h.timestamp",
            metric_id="h.metric_id",
            group_key="h.group_key",
        )
        + f" AS {kind}"
        for kind in ANNOTATION_KINDS
    ]
    return {
        "run_overview": f"""
            SELECT r.run_id, r.ts AS timestamp, r.dataset, coalesce(t.tags, {d.empty_map}) AS tags,
                   r.tags_key, r.saved_at
            FROM runs r LEFT JOIN (
                SELECT run_id, {d.map_of("tag", "value")} AS tags
                FROM run_tags GROUP BY run_id) t USING (run_id)""",
        "group_overview": f"""
            SELECT k.group_id, k.group_key,
                   coalesce(v.group_values, {d.empty_map}) AS group_values
            FROM group_keys k LEFT JOIN (
                SELECT group_id, {d.map_of("column_name", "value")} AS group_values
                FROM group_values GROUP BY group_id) v USING (group_id)""",
        "metric_points": """
            SELECT r.run_id, r.timestamp, r.dataset, r.tags, s.metric_id, s.entity, s.instance,
                   s.name, g.group_key, g.group_values, p.value, p.error,
                   p.error IS NULL AS succeeded
            FROM points p JOIN run_overview r USING (run_id) JOIN series s USING (series_id)
            JOIN group_overview g ON g.group_id = s.group_id""",
        "metric_history": f"SELECT {_POINT_COLUMNS} FROM metric_points WHERE succeeded",
        "metric_failures": f"SELECT {_POINT_COLUMNS}, error FROM metric_points WHERE NOT succeeded",
        "latest_metric_values": f"""
            SELECT {_POINT_COLUMNS} FROM (
                SELECT *, row_number() OVER (
                    PARTITION BY dataset, metric_id, entity, instance, name, group_key
                    ORDER BY timestamp DESC, run_id DESC) AS newest
                FROM metric_history) h
            WHERE newest = 1""",
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
        "metric_annotations": f"""
            SELECT a.annotation_id, a.kind, a.start_ts AS start, a.end_ts AS "end", a.metric_id,
                   a.group_key,
                   CASE WHEN a.group_key IS NOT NULL
                        THEN coalesce(g.group_values, {d.empty_map}) END AS group_values,
                   coalesce(t.tags, {d.empty_map}) AS tags, a.note, a.created_at
            FROM annotations a
            LEFT JOIN (
                SELECT annotation_id, {d.map_of("tag", "value")} AS tags
                FROM annotation_tags GROUP BY annotation_id) t USING (annotation_id)
            LEFT JOIN (
                SELECT annotation_id, {d.map_of("column_name", "value")} AS group_values
                FROM annotation_groups GROUP BY annotation_id) g USING (annotation_id)""",
        "annotated_history": f"SELECT h.*, {', '.join(flags)} FROM metric_history h",
        "schema_history": """
            SELECT r.run_id, r.timestamp, r.dataset, r.tags, s.column_count, s.schema_json,
                   s.saved_at
            FROM schema_snapshots s JOIN run_overview r USING (run_id)""",
        "analyzer_state_index": """
            SELECT dataset, partition, metric_id, kind, format_version,
                   octet_length(payload) AS payload_bytes, updated_at
            FROM analyzer_states""",
    }


VIEWS = tuple(view_definitions(Dialect()))
"""The names of the documented views."""


def schema_version(cur: Cursor) -> int:
    """The repository's schema version: 0 for an empty database.

    Raises
    ------
    NotARepositoryError
        The database has tables but no ``schema_version``: it belongs to something else.
    """
    tables = cur.table_names()
    if "schema_version" not in tables:
        if tables:
            raise NotARepositoryError(
                f"the {cur.dialect.store} has tables ({', '.join(tables[:5])}) but no "
                "schema_version table: it is not a metrics repository"
            )
        return 0
    row = cur.first("SELECT max(version) FROM schema_version")
    if row is None or row[0] is None:
        raise NotARepositoryError("the schema_version table is empty: not a metrics repository")
    return int(row[0])


def ensure_schema(cur: Cursor) -> int:
    """Check the repository's version and migrate it forward, in one transaction holding the
    write lock (two processes opening a new database never both create it); returns the
    version found before."""
    with cur.atomic():
        found = _not_newer(schema_version(cur))
        if found < LATEST_VERSION:
            _migrate(cur, found)
    return found


def open_schema(cur: Cursor, writable: bool) -> bool:
    """Check a freshly opened repository: migrate it forward if ``writable``; False if it needs
    that but was opened read-only (the backend then opens it again, writable)."""
    if writable:
        ensure_schema(cur)
        return True
    return _not_newer(schema_version(cur)) == LATEST_VERSION


def _not_newer(found: int) -> int:
    if found > LATEST_VERSION:
        raise SchemaVersionError(
            f"the repository has schema version {found}, but this package reads versions up to "
            f"{LATEST_VERSION}: it was written by a newer release; upgrade the package"
        )
    return found


def _migrate(cur: Cursor, found: int) -> None:
    """Run the pending steps inside the caller's transaction (rolled back by it on error)."""
    views = view_definitions(cur.dialect)
    try:
        for view in reversed(views):  # dependent views first
            cur.execute(f"DROP VIEW IF EXISTS {view}")
        for step in MIGRATIONS[found:]:
            step.apply(cur)
            cur.execute(
                "INSERT INTO schema_version (version, description) VALUES (?, ?)",
                [step.version, step.description],
            )
        for statement in cur.dialect.tuning:
            cur.execute(statement)
        for view, body in views.items():
            cur.execute(f"CREATE VIEW {view} AS {body}")
    except Exception as exc:
        raise MigrationError(
            f"migrating the repository from schema version {found} to {LATEST_VERSION} failed "
            f"and was rolled back: {exc}"
        ) from exc

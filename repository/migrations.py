"""Forward migrations: the schema's history, one frozen step per version.

A step upgrades a file from ``version - 1`` to ``version`` and is never edited once released: a
file written by any earlier release must still upgrade. A new file runs every step from version 0,
so the upgrade path is exercised on each fresh repository, not only on old files. All pending steps
and the recording of the new version run in one transaction: a failed or interrupted upgrade leaves
the file at its old version.

A new table is a new step appended to ``MIGRATIONS``, as version 3 (annotations) was; views are
not part of any step (see ``schema.py``), so steps may change tables freely. One step serves every
backend: write its ``CREATE`` statements with DuckDB's types (``VARCHAR``, ``BIGINT``,
``INTEGER``, ``DOUBLE``, ``BOOLEAN``, ``BLOB``, ``TIMESTAMPTZ``) and portable SQL, and
``ddl_step`` has each store's dialect translate them (``backends/dialects.py``); indexes a
server store needs go to ``PostgresDialect.tuning``. E.g.::

    V5_TABLES = "CREATE TABLE schema_snapshots (run_id BIGINT NOT NULL, ...);"
    Migration(5, "schema snapshots per run", ddl_step(V5_TABLES))
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import pyarrow as pa

from repository.backends.base import Cursor
from repository.keys import DATASET_TAG, canonical_key

# Version 1, the first release: one wide table as a direct port of Deequ's JSON file.
V1_TABLES = """
CREATE TABLE schema_version (
    version INTEGER NOT NULL,
    description VARCHAR NOT NULL,
    applied_at TIMESTAMPTZ NOT NULL DEFAULT current_timestamp
);
CREATE TABLE metric_results (
    dataset_date BIGINT NOT NULL,  -- epoch milliseconds, Deequ's dataSetDate
    tags_json VARCHAR NOT NULL,    -- JSON object of the run's tags
    entity VARCHAR NOT NULL,
    instance VARCHAR NOT NULL,
    name VARCHAR NOT NULL,
    metric_id VARCHAR NOT NULL,
    group_json VARCHAR NOT NULL,   -- JSON object of the group values
    value DOUBLE,
    error VARCHAR
);
"""

# Version 2: runs, groups and series are dimensions; a point is four narrow columns, which keeps
# 10M points small and scans of one series cheap. Adds outcomes, verdicts, states and the scan log.
V2_TABLES = """
CREATE SEQUENCE run_id_seq START 1;
CREATE TABLE runs (
    run_id BIGINT PRIMARY KEY,
    ts TIMESTAMPTZ NOT NULL,
    tags_key VARCHAR NOT NULL,
    dataset VARCHAR,
    saved_at TIMESTAMPTZ NOT NULL DEFAULT current_timestamp,
    UNIQUE (ts, tags_key)
);
CREATE TABLE run_tags (
    run_id BIGINT NOT NULL,
    tag VARCHAR NOT NULL,
    value VARCHAR NOT NULL,
    PRIMARY KEY (run_id, tag)
);
CREATE SEQUENCE group_id_seq START 1;
CREATE TABLE group_keys (group_id BIGINT PRIMARY KEY, group_key VARCHAR NOT NULL UNIQUE);
CREATE TABLE group_values (
    group_id BIGINT NOT NULL,
    column_name VARCHAR NOT NULL,
    value VARCHAR,
    PRIMARY KEY (group_id, column_name)
);
CREATE SEQUENCE series_id_seq START 1;
CREATE TABLE series (
    series_id BIGINT PRIMARY KEY,
    metric_id VARCHAR NOT NULL,
    entity VARCHAR NOT NULL,
    instance VARCHAR NOT NULL,
    name VARCHAR NOT NULL,
    group_id BIGINT NOT NULL
);
CREATE TABLE points (
    run_id BIGINT NOT NULL,
    series_id BIGINT NOT NULL,
    value DOUBLE,
    error VARCHAR
);
CREATE TABLE check_outcomes (
    run_id BIGINT NOT NULL,
    check_name VARCHAR NOT NULL,
    constraint_name VARCHAR NOT NULL,
    level VARCHAR,
    status VARCHAR NOT NULL,
    message VARCHAR,
    metric_id VARCHAR,
    value DOUBLE,
    lower DOUBLE,
    upper DOUBLE,
    group_id BIGINT NOT NULL
);
CREATE TABLE anomaly_verdicts (
    run_id BIGINT NOT NULL,
    metric_id VARCHAR NOT NULL,
    group_id BIGINT NOT NULL,
    ts TIMESTAMPTZ NOT NULL,
    value DOUBLE,
    lower DOUBLE,
    upper DOUBLE,
    detector VARCHAR NOT NULL,
    score DOUBLE,
    detail VARCHAR,
    status VARCHAR NOT NULL,
    history_length INTEGER
);
CREATE TABLE analyzer_states (
    dataset VARCHAR NOT NULL,
    partition VARCHAR NOT NULL,
    metric_id VARCHAR NOT NULL,
    kind VARCHAR NOT NULL,
    format_version INTEGER NOT NULL,
    payload BLOB NOT NULL,
    updated_at TIMESTAMPTZ NOT NULL DEFAULT current_timestamp,
    PRIMARY KEY (dataset, partition, metric_id)
);
CREATE SEQUENCE scan_id_seq START 1;
CREATE TABLE scan_log (
    scan_id BIGINT PRIMARY KEY,
    scan VARCHAR NOT NULL,
    started_at TIMESTAMPTZ NOT NULL,
    ended_at TIMESTAMPTZ,
    status VARCHAR NOT NULL,
    error VARCHAR
);
"""


@dataclass(frozen=True)
class Migration:
    """One step: ``apply`` turns a file at ``version - 1`` into one at ``version``."""

    version: int
    description: str
    apply: Callable[[Cursor], None]


def ddl_step(ddl: str) -> Callable[[Cursor], None]:
    """A step running DDL (``CREATE``, ``ALTER``; DuckDB's type names) in each store's dialect."""

    def apply(cur: Cursor) -> None:
        cur.execute(cur.dialect.ddl(ddl))

    return apply


def _upgrade_to_v2(cur: Cursor) -> None:
    ddl_step(V2_TABLES)(cur)
    # Only a DuckDB file can hold version 1 rows (PostgreSQL repositories start at version 3).
    if cur.first("SELECT 1 FROM metric_results LIMIT 1") is not None:
        _convert_v1_rows(cur)
    cur.execute("DROP TABLE metric_results")


def _convert_v1_rows(cur: Cursor) -> None:
    # Canonical keys are computed in Python (as on save) for the few distinct JSON texts only.
    tag_rows: list[tuple[str | None, ...]] = []
    tag_pairs: list[tuple[str | None, ...]] = []
    for (tags_json,) in cur.execute("SELECT DISTINCT tags_json FROM metric_results").fetchall():
        tags = {str(k): str(v) for k, v in json.loads(tags_json).items()}
        tags_key = canonical_key(tags)
        tag_rows.append((tags_json, tags_key, tags.get(DATASET_TAG)))
        tag_pairs.extend((tags_key, name, value) for name, value in tags.items())
    group_rows: list[tuple[str | None, ...]] = []
    group_pairs: list[tuple[str | None, ...]] = []
    for (group_json,) in cur.execute("SELECT DISTINCT group_json FROM metric_results").fetchall():
        group = {str(k): None if v is None else str(v) for k, v in json.loads(group_json).items()}
        group_key = canonical_key(group)
        group_rows.append((group_json, group_key))
        group_pairs.extend((group_key, column, value) for column, value in group.items())
    staged = {
        "v1_tags": _table(["tags_json", "tags_key", "dataset"], tag_rows),
        "v1_tag_pairs": _table(["tags_key", "tag", "value"], sorted(set(tag_pairs))),
        "v1_groups": _table(["group_json", "group_key"], group_rows),
        "v1_group_pairs": _table(["group_key", "column_name", "value"], sorted(set(group_pairs))),
    }
    with cur.staged(**staged):
        cur.execute(_V1_TO_V2_DATA)


def _table(names: list[str], rows: Sequence[tuple[str | None, ...]]) -> pa.Table:
    columns = list(zip(*rows, strict=True)) if rows else [() for _ in names]
    return pa.table({n: pa.array(c, pa.string()) for n, c in zip(names, columns, strict=True)})


# DuckDB SQL: only a DuckDB file can hold version 1 rows.
_V1_TO_V2_DATA = """
CREATE TEMP TABLE v1_rows AS
SELECT m.rowid AS row_number, make_timestamptz(m.dataset_date * 1000) AS ts, t.tags_key,
       t.dataset, m.entity, m.instance, m.name, m.metric_id, g.group_key, m.value, m.error
FROM metric_results m JOIN v1_tags t USING (tags_json) JOIN v1_groups g USING (group_json);

INSERT INTO runs (run_id, ts, tags_key, dataset)
SELECT nextval('run_id_seq'), ts, tags_key, dataset
FROM (SELECT DISTINCT ts, tags_key, dataset FROM v1_rows ORDER BY ts, tags_key);

INSERT INTO run_tags
SELECT r.run_id, p.tag, p.value FROM runs r JOIN v1_tag_pairs p USING (tags_key);

INSERT INTO group_keys
SELECT nextval('group_id_seq'), group_key
FROM (SELECT DISTINCT group_key FROM v1_rows ORDER BY group_key);

INSERT INTO group_values
SELECT k.group_id, p.column_name, p.value FROM group_keys k JOIN v1_group_pairs p USING (group_key);

INSERT INTO series
SELECT nextval('series_id_seq'), metric_id, entity, instance, name, group_id
FROM (SELECT DISTINCT v.metric_id, v.entity, v.instance, v.name, k.group_id
      FROM v1_rows v JOIN group_keys k USING (group_key)
      ORDER BY ALL);

-- Version 1 appended re-runs instead of replacing them: the last written point wins.
INSERT INTO points
SELECT r.run_id, s.series_id, v.value, v.error
FROM v1_rows v
JOIN runs r USING (ts, tags_key)
JOIN group_keys k USING (group_key)
JOIN series s ON s.metric_id = v.metric_id AND s.entity = v.entity
    AND s.instance = v.instance AND s.name = v.name AND s.group_id = k.group_id
QUALIFY row_number() OVER (PARTITION BY r.run_id, s.series_id ORDER BY v.row_number DESC) = 1
ORDER BY r.run_id, s.series_id;

DROP TABLE v1_rows;
"""

# Version 3: annotations of metric points or time ranges (incident, expected, excluded), scoped to
# a metric (NULL: every metric), a group (NULL: every group; '[]': the whole dataset) and tags (a
# subset of the run's tags; none: every run). Group values and tags are rows of their own, as for
# runs and groups, so every value stays a bound parameter.
V3_TABLES = """
CREATE SEQUENCE annotation_id_seq START 1;
CREATE TABLE annotations (
    annotation_id BIGINT PRIMARY KEY,
    kind VARCHAR NOT NULL CHECK (kind IN ('incident', 'expected', 'excluded')),
    start_ts TIMESTAMPTZ NOT NULL,
    end_ts TIMESTAMPTZ NOT NULL,
    metric_id VARCHAR,
    group_key VARCHAR,
    note VARCHAR,
    created_at TIMESTAMPTZ NOT NULL DEFAULT current_timestamp,
    CHECK (start_ts <= end_ts)
);
CREATE TABLE annotation_tags (
    annotation_id BIGINT NOT NULL,
    tag VARCHAR NOT NULL,
    value VARCHAR NOT NULL,
    PRIMARY KEY (annotation_id, tag)
);
CREATE TABLE annotation_groups (
    annotation_id BIGINT NOT NULL,
    column_name VARCHAR NOT NULL,
    value VARCHAR,
    PRIMARY KEY (annotation_id, column_name)
);
"""


# Version 4: a verdict's p-value (calibrated detectors: the chance of a value this far out on a
# normal day), which alert budgets and reports rank verdicts by.
V4_COLUMNS = "ALTER TABLE anomaly_verdicts ADD COLUMN p_value DOUBLE;"


# Version 5: one schema snapshot (the source's column names, types, nullability and order, as
# Spark's StructType JSON) per run, for schema-change monitors. See ``schema_snapshots.py``.
V5_TABLES = """
CREATE TABLE schema_snapshots (
    run_id BIGINT PRIMARY KEY,
    schema_json VARCHAR NOT NULL,
    column_count INTEGER NOT NULL,
    saved_at TIMESTAMPTZ NOT NULL DEFAULT current_timestamp
);
"""


# Version 6: the process that started a scan execution (host, pid, and its start on Linux), so
# that a later start can tell an execution whose process died (left ``running``) from one that
# still runs. See ``scan_log.ScanLog.abandon_dead``.
V6_COLUMNS = """
ALTER TABLE scan_log ADD COLUMN host VARCHAR;
ALTER TABLE scan_log ADD COLUMN pid BIGINT;
ALTER TABLE scan_log ADD COLUMN process_start VARCHAR;
"""


# Version 7: alerts that could not be delivered, with the body to send, so a later run can offer
# them to their sink again and the report can list them. See ``deliveries.Deliveries``.
V7_TABLES = """
CREATE SEQUENCE delivery_id_seq START 1;
CREATE TABLE alert_deliveries (
    delivery_id BIGINT PRIMARY KEY,
    scan VARCHAR NOT NULL,
    sink VARCHAR NOT NULL,
    run_time TIMESTAMPTZ NOT NULL,
    severity VARCHAR NOT NULL,
    summary VARCHAR NOT NULL,
    payload VARCHAR NOT NULL,
    status VARCHAR NOT NULL,
    attempts INTEGER NOT NULL,
    error VARCHAR,
    failed_at TIMESTAMPTZ NOT NULL,
    delivered_at TIMESTAMPTZ
);
"""


MIGRATIONS: tuple[Migration, ...] = (
    Migration(1, "metric results in one table", ddl_step(V1_TABLES)),
    Migration(
        2,
        "runs, groups and series dimensions; outcomes, verdicts, states, scan log",
        _upgrade_to_v2,
    ),
    Migration(3, "annotations: incidents, expected changes and exclusions", ddl_step(V3_TABLES)),
    Migration(4, "p-values of anomaly verdicts", ddl_step(V4_COLUMNS)),
    Migration(5, "schema snapshots per run", ddl_step(V5_TABLES)),
    Migration(6, "the process of each scan execution", ddl_step(V6_COLUMNS)),
    Migration(7, "alert deliveries that failed", ddl_step(V7_TABLES)),
)
LATEST_VERSION = MIGRATIONS[-1].version

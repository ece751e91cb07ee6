from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import duckdb
import pytest

from repository import (
    CorruptRepositoryError,
    MetricsRepository,
    MigrationError,
    NotARepositoryError,
    SchemaVersionError,
)
from repository.backends import describe
from repository.migrations import LATEST_VERSION, V1_TABLES
from repository.schema import VIEWS
from tests.repository.conftest import UNDO_V6, key, raw_sql, size

V1_ROWS = [
    # dataset_date, tags, entity, instance, name, metric_id, group, value, error
    (
        1714521600000,
        {"dataset": "orders", "env": "o'prod"},
        "Dataset",
        "*",
        "Size",
        "Size(*)",
        {},
        10.0,
        None,
    ),
    (
        1714521600000,
        {"env": "o'prod", "dataset": "orders"},
        "Column",
        "price",
        "Mean",
        "Mean(price)",
        {"country": "DE", "segment": None},
        2.5,
        None,
    ),
    (
        1714521600000,
        {"dataset": "orders", "env": "o'prod"},
        "Column",
        "qty",
        "Mean",
        "Mean(qty)",
        {},
        None,
        "column qty missing",
    ),
    (
        1714608000000,
        {"dataset": "orders", "env": "o'prod"},
        "Dataset",
        "*",
        "Size",
        "Size(*)",
        {},
        11.0,
        None,
    ),
    # Version 1 appended re-runs: the later row of the same run and series wins.
    (
        1714608000000,
        {"dataset": "orders", "env": "o'prod"},
        "Dataset",
        "*",
        "Size",
        "Size(*)",
        {},
        12.0,
        None,
    ),
]


def write_v1(path: Path, rows: Sequence[tuple[Any, ...]]) -> None:
    con = duckdb.connect(str(path))
    con.execute(V1_TABLES)
    con.execute("INSERT INTO schema_version (version, description) VALUES (1, 'v1')")
    con.executemany(
        "INSERT INTO metric_results VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [
            (d, json.dumps(t), e, i, n, m, json.dumps(g), v, err)
            for d, t, e, i, n, m, g, v, err in rows
        ],
    )
    con.close()


def test_a_version_1_file_migrates_forward_with_its_data(repo_path: Path) -> None:
    write_v1(repo_path, V1_ROWS)
    with MetricsRepository(repo_path) as repo:
        assert repo.schema_version == LATEST_VERSION >= 2
        tags = {"dataset": "orders", "env": "o'prod"}
        assert repo.history("Size(*)", tags=tags).tolist() == [10.0, 12.0]
        [first, second] = repo.load().include_failures().get()
        assert first.key == key(0, **tags) and second.key == key(1, **tags)
        assert {m.metric_id: (m.value, dict(m.group), m.error) for m in first} == {
            "Size(*)": (10.0, {}, None),
            "Mean(price)": (2.5, {"country": "DE", "segment": None}, None),
            "Mean(qty)": (None, {}, "column qty missing"),
        }
        # Migrated runs behave like saved ones: re-saving day 1 replaces its point.
        repo.save(key(1, **tags), [size(13.0)])
        assert repo.history("Size(*)", tags=tags).tolist() == [10.0, 13.0]
        with repo.sql() as cur:
            tables = {
                t
                for (t,) in cur.execute(
                    "SELECT table_name FROM duckdb_tables() "
                    "WHERE database_name = current_database()"
                ).fetchall()
            }
            views = {
                v
                for (v,) in cur.execute(
                    "SELECT view_name FROM duckdb_views() WHERE database_name = current_database() "
                    "AND NOT internal"
                ).fetchall()
            }
            versions = cur.execute("SELECT version FROM schema_version ORDER BY 1").fetchall()
        assert "metric_results" not in tables and set(VIEWS) <= views
        assert versions == [(v,) for v in range(1, LATEST_VERSION + 1)]


def test_a_failed_migration_leaves_the_file_at_its_version(repo_path: Path) -> None:
    write_v1(repo_path, V1_ROWS)
    con = duckdb.connect(str(repo_path))
    con.execute("UPDATE metric_results SET tags_json = '{broken' WHERE value = 11.0")
    con.close()
    with pytest.raises(MigrationError, match=r"from schema version 1 to \d+ failed and was rolled"):
        MetricsRepository(repo_path)
    con = duckdb.connect(str(repo_path))
    assert con.execute("SELECT max(version) FROM schema_version").fetchall() == [(1,)]
    assert con.execute("SELECT count(*) FROM metric_results").fetchall() == [(5,)]
    con.close()


def test_a_repository_from_a_newer_release_is_refused(repo_location: str | Path) -> None:
    MetricsRepository(repo_location).save(key(0), [size(1.0)])
    newer = LATEST_VERSION + 1
    raw_sql(
        repo_location,
        f"INSERT INTO schema_version (version, description) VALUES ({newer}, 'future')",
    )
    pattern = rf"schema version {newer}.*up to {LATEST_VERSION}.*upgrade"
    with pytest.raises(SchemaVersionError, match=pattern) as error:
        MetricsRepository(repo_location)
    assert describe(repo_location) in str(error.value)


def test_a_database_of_something_else_is_refused(repo_location: str | Path) -> None:
    raw_sql(repo_location, "CREATE TABLE customers (id INTEGER)")
    with pytest.raises(NotARepositoryError, match=r"tables \(customers\) but no schema_version"):
        MetricsRepository(repo_location)
    assert raw_sql(repo_location, "SELECT count(*) FROM customers") == [(0,)]  # left alone


@pytest.mark.parametrize("content", [b"", b"PAR1 certainly not a database" * 100])
def test_a_file_that_is_not_duckdb_is_refused(repo_path: Path, content: bytes) -> None:
    repo_path.write_bytes(content)
    with pytest.raises(NotARepositoryError, match="is not a DuckDB database file"):
        MetricsRepository(repo_path)
    assert repo_path.read_bytes() == content  # never overwritten


@pytest.mark.parametrize(
    ("start", "end", "error"),
    [
        (0, 4096, NotARepositoryError),  # the main header: DuckDB cannot tell what it is
        (4096, 3 * 4096, CorruptRepositoryError),  # both database headers
        (3 * 4096, 4 * 4096, CorruptRepositoryError),  # the first data block
    ],
)
def test_a_damaged_repository_gives_a_clear_error(
    repo_path: Path, start: int, end: int, error: type[Exception]
) -> None:
    with MetricsRepository(repo_path) as repo:
        repo.save(key(0), [size(1.0)])
    data = bytearray(repo_path.read_bytes())
    data[start:end] = b"\xab" * (end - start)
    repo_path.write_bytes(bytes(data))
    with pytest.raises(error, match=r"damaged|not a DuckDB database file") as raised:
        MetricsRepository(repo_path)
    assert str(repo_path) in str(raised.value)


def test_a_version_3_repository_gains_verdict_p_values_keeping_its_verdicts(
    repo_location: str | Path,
) -> None:
    from repository import AnomalyVerdict

    with MetricsRepository(repo_location) as repo:
        verdict = AnomalyVerdict("Size(*)", "anomaly", "OnlineNormal", value=9.0, upper=5.0)
        repo.save(key(0, dataset="orders"), [size(9.0)], verdicts=[verdict])
    raw_sql(
        repo_location,
        "DROP VIEW anomaly_results",
        "DROP VIEW schema_history",
        "DROP TABLE schema_snapshots",
        "ALTER TABLE anomaly_verdicts DROP COLUMN p_value",
        *UNDO_V6,
        "DELETE FROM schema_version WHERE version >= 4",
    )
    with MetricsRepository(repo_location) as repo:
        assert repo.schema_version == LATEST_VERSION >= 4
        frame = repo.load_verdicts()
        assert frame[["status", "value", "upper"]].to_dict("records") == [
            {"status": "anomaly", "value": 9.0, "upper": 5.0}
        ]
        assert frame["p_value"].isna().all()

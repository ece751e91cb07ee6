"""Schema snapshots: saved per run, replaced on re-save, filtered by tags and time, migrated in."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import duckdb
import pytest

from repository import MetricsRepository, ResultKey
from repository.migrations import LATEST_VERSION
from tests.repository.conftest import UNDO_V6, day, key, size


def schema(*names: str, kind: str = "long") -> dict[str, Any]:
    fields = [{"name": n, "type": kind, "nullable": True, "metadata": {}} for n in names]
    return {"type": "struct", "fields": fields}


def test_snapshots_come_back_oldest_first_per_dataset(repo_location: str | Path) -> None:
    with MetricsRepository(repo_location) as repo:
        repo.save_schema(key(0), schema("a"))
        repo.save_schema(key(1), schema("a", "b"))
        repo.save_schema(key(1, dataset="users"), schema("id"))
        stored = repo.schemas(tags={"dataset": "orders"})
    assert [s.timestamp for s in stored] == [day(0), day(1)]
    assert [s.columns for s in stored] == [1, 2]
    assert stored[1].schema == schema("a", "b")
    assert stored[1].tags == {"dataset": "orders"}


def test_last_and_time_bounds_pick_the_newest_before_a_run(repo_location: str | Path) -> None:
    with MetricsRepository(repo_location) as repo:
        for n in range(4):
            repo.save_schema(key(n), schema(*[f"c{i}" for i in range(n + 1)]))
        previous = repo.schemas(tags={"dataset": "orders"}, before=day(2), last=1)
        window = repo.schemas(after=day(1), before=day(2))
    assert [s.columns for s in previous] == [3]
    assert [s.timestamp for s in window] == [day(1), day(2)]


def test_saving_a_run_again_replaces_its_snapshot_and_keeps_its_metrics(
    repo_location: str | Path,
) -> None:
    with MetricsRepository(repo_location) as repo:
        repo.save(key(0), [size(10.0)])
        repo.save_schema(key(0), schema("a"))
        repo.save_schema(key(0), schema("a", "b"))
        assert [s.columns for s in repo.schemas()] == [2]
        assert repo.history("Size(*)").tolist() == [10.0]
        with repo.sql() as cur:
            rows = cur.execute("SELECT dataset, column_count FROM schema_history").fetchall()
    assert rows == [("orders", 2)]


def test_deleting_runs_deletes_their_snapshots(repo_location: str | Path) -> None:
    with MetricsRepository(repo_location) as repo:
        repo.save_schema(key(0), schema("a"))
        repo.save_schema(key(1), schema("b"))
        repo.delete_runs(before=day(0))
        assert [s.schema for s in repo.schemas()] == [schema("b")]


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ({"type": "struct"}, "'fields' list"),
        ([{"name": "a"}], "'fields' list"),
        ({"fields": [{"name": object()}]}, "JSON-serialisable"),
    ],
)
def test_a_snapshot_that_is_not_a_schema_is_refused(value: Any, message: str) -> None:
    with MetricsRepository(":memory:") as repo:
        with pytest.raises(ValueError, match=message):
            repo.save_schema(ResultKey(0, {"dataset": "x"}), value)
        assert repo.schemas() == []
        with pytest.raises(ValueError, match="last must be a positive int"):
            repo.schemas(last=0)


def test_a_version_4_file_gains_the_snapshot_table_and_keeps_its_data(repo_path: Path) -> None:
    with MetricsRepository(repo_path) as repo:
        repo.save(key(0), [size(5.0)])
    con = duckdb.connect(str(repo_path))
    con.execute("DROP VIEW schema_history")
    con.execute("DROP TABLE schema_snapshots")
    for undo in UNDO_V6:
        con.execute(undo)
    con.execute("DELETE FROM schema_version WHERE version >= 5")
    con.close()
    with MetricsRepository(repo_path) as repo:
        assert repo.schema_version == LATEST_VERSION == 7
        assert repo.history("Size(*)").tolist() == [5.0]
        repo.save_schema(key(0), schema("a"))
        assert [s.columns for s in repo.schemas()] == [1]

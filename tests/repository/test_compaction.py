"""compact() copies the repository into a fresh file: smaller, with every table unchanged."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import duckdb
import pytest

from repository import (
    AnalyzerState,
    AnomalyVerdict,
    CheckOutcome,
    MetricRecord,
    MetricsRepository,
    ResultKey,
)
from repository.backends.duckdb import backend
from repository.migrations import LATEST_VERSION
from tests.repository.conftest import day, key, size


def fill(repo: MetricsRepository, runs: int = 40, points: int = 2000) -> None:
    for n in range(runs):
        records = [
            MetricRecord("Column", f"c{m}", "Mean", f"Mean(c{m})", float(n * m), {"g": str(g)})
            for m in range(points // 20)
            for g in range(20)
        ]
        repo.save(
            key(n),
            [*records, size(float(n), country=None)],
            outcomes=[CheckOutcome("check", "c", "Success", group={"region": str(n)})],
            verdicts=[AnomalyVerdict("Size(*)", "normal", "d", group={"country": None})],
        )
    repo.annotate("excluded", day(3), metric="Size(*)", group={"country": None}, note="bad")
    # Incompressible payloads: a repository's fixed size (~6 MB of 256 KiB blocks) is no test.
    states = [AnalyzerState(f"p{p}", "m", "k", 1, random.randbytes(2_000_000)) for p in range(4)]
    repo.states.replace_partitions("orders", states)
    repo.scan_log.finish(repo.scan_log.start("orders", started_at=day(0)), "succeeded")


def contents(path: Path) -> dict[str, Any]:
    """Every table's rows (sorted), every sequence's position and the views, read with DuckDB."""
    con = duckdb.connect(str(path), read_only=True)
    try:
        tables = [t for (t,) in con.execute("SELECT table_name FROM duckdb_tables()").fetchall()]
        found: dict[str, Any] = {
            t: con.execute(f"SELECT * FROM {t} ORDER BY ALL").fetchall() for t in tables
        }
        found["sequences"] = con.execute(
            "SELECT sequence_name, start_value, last_value FROM duckdb_sequences() ORDER BY ALL"
        ).fetchall()
        # Columns, not SQL text: DuckDB may re-render a view's SQL (the order of an EXCLUDE list).
        views = con.execute("SELECT view_name FROM duckdb_views() WHERE NOT internal").fetchall()
        found["views"] = {v: con.execute(f"DESCRIBE {v}").fetchall() for (v,) in views}
        found["history"] = con.execute("SELECT * FROM metric_history ORDER BY ALL").fetchall()
    finally:
        con.close()
    return found


def test_compaction_shrinks_the_file_and_keeps_every_table(repo_path: Path) -> None:
    repo = MetricsRepository(repo_path)
    fill(repo)
    repo.delete_runs(before=day(29))  # three quarters of the runs
    repo.states.delete_partitions("orders", ["p0", "p1", "p2"])
    before, size_before = contents(repo_path), repo_path.stat().st_size
    repo.compact()
    size_after = repo_path.stat().st_size
    assert contents(repo_path) == before
    assert len(before["points"]) == 10 * 2001 and len(before["annotations"]) == 1
    assert size_after < size_before - 5_000_000, (size_before, size_after)
    repo.compact()  # compacting a compact file does not grow it
    assert repo_path.stat().st_size <= size_after * 1.05
    assert repo.schema_version == LATEST_VERSION
    assert sorted(p.name for p in repo_path.parent.iterdir()) == [
        "metrics.duckdb", "metrics.duckdb.lock"
    ]  # fmt: skip
    # Sequences kept their positions: new rows get new ids.
    repo.save(key(100), [size(100.0)])
    assert repo.history("Size(*)", group={}).tolist() == [100.0]
    assert repo.annotate("incident", day(50)) == 2


def test_compaction_without_reclustering_also_shrinks(repo_path: Path) -> None:
    repo = MetricsRepository(repo_path)
    fill(repo, runs=20)
    repo.delete_runs(before=day(14))
    repo.states.delete_partitions("orders", ["p0", "p1", "p2"])
    before, size_before = contents(repo_path), repo_path.stat().st_size
    repo.compact(recluster=False)
    assert contents(repo_path) == before
    assert repo_path.stat().st_size < size_before - 5_000_000


def test_a_failed_compaction_keeps_the_old_file(
    repo_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = MetricsRepository(repo_path)
    fill(repo, runs=5, points=100)
    before = contents(repo_path)

    def broken(cur: duckdb.DuckDBPyConnection, old: str, new: str, recluster: bool) -> None:
        cur.execute(f"COPY FROM DATABASE {old} TO {new} (SCHEMA)")
        raise OSError("disk full")

    monkeypatch.setattr(backend, "copy_database", broken)
    with pytest.raises(OSError, match="disk full"):
        repo.compact()
    assert contents(repo_path) == before
    assert not [p for p in repo_path.parent.iterdir() if ".compact-" in p.name]
    repo.save(key(9), [size(9.0)])  # the repository still works
    assert len(repo.history("Size(*)", group={"country": None})) == 5


def test_compacting_an_in_memory_repository_keeps_its_points() -> None:
    with MetricsRepository(":memory:") as repo:
        repo.save(ResultKey(0), [size(1.0)])
        repo.save(ResultKey(1), [size(2.0)])
        repo.compact()
        assert repo.history("Size(*)").tolist() == [1.0, 2.0]

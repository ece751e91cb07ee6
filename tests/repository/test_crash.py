from __future__ import annotations

from pathlib import Path

import pytest

from repository import MetricsRepository, ResultKey
from tests.repository.conftest import kill_inside_the_write, size, writer_holds_lock


def test_a_process_killed_mid_save_leaves_no_partial_run(repo_path: Path) -> None:
    MetricsRepository(repo_path)
    output = kill_inside_the_write(
        lambda: writer_holds_lock(repo_path), "big-save", str(repo_path), "1000", "150"
    )
    assert "saved" not in output

    repo = MetricsRepository(repo_path)
    runs = {run.key.tags["run"]: len(run) for run in repo.load().include_failures().get()}
    assert runs in ({"small": 1}, {"small": 1, "big": 150_000})  # all of the big run or none
    with repo.sql() as cur:  # nor any of its series
        assert cur.execute("SELECT count(*) FROM series").fetchall() == [
            (1 + (150_000 if "big" in runs else 0),)
        ]
    repo.save(ResultKey(2, {"run": "after"}), [size(3.0)])  # the file still takes writes
    assert repo.history("Size(*)", tags={"run": "after"}).tolist() == [3.0]


def test_a_process_killed_mid_replace_keeps_the_old_states(repo_path: Path) -> None:
    MetricsRepository(repo_path)
    kill_inside_the_write(lambda: writer_holds_lock(repo_path), "big-replace", str(repo_path), "40")

    states = MetricsRepository(repo_path).states.load("d")
    versions = {s.format_version for s in states}
    assert versions in ({1}, {2})  # either every new state or only the old one
    if versions == {1}:
        assert [(s.partition, s.payload) for s in states] == [("p0", b"old")]
    else:
        assert len(states) == 40


@pytest.mark.parametrize("leftover", [b"", b"\x00garbage wal"])
def test_a_stale_or_torn_wal_file_is_not_a_problem(repo_path: Path, leftover: bytes) -> None:
    with MetricsRepository(repo_path) as repo:
        repo.save(ResultKey(0), [size(1.0)])
    Path(f"{repo_path}.wal").write_bytes(leftover)
    assert MetricsRepository(repo_path).history("Size(*)").tolist() == [1.0]

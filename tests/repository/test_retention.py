from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from repository import AnomalyVerdict, CheckOutcome, MetricsRepository
from tests.repository.conftest import day, key, mean, size


def fill(repo: MetricsRepository) -> None:
    for n in range(6):
        dataset = "orders" if n % 2 == 0 else "users"
        repo.save(
            key(n, dataset=dataset),
            [size(float(n)), mean(f"c{n}", 1.0, country=str(n))],
            outcomes=[CheckOutcome("check", "c", "Success", group={"region": str(n)})],
            verdicts=[AnomalyVerdict("Size(*)", "normal", "d")],
        )


def test_delete_by_time_range_removes_runs_and_everything_of_them(
    repo: MetricsRepository,
) -> None:
    fill(repo)
    deleted = repo.delete_runs(before=day(1))  # inclusive
    assert (deleted.runs, deleted.points, deleted.outcomes, deleted.verdicts) == (2, 4, 2, 2)
    assert repo.history("Size(*)", tags={}).index.min() == pd.Timestamp(day(2))
    assert len(repo.load_outcomes()) == 4 and len(repo.load_verdicts()) == 4
    # Series and groups only the deleted runs used are gone too.
    assert "Mean(c0)" not in set(repo.metrics().metric_id)
    assert {"country": "0"} not in repo.groups()
    with repo.sql() as cur:
        assert cur.execute(
            "SELECT count(*) FROM group_values WHERE column_name = 'region' AND value IN ('0', '1')"
        ).fetchall() == [(0,)]


def test_delete_by_tags_and_window(repo: MetricsRepository) -> None:
    fill(repo)
    assert repo.delete_runs(tags={"dataset": "users"}, after=day(2), before=day(3)).runs == 1
    assert repo.history("Size(*)", tags={"dataset": "users"}).tolist() == [1.0, 5.0]
    assert repo.delete_runs(tags={"dataset": "users"}).runs == 2
    assert repo.datasets() == ["orders"]
    assert repo.delete_runs(tags={"dataset": "nope"}).runs == 0


def test_delete_refuses_to_delete_everything_implicitly(repo: MetricsRepository) -> None:
    with pytest.raises(ValueError, match="refusing to delete all runs"):
        repo.delete_runs()


def test_compaction_keeps_every_point_and_sorts_by_series(
    repo: MetricsRepository, repo_location: str | Path
) -> None:
    fill(repo)
    repo.delete_runs(before=day(0))
    before = repo.load().include_failures().to_pandas()
    repo.compact()
    after = repo.load().include_failures().to_pandas()
    pd.testing.assert_frame_equal(before, after)
    with repo.sql() as cur:
        order = [s for (s,) in cur.execute("SELECT series_id FROM points").fetchall()]
    assert order == sorted(order)
    if isinstance(repo_location, Path):
        assert not Path(f"{repo_location}.wal").exists()


def test_scan_log_records_starts_and_ends(repo: MetricsRepository) -> None:
    first = repo.scan_log.start("orders", started_at=day(0))
    second = repo.scan_log.start("users", started_at=day(1))
    repo.scan_log.finish(first, "failed", error="source missing", ended_at=day(0))
    runs = repo.scan_log.runs()
    assert runs[["scan", "status", "error"]].to_dict("records") == [
        {"scan": "users", "status": "running", "error": None},
        {"scan": "orders", "status": "failed", "error": "source missing"},
    ]
    assert pd.isna(runs.ended_at.iloc[0]) and runs.started_at.iloc[1] == pd.Timestamp(day(0))
    assert repo.scan_log.runs(scan="orders", limit=1).scan_id.tolist() == [first]
    with pytest.raises(ValueError, match="no scan execution with id"):
        repo.scan_log.finish(second + 100, "succeeded")
    with pytest.raises(ValueError, match="other than 'running'"):
        repo.scan_log.finish(second, "running")
    assert repo.scan_log.delete(before=day(0)) == 1
    assert repo.scan_log.runs().scan.tolist() == ["users"]

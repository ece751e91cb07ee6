"""The outbox of failed alert deliveries, on both backends: kept with their body, pending
oldest first, delivered or failed again, listed until delivered, and migrated into older files."""

from __future__ import annotations

from pathlib import Path

import pytest

from repository import MetricsRepository
from repository.migrations import LATEST_VERSION
from tests.repository.conftest import UNDO_V7, day, key, raw_sql, size


def _fail(repo: MetricsRepository, sink: str, n: int) -> int:
    return repo.deliveries.record_failure(
        "daily", sink, day(n), "error", f"daily day {n}: 1 anomaly", f'{{"n": {n}}}',
        attempts=4, error=f"alert {sink!r}: the webhook answered HTTP 503 (day {n})",
    )  # fmt: skip


def test_failed_deliveries_stay_pending_until_delivered(repo_location: str | Path) -> None:
    with MetricsRepository(repo_location) as repo:
        first, second = _fail(repo, "slack", 1), _fail(repo, "slack", 2)
        _fail(repo, "pager", 3)
        assert [(p.delivery_id, p.payload) for p in repo.deliveries.pending("slack")] == [
            (first, '{"n": 1}'), (second, '{"n": 2}')
        ]  # fmt: skip
        repo.deliveries.failed_again(first, attempts=2, error="still down")
        repo.deliveries.delivered(second, attempts=1)
        undelivered = repo.deliveries.undelivered()
    assert undelivered[["sink", "attempts", "error"]].to_dict("records") == [
        {"sink": "slack", "attempts": 6, "error": "still down"},
        {"sink": "pager", "attempts": 4, "error": "alert 'pager': the webhook answered HTTP 503 "
                                                  "(day 3)"},
    ]  # fmt: skip
    assert undelivered["run_time"].tolist() == [day(1), day(3)]
    with MetricsRepository(repo_location) as repo:  # kept across processes and reopening
        assert [p.sink for p in repo.deliveries.pending()] == ["slack", "pager"]


def test_bad_arguments_are_refused(repo_location: str | Path) -> None:
    with MetricsRepository(repo_location) as repo:
        with pytest.raises(ValueError, match="sink must be a non-empty str, got ''"):
            _fail(repo, "", 1)
        with pytest.raises(ValueError, match="no alert delivery with id 99"):
            repo.deliveries.delivered(99, attempts=1)


def test_a_version_6_repository_gains_the_outbox_keeping_its_runs(
    repo_location: str | Path,
) -> None:
    with MetricsRepository(repo_location) as repo:
        repo.save(key(0), [size(5.0)])
    raw_sql(repo_location, *UNDO_V7, "DELETE FROM schema_version WHERE version >= 7")
    with MetricsRepository(repo_location) as repo:
        assert repo.schema_version == LATEST_VERSION == 7
        assert repo.history("Size(*)").tolist() == [5.0]
        _fail(repo, "slack", 1)
        assert len(repo.deliveries.pending()) == 1

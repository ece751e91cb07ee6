"""``save_many``: several runs' metrics and verdicts in one transaction store what ``save`` and
``save_verdicts`` per run store (on both backends)."""

from __future__ import annotations

from pathlib import Path

import pytest

from repository import AnomalyVerdict, MetricRecord, MetricsRepository, ResultKey
from tests.repository.conftest import key, mean, size

RUNS: list[tuple[ResultKey, list[MetricRecord]]] = [
    (key(0), [size(10.0), mean("price", 2.5, country="DE"), mean("price", 3.0, country=None)]),
    (key(1), [size(12.0), mean("price", None, "boom", country="DE")]),
    (key(1, dataset="orders", scan="nightly"), [size(7.0, country="FR")]),
]
VERDICTS: list[tuple[ResultKey, list[AnomalyVerdict]]] = [
    (key(0), [AnomalyVerdict("Size(*)", "normal", "Adaptive", 10.0, 5.0, 15.0)]),
    (key(1), [AnomalyVerdict("Size(*)", "anomaly", "Adaptive", 12.0, 5.0, 11.0),
              AnomalyVerdict("Mean(price)", "error", "Adaptive", group={"country": "DE"})]),
]  # fmt: skip


def one_by_one(repo: MetricsRepository) -> None:
    for run_key, records in RUNS:
        repo.save(run_key, records)
    for run_key, verdicts in VERDICTS:
        repo.save_verdicts(run_key, verdicts)


def stored(repo: MetricsRepository) -> tuple[str, str]:
    """Every stored point and verdict, as text (a missing value is null, not an unequal NaN)."""
    points = repo.load().include_failures().to_pandas()
    return points.to_json(orient="records"), repo.load_verdicts().to_json(orient="records")


def test_save_many_stores_what_saves_per_run_store(repo: MetricsRepository, tmp_path: Path) -> None:
    expected = MetricsRepository(tmp_path / "one-by-one.duckdb")
    one_by_one(expected)
    repo.save_many(RUNS, verdicts=VERDICTS)
    assert stored(repo) == stored(expected)
    de = {"country": "DE"}
    assert repo.history("Mean(price)", tags={"dataset": "orders"}, group=de).tolist() == [2.5]


def test_save_many_replaces_as_save_does(repo: MetricsRepository) -> None:
    repo.save(key(0), [size(1.0), mean("price", 9.0)])
    repo.save_many([(key(0), [size(10.0)])])
    assert repo.history("Size(*)", tags={"dataset": "orders"}).tolist() == [10.0]
    assert repo.history("Mean(price)", tags={"dataset": "orders"}).tolist() == [9.0]  # kept


def test_a_run_given_twice_writes_nothing(repo: MetricsRepository) -> None:
    with pytest.raises(ValueError, match="appears twice; each run may be saved once per call"):
        repo.save_many([(key(0), [size(1.0)]), (key(1), [size(2.0)]), (key(0), [size(3.0)])])
    assert repo.load().get() == []


def test_saving_nothing_creates_no_run(repo: MetricsRepository) -> None:
    repo.save_many([], verdicts=[])
    repo.save_many([(key(0), [])])
    assert repo.load().include_failures().get() == []

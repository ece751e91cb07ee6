from __future__ import annotations

import math
from pathlib import Path

import pytest

from repository import MetricRecord, MetricsRepository
from repository.migrations import LATEST_VERSION
from tests.repository.conftest import key, mean, size


def test_round_trip_keeps_every_field_including_null_groups(repo: MetricsRepository) -> None:
    records = [
        size(10.0),
        mean("price", 2.5, country="DE", segment=None),
        mean("price", math.nan, country=None, segment="b2b"),  # NaN is a value, not a failure
        MetricRecord("Multicolumn", "a,b", "Correlation", "Correlation(a,b)", -0.25),
    ]
    repo.save(key(0, dataset="orders", env="prod"), records)

    [run] = repo.load().get()
    assert run.key == key(0, dataset="orders", env="prod")
    assert {_comparable(m) for m in run} == {_comparable(m) for m in records}


def _comparable(record: MetricRecord) -> tuple[object, ...]:
    value = "NaN" if record.value is not None and math.isnan(record.value) else record.value
    group = tuple(sorted(record.group.items()))
    return record.entity, record.instance, record.name, record.metric_id, value, group, record.error


def test_a_second_repository_object_sees_the_stored_data(repo_location: str | Path) -> None:
    with MetricsRepository(repo_location) as writer:
        writer.save(key(0), [size(1.0)])
    with MetricsRepository(repo_location) as reader:
        assert reader.history("Size(*)").tolist() == [1.0]
        assert reader.schema_version == LATEST_VERSION


def test_saving_the_same_key_replaces_that_runs_points_of_those_metrics(
    repo: MetricsRepository,
) -> None:
    repo.save(
        key(0),
        [
            size(1.0),
            mean("price", 5.0, country="DE"),
            mean("price", 6.0, country="FR"),
            mean("qty", 7.0),
        ],
    )
    repo.save(key(1), [size(2.0)])
    # Re-run of day 0: Size and Mean(price) again (FR vanished), Mean(qty) not recomputed.
    repo.save(key(0), [size(10.0), mean("price", 50.0, country="DE")])

    frame = repo.load().to_pandas()
    day0 = frame[frame.timestamp == key(0).timestamp]
    assert sorted(zip(day0.metric_id, day0.value, day0.country, strict=True), key=str) == sorted(
        [("Size(*)", 10.0, None), ("Mean(price)", 50.0, "DE"), ("Mean(qty)", 7.0, None)], key=str
    )
    assert repo.history("Size(*)").tolist() == [10.0, 2.0]
    assert len(repo.load().get()) == 2  # still two runs, not three


def test_same_time_with_other_tags_is_another_run(repo: MetricsRepository) -> None:
    repo.save(key(0, dataset="orders"), [size(1.0)])
    repo.save(key(0, dataset="orders", env="dev"), [size(2.0)])
    assert sorted(m.value or 0.0 for run in repo.load().get() for m in run) == [1.0, 2.0]


def test_failed_metrics_are_stored_but_not_in_histories(repo: MetricsRepository) -> None:
    repo.save(key(0), [mean("x", 1.0), size(3.0)])
    repo.save(key(1), [mean("x", None, error="column x has no numeric values"), size(4.0)])

    assert repo.history("Mean(x)").tolist() == [1.0]
    assert repo.load().for_metrics(["Mean(x)"]).to_pandas().value.tolist() == [1.0]
    failed = repo.load().include_failures().for_metrics(["Mean(x)"]).to_pandas()
    assert failed.error.tolist() == [None, "column x has no numeric values"]
    assert failed.value.isna().tolist() == [False, True]
    [run] = [r for r in repo.load().include_failures().get() if r.key == key(1)]
    assert {m.metric_id: m.succeeded for m in run} == {"Mean(x)": False, "Size(*)": True}
    counts = repo.metrics().set_index("metric_id")
    assert (counts.at["Mean(x)", "points"], counts.at["Mean(x)", "failures"]) == (1, 1)


def test_a_rejected_save_writes_nothing(repo: MetricsRepository) -> None:
    repo.save(key(0), [size(1.0)])
    with pytest.raises(ValueError, match="appears twice in one run"):
        repo.save(key(1), [size(2.0), mean("p", 1.0), size(3.0)])
    with pytest.raises(TypeError, match="must yield MetricRecord"):
        repo.save(key(2), [size(2.0), ("Size", 3.0)])  # type: ignore[list-item]
    with pytest.raises(TypeError, match="must be text or None"):
        group: dict[str, object] = {"day": 3}
        repo.save(key(2), [MetricRecord("Dataset", "*", "Size", "Size(*)", 1.0, group)])  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="ResultKey"):
        repo.save(0, [size(1.0)])  # type: ignore[arg-type]
    assert [r.key for r in repo.load().include_failures().get()] == [key(0)]
    assert repo.tag_values("dataset") == ["orders"]


def test_saving_nothing_creates_no_run(repo: MetricsRepository) -> None:
    repo.save(key(0), [])
    assert repo.load().get() == []
    assert repo.datasets() == []


def test_in_memory_repositories_are_separate() -> None:
    with MetricsRepository(":memory:") as first, MetricsRepository(":memory:") as second:
        first.save(key(0), [size(1.0)])
        assert second.load().get() == []
        assert first.history("Size(*)").tolist() == [1.0]

from __future__ import annotations

import pandas as pd
import pytest

from repository import AmbiguousSeriesError, MetricRecord, MetricsRepository
from repository.history import LATEST_COLUMNS
from repository.keys import canonical_key
from tests.repository.conftest import day, key, mean, size


def test_history_is_one_series_sorted_by_time(repo: MetricsRepository) -> None:
    for n in (3, 1, 2):  # saved out of order
        repo.save(key(n), [size(float(n)), mean("price", 10.0 + n, country="DE")])
    repo.save(key(4), [size(float("nan"))])  # a NaN value is kept (detectors drop it)

    series = repo.history("Size(*)", tags={"dataset": "orders"})
    assert series.name == "Size(*)" and series.index.name == "timestamp"
    assert list(series.index) == [pd.Timestamp(day(n)) for n in (1, 2, 3, 4)]
    assert series.iloc[:3].tolist() == [1.0, 2.0, 3.0] and pd.isna(series.iloc[3])
    assert repo.history("Mean(price)").tolist() == [11.0, 12.0, 13.0]  # its only group


def test_history_picks_a_group_and_refuses_to_guess(repo: MetricsRepository) -> None:
    repo.save(
        key(0),
        [
            mean("price", 1.0, country="DE"),
            mean("price", 2.0, country="FR"),
            mean("price", 3.0, country=None),
            mean("price", 9.0),
        ],
    )
    assert repo.history("Mean(price)", group={"country": "FR"}).tolist() == [2.0]
    assert repo.history("Mean(price)", group={"country": None}).tolist() == [3.0]
    assert repo.history("Mean(price)", group={}).tolist() == [9.0]
    with pytest.raises(AmbiguousSeriesError, match=r"has 4 series .* pass name= and/or group="):
        repo.history("Mean(price)")


def test_history_of_a_metric_with_several_names_needs_a_name(repo: MetricsRepository) -> None:
    records = [
        MetricRecord("Column", "c", f"Histogram.abs.{v}", "Histogram(c)", n)
        for n, v in enumerate("ab")
    ]
    repo.save(key(0), records)
    with pytest.raises(AmbiguousSeriesError, match=r"Histogram\.abs\.a"):
        repo.history("Histogram(c)")
    assert repo.history("Histogram(c)", name="Histogram.abs.b").tolist() == [1.0]


def test_history_refuses_two_runs_at_one_timestamp(repo: MetricsRepository) -> None:
    repo.save(key(0, dataset="orders", env="prod"), [size(1.0)])
    repo.save(key(0, dataset="orders", env="dev"), [size(2.0)])
    with pytest.raises(AmbiguousSeriesError, match=r"2 runs at 2024-05-01.*'env': 'dev'"):
        repo.history("Size(*)", tags={"dataset": "orders"})
    assert repo.history("Size(*)", tags={"env": "dev"}).tolist() == [2.0]


def test_histories_of_many_groups_equal_one_history_each(repo: MetricsRepository) -> None:
    for n in (2, 0, 1):
        repo.save(key(n), [mean("price", 10.0 * n + g, country=c) for g, c in enumerate("AB")])
    repo.save(key(3), [mean("price", None, error="boom", country="A"), mean("price", 5.0)])
    repo.save(key(1, dataset="orders", env="dev"), [mean("price", 7.0, country="C")])
    repo.save(key(1, dataset="orders", env="prd"), [mean("price", 8.0, country="C")])
    groups = [{"country": "A"}, {"country": "B"}, {}, {"country": "Z"}, {"country": "C"}]

    found = repo.histories("Mean(price)", groups, tags={"dataset": "orders"}, before=day(2))
    assert list(found) == [canonical_key(g) for g in groups]
    for group in groups[:4]:
        one = repo.history("Mean(price)", group=group, tags={"dataset": "orders"}, before=day(2))
        pd.testing.assert_series_equal(found[canonical_key(group)], one)
    assert found[canonical_key({"country": "A"})].tolist() == [0.0, 10.0, 20.0]
    assert found[canonical_key({"country": "Z"})].empty  # never stored: no history yet
    # One group with two runs at one time is an error value; the others are still read.
    ambiguous = found[canonical_key({"country": "C"})]
    assert isinstance(ambiguous, AmbiguousSeriesError) and "2 runs at" in str(ambiguous)


def test_latest_value_of_every_group_in_one_call(repo: MetricsRepository) -> None:
    for n in range(3):
        repo.save(key(n), [mean("price", 10.0 * n + g, country=c) for g, c in enumerate("ABC")])
    repo.save(
        key(3),
        [
            mean("price", 99.0, country="A"),  # only A has a newer value...
            mean("price", None, error="boom", country="B"),
        ],
    )  # ...B's newest failed

    latest = repo.latest(["Mean(price)"])
    assert list(latest.columns) == [*LATEST_COLUMNS, "country", "dataset"]
    assert latest.set_index("country").value.to_dict() == {"A": 99.0, "B": 21.0, "C": 22.0}
    assert latest.set_index("country").timestamp.to_dict() == {
        "A": pd.Timestamp(day(3)),
        "B": pd.Timestamp(day(2)),
        "C": pd.Timestamp(day(2)),
    }
    some = repo.latest("Mean(price)", groups=[{"country": "A"}, {"country": "C"}], before=day(1))
    assert some.set_index("country").value.to_dict() == {"A": 10.0, "C": 12.0}


def test_listing_datasets_tags_metrics_and_groups(repo: MetricsRepository) -> None:
    repo.save(key(0, dataset="orders", env="prod"), [size(1.0), mean("p", 1.0, country="DE")])
    repo.save(key(1, dataset="users"), [size(2.0), mean("q", None, error="no q")])
    repo.save(key(2, env="ci"), [size(3.0)])  # no dataset tag

    assert repo.datasets() == ["orders", "users"]
    assert repo.tag_values("env") == ["ci", "prod"]
    metrics = repo.metrics().set_index("metric_id")
    assert [metrics.at["Size(*)", c] for c in ("entity", "groups", "points", "failures")] == [
        "Dataset",
        1,
        3,
        0,
    ]
    assert (metrics.at["Mean(q)", "points"], metrics.at["Mean(q)", "failures"]) == (0, 1)
    assert metrics.loc["Size(*)", "first"] == pd.Timestamp(day(0))
    assert metrics.loc["Size(*)", "last"] == pd.Timestamp(day(2))
    assert sorted(repo.metrics(tags={"dataset": "orders"}).metric_id) == ["Mean(p)", "Size(*)"]
    assert repo.groups("Mean(p)") == [{"country": "DE"}]
    assert repo.groups(tags={"dataset": "users"}) == [{}]
    assert repo.groups() == [{}, {"country": "DE"}]

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import timedelta

import pandas as pd
import pytest

from repository import AnomalyVerdict, CheckOutcome, MetricRecord, MetricsRepository, ResultKey
from repository.query import POINT_COLUMNS
from tests.repository.conftest import day, key, mean, size


@dataclass(frozen=True)
class Analyzer:
    """Stands in for an analyzer: anything with a metric_id works in for_metrics."""

    metric_id: str


def test_tag_filter_matches_runs_having_all_given_tags(repo: MetricsRepository) -> None:
    repo.save(key(0, dataset="orders", env="prod", region="eu"), [size(1.0)])
    repo.save(key(1, dataset="orders", env="dev"), [size(2.0)])
    repo.save(key(2, dataset="users", env="prod"), [size(3.0)])

    def values(tags: dict[str, str]) -> list[float]:
        return repo.load().with_tags(tags).to_pandas().value.tolist()

    assert values({"dataset": "orders"}) == [1.0, 2.0]
    assert values({"env": "prod"}) == [1.0, 3.0]
    assert values({"dataset": "orders", "env": "prod"}) == [1.0]
    assert values({"dataset": "orders", "env": "prod", "region": "us"}) == []
    assert values({}) == [1.0, 2.0, 3.0]
    # Chained filters accumulate.
    assert repo.load().with_tags({"env": "prod"}).with_tags(
        {"dataset": "users"}
    ).to_pandas().value.tolist() == [3.0]


def test_time_bounds_are_inclusive_on_both_ends(repo: MetricsRepository) -> None:
    for n in range(5):
        repo.save(key(n), [size(float(n))])
    ms = timedelta(milliseconds=1)

    assert repo.load().after(day(1)).before(day(3)).to_pandas().value.tolist() == [1.0, 2.0, 3.0]
    assert repo.load().after(day(1) + ms).before(day(3) - ms).to_pandas().value.tolist() == [2.0]
    assert repo.load().after(key(4).epoch_ms).to_pandas().value.tolist() == [4.0]
    assert repo.load().before(day(0)).to_pandas().value.tolist() == [0.0]
    assert repo.history("Size(*)", after=day(2), before=day(2)).tolist() == [2.0]
    with pytest.raises(ValueError, match="later than"):
        repo.load().after(day(3)).before(day(1)).to_pandas()


def test_group_filter_is_a_subset_match_and_none_matches_null(repo: MetricsRepository) -> None:
    repo.save(
        key(0),
        [
            mean("price", 1.0, country="DE", segment="b2b"),
            mean("price", 2.0, country="DE", segment="b2c"),
            mean("price", 3.0, country="FR", segment="b2b"),
            mean("price", 4.0, country=None, segment="b2b"),
            size(100.0),
        ],
    )

    def values(group: dict[str, str | None]) -> list[float]:
        return sorted(repo.load().with_group(group).to_pandas().value.tolist())

    assert values({"country": "DE"}) == [1.0, 2.0]
    assert values({"country": "DE", "segment": "b2b"}) == [1.0]
    assert values({"segment": "b2b"}) == [1.0, 3.0, 4.0]
    assert values({"country": None}) == [4.0]
    assert values({"country": "NL"}) == []
    assert values({}) == [1.0, 2.0, 3.0, 4.0, 100.0]


def test_for_metrics_takes_ids_or_objects_with_a_metric_id(repo: MetricsRepository) -> None:
    repo.save(key(0), [size(1.0), mean("price", 2.0), mean("qty", 3.0)])

    def ids(query: object) -> list[str]:
        return sorted(repo.load().for_metrics(query).to_pandas().metric_id)  # type: ignore[arg-type]

    assert ids(["Size(*)", Analyzer("Mean(qty)")]) == ["Mean(qty)", "Size(*)"]
    assert ids("Mean(price)") == ["Mean(price)"]
    assert ids(Analyzer("Mean(price)")) == ["Mean(price)"]
    assert ids([]) == []
    assert ids([f"Unknown({n})" for n in range(100)] + ["Size(*)"]) == ["Size(*)"]  # long list
    with pytest.raises(TypeError, match="metric_id"):
        repo.load().for_metrics([3])  # type: ignore[list-item]


def test_to_pandas_columns_and_types(repo: MetricsRepository) -> None:
    repo.save(key(0, dataset="orders", env="prod"), [mean("price", 2.0, country="DE"), size(9.0)])
    frame = repo.load().to_pandas()
    assert list(frame.columns) == [*POINT_COLUMNS, "country", "dataset", "env"]
    assert str(frame.timestamp.dtype) == "datetime64[ns, UTC]"
    assert frame.timestamp.tolist() == [pd.Timestamp(day(0))] * 2
    assert frame.value.dtype == "float64"
    assert frame.set_index("metric_id").country.to_dict() == {"Mean(price)": "DE", "Size(*)": None}


def test_empty_results_have_the_documented_columns(repo: MetricsRepository) -> None:
    empty = repo.load().with_tags({"dataset": "none"}).with_group({"country": "DE"}).to_pandas()
    assert empty.empty
    assert list(empty.columns) == [*POINT_COLUMNS, "country", "dataset"]
    assert str(empty.timestamp.dtype) == "datetime64[ns, UTC]"
    assert empty.value.dtype == "float64"
    assert repo.load().get() == []
    history = repo.history("Size(*)")
    assert history.empty and str(history.index.dtype) == "datetime64[ns, UTC]"
    latest = repo.latest(["Size(*)"], tags={"dataset": "x"})
    assert latest.empty and list(latest.columns) == [*repo_latest_columns(), "dataset"]


def repo_latest_columns() -> list[str]:
    from repository.history import LATEST_COLUMNS

    return list(LATEST_COLUMNS)


def test_result_column_names_never_collide(repo: MetricsRepository) -> None:
    record = MetricRecord("Column", "x", "Mean", "Mean(x)", 1.0, {"value": "v", "name": "n"})
    repo.save(ResultKey(day(0), {"metric_id": "t", "country": "c"}), [record])
    frame = repo.load().to_pandas()
    assert list(frame.columns) == [
        *POINT_COLUMNS,
        "group.name",
        "group.value",
        "country",
        "tag.metric_id",
    ]
    assert frame.iloc[0][["value", "group.value", "tag.metric_id"]].tolist() == [1.0, "v", "t"]


ODD = [
    "o'rders",
    'say "hi"',
    "x'); DROP TABLE points; --",
    "back\\slash",
    "percent%_under",
    "new\nline",
    "ünïcødé 🚀",
    "",  # empty tag values and group values are legal text
    "NULL",
]


@pytest.mark.parametrize("odd", ODD)
def test_odd_text_in_tags_metric_ids_and_groups_is_only_ever_data(
    repo: MetricsRepository, odd: str
) -> None:
    metric_id = f"Compliance({odd})"
    record = MetricRecord("Column", odd or "c", "Compliance", metric_id, 0.5, {odd or "g": odd})
    repo.save(ResultKey(day(0), {"dataset": odd, odd or "t": odd}), [record, size(1.0)])
    repo.save(ResultKey(day(1), {"dataset": "plain"}), [size(2.0)])

    [run] = repo.load().with_tags({"dataset": odd}).for_metrics([metric_id]).get()
    assert run.key.tags == {"dataset": odd, odd or "t": odd}
    assert [dict(m.group) for m in run] == [{odd or "g": odd}]
    assert repo.history(metric_id, tags={"dataset": odd}, group={odd or "g": odd}).tolist() == [0.5]
    assert repo.load().with_group({odd or "g": odd}).to_pandas().metric_id.tolist() == [metric_id]
    assert odd in repo.datasets()
    # Nothing else was touched: both runs and all points are still there.
    assert len(repo.load().get()) == 2
    assert repo.history("Size(*)").tolist() == [1.0, 2.0]


def test_many_groups_and_runs_in_one_result(repo: MetricsRepository) -> None:
    for n in range(3):  # past the size where id lists are joined rather than listed inline
        repo.save(key(n, run=str(n)), [mean("p", float(g), shop=f"{g:03d}") for g in range(80)])
    frame = repo.load().to_pandas()
    assert len(frame) == 240
    assert (frame.shop.astype(int) == frame.value).all()
    assert sorted(frame.run.unique()) == ["0", "1", "2"]
    assert len(repo.latest("Mean(p)", groups=[{"shop": f"{g:03d}"} for g in range(70)])) == 70


def test_frames_tell_a_null_group_value_from_a_missing_group_column(
    repo: MetricsRepository,
) -> None:
    groups: list[dict[str, str | None]] = [{"country": None}, {}, {"country": "DE"}, {"x": "1"}]
    repo.save(
        key(0),
        [mean("p", float(i), **g) for i, g in enumerate(groups)],
        outcomes=[CheckOutcome("c", "k", "Success", group=g) for g in groups],
        verdicts=[
            AnomalyVerdict("Mean(p)", "normal", f"d{i}", group=g) for i, g in enumerate(groups)
        ],
    )
    expected = {0.0: '[["country",null]]', 1.0: "[]", 2.0: '[["country","DE"]]', 3.0: '[["x","1"]]'}
    for frame in (repo.load().to_pandas(), repo.latest("Mean(p)")):
        assert dict(zip(frame.value, frame.group_key, strict=True)) == expected
        # The group column alone shows None for both; group_key keeps them apart.
        assert frame.set_index("value").country.to_dict() == {
            0.0: None,
            1.0: None,
            2.0: "DE",
            3.0: None,
        }
        for value, group_key in expected.items():
            group = dict(json.loads(group_key))
            assert repo.history("Mean(p)", group=group).tolist() == [value]
    verdicts = repo.load_verdicts()
    assert sorted(verdicts.group_key) == sorted(expected.values())
    outcomes = repo.load_outcomes()
    assert sorted(outcomes.group_key) == sorted(expected.values())
    only_null = repo.load().with_group({"country": None}).to_pandas()
    assert only_null.group_key.tolist() == ['[["country",null]]']

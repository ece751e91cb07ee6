"""Planning (join index, WHEN filters), the analyzer's identity and config: no Spark needed."""

from __future__ import annotations

import pytest

from anomaly.accuracy import (
    Accuracy,
    AccuracyState,
    RuleJoinError,
    RuleSyntaxError,
    accuracy_from_dict,
    parse_rule,
    plan_rule,
)
from anomaly.errors import ConfigurationError
from tests.anomaly.accuracy.data import EXAMPLE_1, EXAMPLE_2


def keys(rule: str, index: tuple[str, ...] = ()) -> list[str]:
    return [f"{k.source}={k.target}" for k in plan_rule(parse_rule(rule), index).keys]


def test_index_is_every_top_level_equality_between_the_two_sides() -> None:
    rule = (
        "$target.a = $source.a AND $source.b + 1 = $target.b AND $source.c < $target.c "
        "AND $source.d = 1 AND $target.e = $target.f AND ($source.g = $target.g OR $source.h = 2)"
    )
    assert keys(rule) == ["$source.a=$target.a", "($source.b + 1)=$target.b"]
    assert len(plan_rule(parse_rule(rule)).conditions) == 6


def test_seed_examples_index() -> None:
    assert len(keys(EXAMPLE_1)) == 7
    # Example 2: the IF guard is a condition, its two JSON equalities are the index.
    plan = plan_rule(parse_rule(EXAMPLE_2))
    assert [str(k.source) for k in plan.keys] == [
        "$source.json().seeds.json().url",
        "$source.json().seeds.json().metadata.json().tracker.crawlRequestCreateTS",
    ]
    assert str(plan.conditions[0]) == "(($source.__time + 24h) <= $target.__time)"


def test_explicit_index_as_in_the_seed() -> None:
    rule = (
        "$source.uid = $target.uid and $source.itemid = $target.itemid and "
        "$source.timestamp = $target.timestamp"
    )
    assert keys(rule, ("uid", "timestamp")) == [
        "$source.uid=$target.uid",
        "$source.timestamp=$target.timestamp",
    ]
    assert keys(rule, ("$target.itemid",)) == ["$source.itemid=$target.itemid"]
    with pytest.raises(ConfigurationError, match=r"index 'user' names no equality.*uid, itemid"):
        keys(rule, ("user",))


@pytest.mark.parametrize(
    ("rule", "message", "column"),
    [
        ("$source.a = 1 AND $target.b = 2", "nothing to join on", 1),
        ("$source.a < $target.a", "nothing to join on", 1),
        ("$source.a = $target.a OR $source.b = $target.b", "top level is OR", 23),
        ("NOT $source.a = $target.a", "top level is NOT", 1),
        ("$source.a + $target.a = 1", "nothing to join on", 1),
        ("$source.id = $target.id WHEN $source.t < $target.t", "cannot compare the two", 30),
    ],
)
def test_rules_without_a_usable_join_fail_with_the_position(
    rule: str, message: str, column: int
) -> None:
    with pytest.raises(RuleJoinError, match=message) as caught:
        plan_rule(parse_rule(rule))
    assert caught.value.column == column


def test_when_conditions_filter_each_side() -> None:
    plan = plan_rule(
        parse_rule(
            "$source.id = $target.id WHEN $source.day = '2024-01-01' AND $target.live = true "
            "AND 1 = 1"
        )
    )
    assert [str(c) for c in plan.source_filters] == ["($source.day = '2024-01-01')", "(1 = 1)"]
    assert [str(c) for c in plan.target_filters] == ["($target.live = true)"]


def test_metric_id_is_stable_and_human_readable() -> None:
    a = Accuracy("orders_copy", "$source.id =  $target.id\n AND $source.n >= $target.n")
    b = Accuracy("orders_copy", "$source.id = $target.id AND $source.n >= $target.n")
    assert a == b and hash(a) == hash(b)
    assert (
        a.metric_id == "Accuracy(orders_copy: $source.id = $target.id AND $source.n >= $target.n)"
    )
    assert (a.entity, a.instance, a.metric_name) == ("Dataset", "orders_copy", "Accuracy")
    filtered = Accuracy("t", "$source.id = $target.id", where="day = '2024-01-01'")
    assert filtered.metric_id == "Accuracy(t: $source.id = $target.id) where: day = '2024-01-01'"
    # The index and the sample size do not change the value, so not the id either.
    same = Accuracy("orders_copy", b.rule, index="id", sample_size=3)
    assert same.metric_id == b.metric_id and same.index == ("id",)
    assert a != Accuracy("other", b.rule)


def test_construction_errors() -> None:
    with pytest.raises(RuleSyntaxError, match="column 14"):
        Accuracy("t", "$source.id = ")
    with pytest.raises(RuleJoinError, match="nothing to join on"):
        Accuracy("t", "$source.id = 1")
    with pytest.raises(ConfigurationError, match="target must be"):
        Accuracy(" ", "$source.id = $target.id")
    with pytest.raises(ConfigurationError, match="sample_size must be"):
        Accuracy("t", "$source.id = $target.id", sample_size=-1)


def test_metric_records_accuracy_first_then_counts() -> None:
    a = Accuracy("t", "$source.id = $target.id AND $source.x = $target.x")
    sample = ((5, (1, "a")), (-3, (2, None)), (9, (1, "a")))
    metric = a.metric(AccuracyState(7, 10, sample, limit=3), {"g": "x"})
    assert metric.value == 0.7
    assert [(r.name, r.metric_id, r.value, dict(r.group)) for r in metric.records()] == [
        ("Accuracy", a.metric_id, 0.7, {"g": "x"}),
        ("Accuracy.matched", f"{a.metric_id}[matched]", 7.0, {"g": "x"}),
        ("Accuracy.total", f"{a.metric_id}[total]", 10.0, {"g": "x"}),
    ]
    assert metric.unmatched == (  # type: ignore[attr-defined]
        {"$source.id": 2, "$source.x": None},
        {"$source.id": 1, "$source.x": "a"},
    )
    empty = a.metric(AccuracyState.identity())
    assert not empty.succeeded and "no source rows" in (empty.error or "")


def test_from_dict() -> None:
    spec = {
        "target": "customers_copy",
        "rule": "$source.uid = $target.uid AND\n$source.ts = $target.ts",
        "where": "day = '2024-01-01'",
        "index": "uid",
        "sample_size": 0,
    }
    a = accuracy_from_dict(spec)
    assert a == Accuracy(
        "customers_copy", "$source.uid = $target.uid AND $source.ts = $target.ts",
        "day = '2024-01-01'", ("uid",), 0,
    )  # fmt: skip
    assert accuracy_from_dict({**spec, "where": None, "index": ["ts"]}).index == ("ts",)


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ([("target", "t")], "expected a mapping"),
        ({"rule": "$source.a = $target.a"}, "missing required key 'target'"),
        ({"target": "t"}, "missing required key 'rule'"),
        ({"target": "t", "rule": "$source.a = $target.a", "idx": "a"}, "unknown key 'idx'"),
        ({"target": 3, "rule": "$source.a = $target.a"}, "'target' must be"),
        ({"target": "t", "rule": None}, "'rule' must be a rule string"),
        ({"target": "t", "rule": "$source.a = $target.a", "sample_size": "5"}, "'sample_size'"),
        ({"target": "t", "rule": "$source.a = $target.a", "sample_size": True}, "'sample_size'"),
        ({"target": "t", "rule": "$source.a = $target.a", "index": [1]}, "'index' must be"),
        ({"target": "t", "rule": "$source.a = $target.a", "index": "b"}, "index 'b' names"),
        ({"target": "t", "rule": "$source.a = "}, "expected a value"),
    ],
)
def test_from_dict_errors_name_the_key(spec: object, message: str) -> None:
    with pytest.raises(ConfigurationError, match=message):
        accuracy_from_dict(spec)  # type: ignore[arg-type]

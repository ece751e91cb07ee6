from __future__ import annotations

import os

import pytest

from repository import AnalyzerState, MetricsRepository


def state(
    partition: str, metric_id: str, payload: bytes, kind: str = "frequencies"
) -> AnalyzerState:
    return AnalyzerState(partition, metric_id, kind, 2, payload)


def test_states_round_trip_with_kind_and_format_version(repo: MetricsRepository) -> None:
    big = os.urandom(12 * 1024 * 1024)  # a large frequency state
    written = repo.states.replace_partitions(
        "orders",
        [
            state("2024-05-01", "CountDistinct(id)", big),
            state("2024-05-01", "Mean(price)", b"\x00sum\x00count", kind="mean"),
            state("2024-05-02", "Mean(price)", b""),
        ],
    )
    assert written == 3
    loaded = repo.states.load("orders")
    assert [(s.partition, s.metric_id, s.kind, s.format_version) for s in loaded] == [
        ("2024-05-01", "CountDistinct(id)", "frequencies", 2),
        ("2024-05-01", "Mean(price)", "mean", 2),
        ("2024-05-02", "Mean(price)", "frequencies", 2),
    ]
    assert loaded[0].payload == big and loaded[1].payload == b"\x00sum\x00count"
    assert [s.payload for s in repo.states.load("orders", partitions=["2024-05-02"])] == [b""]
    assert [s.partition for s in repo.states.load("orders", metrics=["Mean(price)"])] == [
        "2024-05-01",
        "2024-05-02",
    ]
    assert repo.states.load("users") == []


def test_replace_partitions_swaps_whole_partitions_only(repo: MetricsRepository) -> None:
    repo.states.replace_partitions(
        "orders", [state("p1", "a", b"1"), state("p1", "b", b"1"), state("p2", "a", b"2")]
    )
    repo.states.replace_partitions("users", [state("p1", "a", b"u")])
    repo.states.replace_partitions("orders", [state("p1", "a", b"new")])

    assert [(s.partition, s.metric_id, s.payload) for s in repo.states.load("orders")] == [
        ("p1", "a", b"new"),
        ("p2", "a", b"2"),
    ]  # p1's "b" is gone, p2 untouched
    assert repo.states.load("users")[0].payload == b"u"
    repo.states.replace_partitions("orders", [], partitions=["p2"])  # empty a partition
    assert repo.states.partitions("orders") == ["p1"]
    assert repo.states.datasets() == ["orders", "users"]


def test_a_rejected_replace_changes_nothing(repo: MetricsRepository) -> None:
    repo.states.replace_partitions("orders", [state("p1", "a", b"old")])
    with pytest.raises(ValueError, match="two states for partition 'p2' and metric 'a'"):
        repo.states.replace_partitions(
            "orders", [state("p1", "a", b"x"), state("p2", "a", b"y"), state("p2", "a", b"z")]
        )
    with pytest.raises(ValueError, match="not among the partitions"):
        repo.states.replace_partitions("orders", [state("p3", "a", b"x")], partitions=["p1"])
    assert [(s.partition, s.payload) for s in repo.states.load("orders")] == [("p1", b"old")]


def test_list_and_delete_partitions(repo: MetricsRepository) -> None:
    repo.states.replace_partitions(
        "orders", [state(p, m, b"s") for p in ("p1", "p2", "p3") for m in ("a", "b")]
    )
    assert repo.states.partitions("orders") == ["p1", "p2", "p3"]
    assert repo.states.delete_partitions("orders", ["p1", "p3", "p9"]) == 4
    assert repo.states.partitions("orders") == ["p2"]
    with repo.sql() as cur:
        assert cur.execute(
            "SELECT partition, payload_bytes FROM analyzer_state_index ORDER BY 1, 2"
        ).fetchall() == [("p2", 1), ("p2", 1)]


def test_bad_states_are_rejected() -> None:
    with pytest.raises(TypeError, match="payload must be bytes"):
        AnalyzerState("p", "m", "k", 1, "text")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="format_version must be an int"):
        AnalyzerState("p", "m", "k", "1", b"")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="partition must be a non-empty str"):
        AnalyzerState("", "m", "k", 1, b"")

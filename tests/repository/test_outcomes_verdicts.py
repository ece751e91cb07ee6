from __future__ import annotations

import pandas as pd
import pytest

from repository import AnomalyVerdict, CheckOutcome, MetricsRepository
from repository.outcomes import OUTCOME_COLUMNS
from repository.verdicts import VERDICT_COLUMNS
from tests.repository.conftest import day, key, size


def outcome(
    constraint: str, status: str, check: str = "orders", **group: str | None
) -> CheckOutcome:
    return CheckOutcome(
        check,
        constraint,
        status,
        level="Error",
        message=None if status == "Success" else "too small",
        metric_id="Size(*)",
        value=5.0,
        lower=10.0,
        group=group,
    )


def test_outcomes_round_trip_with_groups_and_tags(repo: MetricsRepository) -> None:
    repo.save(
        key(0, dataset="orders", env="prod"),
        [size(5.0)],
        outcomes=[
            outcome("has_size(>= 10)", "Failure", country="DE"),
            outcome("is_complete(id)", "Success"),
        ],
    )
    frame = repo.load_outcomes(tags={"dataset": "orders"})
    assert list(frame.columns) == [*OUTCOME_COLUMNS, "country", "dataset", "env"]
    assert frame[["constraint", "status", "country", "lower"]].to_dict("records") == [
        {"constraint": "has_size(>= 10)", "status": "Failure", "country": "DE", "lower": 10.0},
        {"constraint": "is_complete(id)", "status": "Success", "country": None, "lower": 10.0},
    ]
    assert frame.upper.isna().all()  # no upper bound: a null number is NaN in pandas
    assert frame.timestamp.tolist() == [pd.Timestamp(day(0))] * 2
    assert repo.load_outcomes(statuses=["Failure"]).constraint.tolist() == ["has_size(>= 10)"]
    empty = repo.load_outcomes(tags={"dataset": "nope"})
    assert empty.empty and list(empty.columns) == [*OUTCOME_COLUMNS, "dataset"]


def test_resaving_a_runs_outcomes_replaces_those_checks_only(repo: MetricsRepository) -> None:
    repo.save_outcomes(
        key(0),
        [outcome("a", "Failure"), outcome("b", "Failure"), outcome("c", "Success", check="users")],
    )
    repo.save_outcomes(key(0), [outcome("a", "Success")])
    frame = repo.load_outcomes()
    assert sorted(zip(frame.check, frame.constraint, frame.status, strict=True)) == [
        ("orders", "a", "Success"),
        ("users", "c", "Success"),
    ]


def test_verdicts_round_trip_and_replace_per_metric_and_detector(repo: MetricsRepository) -> None:
    first = [
        AnomalyVerdict(
            "Size(*)",
            "anomaly",
            "OnlineNormal",
            value=5.0,
            lower=8.0,
            upper=12.0,
            score=0.99,
            detail="[OnlineNormal] below",
            history_length=30,
            group={"country": "DE"},
        ),
        AnomalyVerdict("Size(*)", "normal", "Threshold", value=5.0, history_length=0),
    ]
    repo.save(key(1), [size(5.0)], verdicts=first)
    repo.save_verdicts(
        key(1),
        [AnomalyVerdict("Size(*)", "insufficient_history", "OnlineNormal", timestamp=day(0))],
    )
    frame = repo.load_verdicts()
    assert list(frame.columns) == [*VERDICT_COLUMNS, "dataset"]
    assert sorted(zip(frame.detector, frame.status, strict=True)) == [
        ("OnlineNormal", "insufficient_history"),
        ("Threshold", "normal"),
    ]
    online = frame.set_index("detector").loc["OnlineNormal"]
    assert online.timestamp == pd.Timestamp(day(0))  # the point's time, not the run's
    assert online.run_timestamp == pd.Timestamp(day(1))
    assert repo.load_verdicts(statuses=["normal"], after=day(1)).detector.tolist() == ["Threshold"]
    with_group = repo.load_verdicts(group={"country": "DE"})
    assert with_group.empty and "country" in with_group.columns


def test_metrics_outcomes_and_verdicts_of_a_run_are_saved_together_or_not_at_all(
    repo: MetricsRepository,
) -> None:
    with pytest.raises(TypeError, match="verdicts must be AnomalyVerdict"):
        repo.save(key(0), [size(1.0)], outcomes=[outcome("a", "Success")], verdicts=["anomaly"])  # type: ignore[list-item]
    assert repo.load().get() == [] and repo.load_outcomes().empty


def test_outcome_and_verdict_fields_are_checked() -> None:
    with pytest.raises(ValueError, match="status must be a non-empty str"):
        CheckOutcome("c", "x", "")
    with pytest.raises(TypeError, match="value must be a number"):
        AnomalyVerdict("m", "normal", "d", value="5")  # type: ignore[arg-type]


def test_views_answer_plain_sql(repo: MetricsRepository) -> None:
    repo.save(
        key(0, dataset="orders"),
        [size(5.0)],
        outcomes=[outcome("a", "Failure")],
        verdicts=[AnomalyVerdict("Size(*)", "anomaly", "OnlineNormal", value=5.0)],
    )
    repo.save(key(1, dataset="orders"), [size(7.0)])
    with repo.sql() as cur:
        assert cur.execute(
            "SELECT value FROM metric_history WHERE metric_id = ? AND tags['dataset'] = ? "
            "ORDER BY timestamp",
            ["Size(*)", "orders"],
        ).fetchall() == [(5.0,), (7.0,)]
        assert cur.execute("SELECT value FROM latest_metric_values").fetchall() == [(7.0,)]
        assert cur.execute("SELECT check_name, status FROM check_results").fetchall() == [
            ("orders", "Failure")
        ]
        assert cur.execute("SELECT detector, group_key FROM anomaly_results").fetchall() == [
            ("OnlineNormal", "[]")
        ]


def test_verdict_p_values_round_trip_and_reach_the_view(repo: MetricsRepository) -> None:
    verdicts = [
        AnomalyVerdict("Size(*)", "anomaly", "Adaptive", 1.0, p_value=3.5e-9, group={"c": "x"}),
        AnomalyVerdict("Size(*)", "normal", "Adaptive", 2.0, p_value=0.4, group={"c": "y"}),
        AnomalyVerdict("Size(*)", "normal", "RobustMAD", value=2.0, group={"c": "y"}),
    ]
    repo.save(key(0, dataset="orders"), [size(5.0)], verdicts=verdicts)
    frame = repo.load_verdicts(metrics=["Size(*)"]).sort_values(["detector", "c"])
    assert frame["p_value"].tolist()[:2] == [3.5e-9, 0.4]
    assert pd.isna(frame["p_value"].tolist()[2])
    with repo.sql() as cur:
        [(smallest,)] = cur.execute("SELECT min(p_value) FROM anomaly_results").fetchall()
    assert smallest == 3.5e-9
    with pytest.raises(TypeError, match="p_value"):
        AnomalyVerdict("Size(*)", "anomaly", "Adaptive", p_value="small")  # type: ignore[arg-type]

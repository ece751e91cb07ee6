"""Scores on hand-made verdicts: every count and rate as the docs define it."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from anomaly.backtest import LabeledSeries, Score, backtest
from anomaly.backtest.scoring import incidents, score
from detectors import SimpleThreshold

OK, ALERT, SHORT = 0, 1, 2  # detector status codes: ok, anomaly, insufficient history


def flags(text: str) -> np.ndarray:
    return np.array([c == "x" for c in text])


def test_counts_rates_and_delays() -> None:
    codes = np.array([SHORT, OK, ALERT, OK, OK, ALERT, ALERT, OK, ALERT, OK], dtype=np.int8)
    incident = flags("....xxx...")  # one incident of three points, caught on its second
    expected = flags("........x.")  # an alert on a planned change: neither right nor wrong
    times = pd.date_range("2024-05-01", periods=10, freq="D")
    result, events = score(codes, incident, expected, times)
    assert result == Score(
        points=9, insufficient=1, alerts=4, true_alerts=2, false_alerts=1, expected_alerts=1,
        normal_points=5, incidents=1, detected=1, delays=(1,), delay_seconds=(86400.0,),
    )  # fmt: skip
    assert (result.precision, result.recall) == (2 / 3, 1.0)
    assert math.isclose(result.f1, 0.8)
    assert (result.alert_rate, result.false_alert_rate, result.mean_delay) == (4 / 9, 0.2, 1.0)
    assert events == [
        {
            "start": times[4], "end": times[6], "points": 3, "detected": True, "delay": 1,
            "delay_seconds": 86400.0,
        }
    ]  # fmt: skip


def test_an_incident_the_detector_could_not_judge_is_missed() -> None:
    codes = np.array([SHORT, SHORT, OK, OK], dtype=np.int8)
    result, events = score(codes, flags("x..."), flags("...."), pd.RangeIndex(4))
    assert (result.incidents, result.detected, result.recall) == (1, 0, 0.0)
    assert events[0]["delay"] is None and math.isnan(result.mean_delay)
    assert math.isnan(result.precision) and math.isnan(result.f1)  # no alert at all


def test_rates_are_nan_when_undefined_and_scores_add_up() -> None:
    empty = Score()
    assert all(math.isnan(getattr(empty, r)) for r in ("precision", "recall", "alert_rate"))
    one = Score(points=4, alerts=1, true_alerts=1, incidents=2, detected=1, delays=(3,))
    two = Score(points=6, alerts=2, false_alerts=2, normal_points=6, delays=())
    both = one + two
    assert (both.points, both.alerts, both.precision, both.recall) == (10, 3, 1 / 3, 0.5)
    assert both.f1 == 0.4 and both.mean_delay == 3.0


def test_runs_of_incident_points_are_one_incident_each() -> None:
    assert incidents(flags("xx..x.xxx")) == [(0, 1), (4, 4), (6, 8)]
    assert incidents(flags("....")) == []


def test_backtest_summary_events_and_json_agree() -> None:
    values = [1.0, 1.0, 9.0, 9.0, 1.0, 1.0, 9.0, 1.0]
    series = LabeledSeries.build(
        "Size(*)", pd.Series(values, index=pd.date_range("2024-01-01", periods=8, tz="UTC")),
        group={"country": "DE"}, incident=flags("..xx...."), expected=flags("......x."),
    )  # fmt: skip
    result = backtest(series, SimpleThreshold(upper_bound=5))
    summary = result.summary().iloc[0]
    assert summary["group"] == "country=DE" and summary["metric_id"] == "Size(*)"
    assert (summary["alerts"], summary["true_alerts"], summary["expected_alerts"]) == (3, 2, 1)
    assert summary["precision"] == 1.0 and summary["mean_delay_seconds"] == 0.0
    events = result.events()
    assert events[["points", "detected", "delay"]].values.tolist() == [[2, True, 0]]
    payload = result.to_dict()
    assert payload["totals"][0]["recall"] == 1.0 and payload["totals"][0]["mean_delay"] == 0.0
    assert payload["series"][0]["false_alert_rate"] == 0.0
    assert payload["incidents"][0]["start"] == "2024-01-03T00:00:00+00:00"
    assert "SimpleThreshold(upper_bound=5)" in result.table()

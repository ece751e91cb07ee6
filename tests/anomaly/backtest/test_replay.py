"""The backtest replays exactly what the scheduled check would have seen, day by day."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from anomaly.backtest import LabeledSeries, backtest
from detectors import (
    AbsoluteChange,
    AlertFatigue,
    AnyOf,
    BatchNormal,
    HoltWinters,
    KOfLastN,
    OnlineNormal,
    RelativeRateOfChange,
    RobustMAD,
    SeasonalArima,
    SimpleThreshold,
    is_newest_anomalous,
)
from repository import Annotation

WEEK = np.array([10.0, 12.0, 14.0, 13.0, 11.0, 5.0, 4.0])


def weekly(weeks: int, seed: int = 0) -> pd.Series:
    rng = np.random.default_rng(seed)
    values = np.tile(WEEK, weeks) + rng.normal(0, 0.3, 7 * weeks)
    values[[17, 25]] += [9.0, -6.0]  # a spike, and a drop
    times = pd.date_range("2024-05-01", periods=len(values), freq="D", tz="UTC")
    return pd.Series(values, index=times, name="Size(*)")


def day_by_day(points: pd.Series, excluded: set[int], detector: object, since: int) -> list:
    """What ``is_newest_anomalous`` said each day, with excluded points out of the history."""
    verdicts = []
    for t in range(since, len(points)):
        history = points.iloc[[j for j in range(t) if j not in excluded]]
        verdicts.append(is_newest_anomalous(history, (points.index[t], points.iloc[t]), detector))
    return verdicts


CHEAP = [
    OnlineNormal(),
    OnlineNormal(prediction_interval=False),
    OnlineNormal(include_current_point=True),
    OnlineNormal(ignore_anomalies=False, lower_deviation_factor=None),
    BatchNormal(),
    RobustMAD(min_history=3),
    AbsoluteChange(-3.0, 3.0),
    RelativeRateOfChange(0.5, 2.0, order=7),
    SimpleThreshold(upper_bound=15),
    KOfLastN(RobustMAD(min_history=3), 2, 3),
    AnyOf(OnlineNormal(), RelativeRateOfChange(0.5, 2.0)),
    AlertFatigue(OnlineNormal(), first_of_run=True, cooldown=2),
    AlertFatigue(RobustMAD(), min_relative_change=0.2, k=1, n=1, cooldown=1),
]
SLOW = [HoltWinters(period=7), SeasonalArima(seasonal_order=(0, 1, 1, 7))]


@pytest.mark.parametrize("detector", CHEAP + SLOW, ids=lambda d: type(d).__name__)
def test_backtest_equals_is_newest_anomalous_day_by_day(detector: object) -> None:
    points = weekly(4)
    since = 26 if detector in SLOW else 0  # each slow check fits a model: judge fewer days
    excluded = {17}  # the spike was fixed upstream and annotated
    labels = [Annotation("excluded", points.index[17])]
    result = backtest(points, detector, labels=labels, since=points.index[since])
    (evaluation,) = result.evaluations.values()
    expected = day_by_day(points, excluded, detector, since)
    assert evaluation.index.tolist() == list(range(since, len(points)))
    assert [str(s) for s in evaluation.status] == [str(v.status) for v in expected]
    np.testing.assert_array_equal(evaluation.lower, [v.lower for v in expected])
    np.testing.assert_array_equal(evaluation.upper, [v.upper for v in expected])
    assert list(evaluation.detail) == [v.detail for v in expected]


def test_excluded_points_are_judged_but_never_history() -> None:
    points = weekly(4)
    labels = [Annotation("excluded", points.index[17])]
    honoured = backtest(points, RobustMAD(), labels=labels).points()
    raw = backtest(points, RobustMAD(), labels=labels, exclude_annotated=False).points()
    assert honoured["excluded"].iloc[17] and honoured["alert"].iloc[17]  # still judged
    assert honoured["upper"].iloc[:18].equals(raw["upper"].iloc[:18])
    assert (honoured["upper"].iloc[18:] != raw["upper"].iloc[18:]).any()  # baselines changed


def test_no_future_point_changes_a_verdict() -> None:
    points = weekly(4)
    detectors = [OnlineNormal(), RobustMAD(), AlertFatigue(OnlineNormal(), cooldown=3)]
    before = backtest(points, detectors).points()
    future = points.copy()
    future.iloc[20:] = 1e9
    after = backtest(future, detectors).points()
    past = before["timestamp"] < points.index[20]
    pd.testing.assert_frame_equal(before[past], after[after["timestamp"] < points.index[20]])


def test_since_and_until_bound_the_judged_points_not_the_history() -> None:
    points = weekly(4)
    window = backtest(points, OnlineNormal(), since="2024-05-10", until="2024-05-20T00:00Z")
    whole = backtest(points, OnlineNormal())
    (evaluation,) = window.evaluations.values()
    assert [points.index[i].day for i in evaluation.index] == list(range(10, 21))
    full = whole.evaluations[("OnlineNormal()", 0)]
    np.testing.assert_array_equal(evaluation.upper, full.upper[9:20])
    assert window.totals()["points"].iloc[0] == 11


def test_several_detectors_side_by_side_with_names() -> None:
    points = weekly(4)
    same = backtest(points, [OnlineNormal(), OnlineNormal(), RobustMAD(window=7)])
    assert list(same.detectors) == ["OnlineNormal()", "OnlineNormal() #2", "RobustMAD(window=7)"]
    named = backtest(
        points, {"mine": RobustMAD(), "deequ": OnlineNormal(include_current_point=True)}
    )
    assert named.totals()["detector"].tolist() == ["mine", "deequ"]
    with pytest.raises(TypeError, match="'x' is not a detector"):
        backtest(points, {"x": 42})
    with pytest.raises(ValueError, match="at least one detector"):
        backtest(points, [])


def test_labelled_series_from_bare_values_and_flags() -> None:
    series = LabeledSeries.build("m", [1.0, 1.1, 0.9, 1.0, 9.0], incident=[0, 0, 0, 0, 1])
    result = backtest([series, series], SimpleThreshold(upper_bound=5))
    totals = result.totals().iloc[0]
    assert (totals["series"], totals["incidents"], totals["detected"]) == (2, 2, 2)
    assert math.isclose(totals["precision"], 1.0) and totals["false_alerts"] == 0
    with pytest.raises(ValueError, match=r"incident needs one flag per point \(5\), got 2"):
        LabeledSeries.build("m", [1.0, 2, 3, 4, 5], incident=[True, False])

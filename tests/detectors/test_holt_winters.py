from __future__ import annotations

import math

import numpy as np
import pytest

from detectors import HoltWinters, Status
from detectors.holt_winters import one_step_forecasts
from tests.detectors.data import WEEK, weekly


def test_recursion_matches_a_hand_computed_run() -> None:
    # period 2: level 2, trend ((2+4)-(1+3))/4 = 0.5, seasons [-1, 1]; alpha=1 tracks y - season
    assert one_step_forecasts([1.0, 3.0, 2.0, 4.0], 2, 1.0, 0.0, 0.0) == [1.5, 3.5, 1.5, 4.5, 2.5]
    # no smoothing at all repeats the initial state
    assert one_step_forecasts([1.0, 3.0, 1.0, 3.0], 2, 0.0, 0.0, 0.0) == [1.0, 3.0, 1.0, 3.0, 1.0]


def test_missing_and_screened_observations_move_the_state_as_forecast() -> None:
    params = (0.5, 0.1, 0.1)
    with_gap = one_step_forecasts([1.0, 3.0, 2.0, 4.0, 2.0, math.nan, 3.0], 2, *params)
    filled = one_step_forecasts([1.0, 3.0, 2.0, 4.0, 2.0, with_gap[5], 3.0], 2, *params)
    assert with_gap[6] == filled[6]
    screened = one_step_forecasts([1.0, 3.0, 2.0, 4.0, 2.0, 99.0, 3.0], 2, *params, 5.0, 4)
    assert screened[6] == filled[6]


@pytest.mark.parametrize(
    ("name", "tail", "flagged"),
    [
        ("normal week", list(WEEK[:3]), []),
        ("spike", [10.0, 12.0, 30.0], [2]),
        ("drop to zero", [10.0, 0.0, 14.0], [1]),
        ("weekend level on a weekday", [5.0, 12.0, 14.0], [0]),
    ],
)
def test_weekly_seasonality(name: str, tail: list[float], flagged: list[int]) -> None:
    history = weekly(6, noise=0.3, seed=3)
    series = np.concatenate([history, tail])
    start = len(history)
    found = [a.index - start for a in HoltWinters(7).detect(series, (start, len(series)))]
    assert found == flagged, name


def test_needs_two_full_periods() -> None:
    series = weekly(3, seed=1)
    evaluation = HoltWinters(7).evaluate(series, (10, 21))
    assert evaluation.status[:4] == [Status.INSUFFICIENT_HISTORY] * 4
    assert "needs two full periods (14 finite points)" in evaluation.detail[0]
    assert Status.INSUFFICIENT_HISTORY not in evaluation.status[4:]
    assert not np.isnan(evaluation.upper[4:]).any()


def test_an_exact_cycle_forecasts_itself_with_a_zero_width_band() -> None:
    # every one-step error is 0, so any parameters fit, the forecast is the cycle and sd is 0
    series = [*np.tile(WEEK, 4), 10.5]
    evaluation = HoltWinters(7).evaluate(series, (28, 29))
    assert evaluation.lower[0] == pytest.approx(WEEK[0])
    assert evaluation.upper[0] == pytest.approx(WEEK[0])
    assert evaluation.status == [Status.ANOMALY]
    assert evaluation.detail[0].startswith("[HoltWinters] Forecasted 10.0")


def test_constant_series_has_no_anomalies_and_nan_is_missing() -> None:
    assert HoltWinters(3).detect([4.0] * 12) == []
    series = np.concatenate([weekly(4, seed=5), [math.nan, 12.0]])
    evaluation = HoltWinters(7).evaluate(series, (28, 30))
    assert evaluation.status[0] is Status.MISSING
    assert evaluation.status[1] is not Status.INSUFFICIENT_HISTORY

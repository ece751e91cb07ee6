from __future__ import annotations

import math

import numpy as np
import pytest

from detectors import SeasonalArima, Status
from tests.detectors.data import noisy_level, weekly

WEEKLY = SeasonalArima(seasonal_order=(0, 1, 1, 7))


@pytest.mark.parametrize(
    ("name", "last", "status"),
    [
        ("expected Monday", 10.0, Status.OK),
        ("spike", 20.0, Status.ANOMALY),
        ("drop", 2.0, Status.ANOMALY),
    ],
)
def test_weekly_seasonality(name: str, last: float, status: Status) -> None:
    series = [*weekly(8, seed=4), last]
    evaluation = WEEKLY.evaluate(series, (56, 57))
    assert evaluation.status == [status], name
    assert evaluation.lower[0] < 10.0 < evaluation.upper[0]


def test_period_is_inferred_from_the_history() -> None:
    series = [*weekly(8, seed=4), 20.0]
    (anomaly,) = SeasonalArima().detect(series, (56, 57))
    assert "SARIMA(0,1,1)x(0,1,1,7)" in anomaly.detail
    assert anomaly.detail.startswith("[SeasonalArima] Value 20.0 is outside the 99% one-step")
    assert anomaly.confidence > 0.99


def test_interval_points_are_predicted_one_step_ahead_from_the_observed_points() -> None:
    # After a level shift at the interval start the state follows the observed points, so the
    # band climbs; a multi-step forecast from the history would stay flat at 10.
    series = np.concatenate(
        [noisy_level(40, 10.0, 0.3, seed=1), noisy_level(10, 20.0, 0.3, seed=2)]
    )
    evaluation = SeasonalArima(seasonal_order=(0, 0, 0)).evaluate(series, (40, 50))
    centre = (evaluation.lower + evaluation.upper) / 2
    assert evaluation.status[0] is Status.ANOMALY
    assert (np.diff(centre) > 0).all()
    assert centre[-1] > centre[0] + 1
    ar = SeasonalArima(order=(1, 0, 0), seasonal_order=(0, 0, 0)).evaluate(series, (40, 50))
    assert ar.status[0] is Status.ANOMALY and ar.lower[-1] > 15


def test_too_little_history_is_a_result() -> None:
    evaluation = WEEKLY.evaluate([1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 50.0], (7, 8))
    assert evaluation.status == [Status.INSUFFICIENT_HISTORY]
    assert "7 finite points before index 7, needs 8" in evaluation.detail[0]


def test_history_too_short_for_the_period_drops_the_seasonal_part() -> None:
    evaluation = WEEKLY.evaluate([*weekly(2, seed=1), 11.0], (14, 15))
    assert evaluation.status[0] in (Status.OK, Status.ANOMALY)
    assert "too short for period 7 (needs 22): fitted without seasonality" in evaluation.detail[0]


def test_constant_history_falls_back_and_says_so() -> None:
    evaluation = WEEKLY.evaluate([5.0] * 20 + [5.0, 6.0], (20, 22))
    assert evaluation.status == [Status.OK, Status.ANOMALY]
    assert (evaluation.lower[1], evaluation.upper[1]) == (5.0, 5.0)
    assert all(
        "Fell back to mean +- z * sd: the history is constant" in d for d in evaluation.detail
    )


def test_a_fit_that_does_not_converge_falls_back_instead_of_failing() -> None:
    tiny = np.random.default_rng(0).normal(0, 1, 30) * 1e-300
    evaluation = SeasonalArima(seasonal_order=(0, 0, 0)).evaluate([*tiny, 0.0], (30, 31))
    assert "Fell back to mean +- z * sd: SARIMAX did not converge" in evaluation.detail[0]


def test_nan_in_history_is_tolerated_and_nan_in_interval_is_missing() -> None:
    series = weekly(8, seed=4)
    series[[10, 30]] = math.nan
    evaluation = WEEKLY.evaluate([*series, math.nan, 20.0], (56, 58))
    assert evaluation.status == [Status.MISSING, Status.ANOMALY]


def test_alpha_sets_the_width_and_max_history_the_data_fitted() -> None:
    series = [*weekly(8, seed=4), 10.0]
    wide = WEEKLY.evaluate(series, (56, 57))
    narrow = SeasonalArima(seasonal_order=(0, 1, 1, 7), alpha=0.2).evaluate(series, (56, 57))
    assert narrow.upper[0] - narrow.lower[0] < wide.upper[0] - wide.lower[0]
    shifted = np.concatenate([noisy_level(60, 1000.0, 30.0), noisy_level(30, 10.0, 0.5), [10.0]])
    recent = SeasonalArima(seasonal_order=(0, 0, 0), max_history=30).evaluate(shifted, (90, 91))
    everything = SeasonalArima(seasonal_order=(0, 0, 0), max_history=None).evaluate(
        shifted, (90, 91)
    )
    assert recent.upper[0] - recent.lower[0] < everything.upper[0] - everything.lower[0]

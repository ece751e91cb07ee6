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


def _fitted_residuals(series: np.ndarray, period: int) -> np.ndarray:
    """The one-step residuals of the history, fitted as HoltWinters fits them."""
    from scipy.optimize import minimize

    from detectors.holt_winters import START, _squared_error

    training = series.tolist()
    fit = minimize(
        _squared_error, np.array(START), args=(training, period), method="L-BFGS-B",
        bounds=[(0.0, 1.0)] * 3,
    )  # fmt: skip
    forecasts = one_step_forecasts(training, period, *fit.x.tolist())
    return series - np.array(forecasts[: len(series)])


HISTORY = weekly(8, noise=0.5, seed=4)


@pytest.mark.parametrize(
    ("factor", "half_width"),
    [
        # Deequ: 1.96 sd of the absolute residuals
        (None, lambda r: 1.96 * np.std(np.abs(r), ddof=1)),
        # k standard deviations of the residuals (their root mean square)
        (1.0, lambda r: np.sqrt(np.mean(r**2))),
        (3.0, lambda r: 3 * np.sqrt(np.mean(r**2))),
        (4.5, lambda r: 4.5 * np.sqrt(np.mean(r**2))),
    ],
)
def test_band_half_width(factor: float | None, half_width: object) -> None:
    series = np.append(HISTORY, 11.0)
    evaluation = HoltWinters(7, factor).evaluate(series, (len(HISTORY), len(series)))
    expected = half_width(_fitted_residuals(HISTORY, 7))  # type: ignore[operator]
    assert (evaluation.upper[0] - evaluation.lower[0]) / 2 == pytest.approx(expected, rel=1e-9)


def test_deequ_band_is_about_1_2_residual_sds_and_the_default() -> None:
    residuals = _fitted_residuals(HISTORY, 7)
    ratio = 1.96 * np.std(np.abs(residuals), ddof=1) / np.sqrt(np.mean(residuals**2))
    assert 0.9 < ratio < 1.5  # ~1.18 for normal residuals: far from a 95% band
    assert HoltWinters(7) == HoltWinters(7, None) == HoltWinters(period=7, deviation_factor=None)
    assert HoltWinters(7, 3.0) != HoltWinters(7)
    assert repr(HoltWinters(7, 3.0)) == "HoltWinters(period=7, deviation_factor=3.0)"


@pytest.mark.parametrize(
    ("tail", "deequ", "wide"),
    [
        ("normal week", [], []),
        ("drop to zero", [1], [1]),
        ("spike", [2], [2]),
        # ~2 residual sds off: Deequ's band flags it, a 3-sd band does not
        ("mild wobble", [0], []),
    ],
)
def test_wider_band_flags_less(tail: str, deequ: list[int], wide: list[int]) -> None:
    sd = float(np.sqrt(np.mean(_fitted_residuals(HISTORY, 7) ** 2)))
    week = {
        "normal week": [10.0, 12.0, 14.0],
        "drop to zero": [10.0, 0.0, 14.0],
        "spike": [10.0, 12.0, 30.0],
        "mild wobble": [10.0 + 2.2 * sd, 12.0, 14.0],
    }[tail]
    series = np.concatenate([HISTORY, week])
    start = len(HISTORY)
    for factor, flagged in ((None, deequ), (3.0, wide)):
        found = [a.index - start for a in HoltWinters(7, factor).detect(series, (start, None))]
        assert found == flagged, (tail, factor)


@pytest.mark.parametrize("factor", [0, 0.0, -1.0, math.nan, math.inf, "3", True, [3.0]], ids=repr)
def test_bad_deviation_factor(factor: object) -> None:
    with pytest.raises(ValueError, match=r"^deviation_factor "):
        HoltWinters(7, factor)  # type: ignore[arg-type]


def test_deviation_factor_loads_from_config() -> None:
    from detectors import load_detector

    assert load_detector("HoltWinters", {"period": 7, "deviation_factor": 3}) == HoltWinters(7, 3)

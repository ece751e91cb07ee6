from __future__ import annotations

import math

import numpy as np
import pytest

from detectors import HoltWinters, Status
from detectors.holt_winters import FORECASTS, one_step_forecasts
from tests.detectors.data import WEEK, JavaRandom, weekly


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
    assert repr(HoltWinters(7, 3.0)) == (
        "HoltWinters(period=7, deviation_factor=3.0, forecast='one_step')"
    )


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


# Deequ's HoltWintersTest, with its data: java.util.Random(42) noise on a weekly profile, and two
# monthly series with a yearly cycle (first four years of each).
DEEQU_RNG = JavaRandom(42)
TWO_WEEKS = [v + DEEQU_RNG.next_gaussian() for v in [1, 1, 1.2, 1.3, 1.5, 2.1, 1.9] * 2]
MILK = [
    589, 561, 640, 656, 727, 697, 640, 599, 568, 577, 553, 582,
    600, 566, 653, 673, 742, 716, 660, 617, 583, 587, 565, 598,
    628, 618, 688, 705, 770, 736, 678, 639, 604, 611, 594, 634,
    658, 622, 709, 722, 782, 756, 702, 653, 615, 621, 602, 635,
]  # fmt: skip
CAR_SALES = [
    6550, 8728, 12026, 14395, 14587, 13791, 9498, 8251, 7049, 9545, 9364, 8456,
    7237, 9374, 11837, 13784, 15926, 13821, 11143, 7975, 7610, 10015, 12759, 8816,
    10677, 10947, 15200, 17010, 20900, 16205, 12143, 8997, 5568, 11474, 12256, 10583,
    10862, 10965, 14405, 20379, 20128, 17816, 12268, 8642, 7962, 13932, 15936, 12628,
]  # fmt: skip
END = 2**31 - 1  # Int.MaxValue
DEEQU_CASES = [
    # name, series, period, interval, Deequ's anomalies, ours with forecast="one_step"
    ("no anomaly for normal errors", [*TWO_WEEKS, TWO_WEEKS[0]], 7, (14, 15), [], None),
    ("an anomaly", [*TWO_WEEKS, 0.0], 7, (14, END), [14], None),
    ("no anomalies on the repeated series", TWO_WEEKS * 2, 7, (26, END), [], None),
    ("constant series", [1.0] * 21, 7, (14, END), [], None),
    ("constant series, one error", [1.0] * 20 + [0.0], 7, (14, END), [20], None),
    ("exact linear trend", [float(t) for t in range(48)], 7, (36, END), [], None),
    ("exact trend and season",
     [math.sin(2 * math.pi / 7 * t) + t for t in range(48)], 7, (36, END), [], None),
    ("wrong training data", [0, 1, 1, 1, 1, 1, 1] * 2 + [1] * 7, 7, (14, 21), [14], None),
    ("monthly milk, last year", MILK, 12, (36, 48), [36, 38, 39, 44, 45, 46, 47], [36, 40, 41]),
    ("monthly car sales, last year", CAR_SALES, 12, (36, 48), [39, 41, 46], [39, 41]),
]  # fmt: skip


@pytest.mark.parametrize(
    ("name", "series", "period", "interval", "deequ", "one_step"),
    DEEQU_CASES,
    ids=[c[0] for c in DEEQU_CASES],
)
def test_deequs_cases(
    name: str, series: list[float], period: int, interval: tuple[int, int], deequ: list[int],
    one_step: list[int] | None,
) -> None:  # fmt: skip
    """``forecast="from_start"`` gives Deequ's anomalies on every case of its test suite (its
    counts: 7 for milk, 3 for car sales); the default differs only on the twelve-point
    intervals, where it forecasts each month from the months before it, not from the start."""
    deequ_way = HoltWinters(period, forecast="from_start").detect(series, interval)
    assert [a.index for a in deequ_way] == deequ
    ours = [a.index for a in HoltWinters(period).detect(series, interval)]
    assert ours == (deequ if one_step is None else one_step)


def test_the_repeated_series_from_its_first_repetition() -> None:
    """The repeated series judged over its whole second half, with only the first half as
    history: Deequ's way and ours both flag two days. The history cannot tell that the series
    repeats with a two-week cycle (its noise does), and a weekly model sees weeks 1 and 2
    differ by up to 2.5; Deequ's own case judges only the last two days (26, 27), after 26
    days of history, and neither flags anything there (above)."""
    series = TWO_WEEKS * 2
    for forecast in FORECASTS:
        found = HoltWinters(7, forecast=forecast).detect(series, (14, 28))
        assert [a.index for a in found] == [21, 23], forecast


def test_bad_forecast() -> None:
    with pytest.raises(ValueError, match=r"^forecast must be one of \['one_step', 'from_start'\]"):
        HoltWinters(7, forecast="multi")


HUGE = 1e154  # its square is near the float limit: Holt-Winters' squared errors overflowed


@pytest.mark.parametrize(
    ("name", "series"),
    [
        ("alternating +-1e154", np.where(np.arange(29) % 2 == 0, HUGE, -HUGE)),
        ("a weekly cycle at 1e300", np.tile(WEEK, 5) * 1e300),
        ("a weekly cycle at 1e-300", np.tile(WEEK, 5) * 1e-300),
        ("1e308 then a small value", np.r_[np.full(14, 1e308), 1.0]),
        ("+-1e154 spikes in the history", np.r_[weekly(4, seed=2), HUGE, -HUGE, WEEK[2]]),
    ],
)
def test_huge_and_tiny_values_are_judged_as_a_result_never_an_exception(
    name: str, series: np.ndarray
) -> None:
    evaluation = HoltWinters(7).evaluate(series, (len(series) - 1, len(series)))
    assert evaluation.status[0] in (Status.OK, Status.ANOMALY), name
    assert math.isfinite(evaluation.lower[0]) and math.isfinite(evaluation.upper[0]), name
    assert "Insufficient history" not in evaluation.detail[0], name


def test_a_cycle_at_any_scale_gets_the_same_verdicts_and_scaled_bands() -> None:
    series = np.r_[weekly(4, noise=0.3, seed=3), 10.0, 12.0, 30.0]
    plain = HoltWinters(7).evaluate(series, (28, 31))
    for scale in (2.0**500, 2.0**-500, 2.0**1000):
        scaled = HoltWinters(7).evaluate(series * scale, (28, 31))
        assert scaled.status == plain.status
        assert np.allclose(scaled.upper / scale, plain.upper, rtol=1e-5)  # the fit's tolerance


def test_an_overflowing_group_does_not_fail_the_others() -> None:
    import pandas as pd

    from detectors import detect_frame

    days = pd.date_range("2024-01-01", periods=29, freq="D")
    normal = np.r_[weekly(4, seed=1), 40.0]
    frame = pd.concat(
        [
            pd.DataFrame(
                {
                    "g": "huge",
                    "timestamp": days,
                    "value": np.r_[normal[:20], HUGE, -HUGE, normal[22:]],
                }
            ),
            pd.DataFrame({"g": "normal", "timestamp": days, "value": normal}),
        ]
    )
    judged = detect_frame(frame, HoltWinters(7), by="g", newest_only=True, anomalies_only=False)
    assert judged.set_index("g")["status"].to_dict() == {"huge": "ok", "normal": "anomaly"}

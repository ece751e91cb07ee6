from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from detectors import OnlineNormal, Status
from tests.detectors.data import deequ_online_normal_data

NAN = math.nan
SERIES = [10.0, 11.0, 9.0, 10.5, 9.5, 10.0, 30.0, 10.2]


def test_bounds_are_mean_and_population_sd_of_earlier_retained_points() -> None:
    evaluation = OnlineNormal(prediction_interval=False).evaluate(SERIES)
    assert evaluation.status[:2] == [Status.INSUFFICIENT_HISTORY] * 2
    assert np.isnan(evaluation.lower[:2]).all()
    # index 2: history [10, 11] -> mean 10.5, population sd 0.5
    assert (evaluation.lower[2], evaluation.upper[2]) == (9.0, 12.0)
    assert evaluation.status[2] is Status.OK  # 9.0 is on the bound: inside
    sd6 = math.sqrt(2.5 / 6)  # history [10, 11, 9, 10.5, 9.5, 10]
    assert evaluation.lower[6] == pytest.approx(10 - 3 * sd6)
    assert evaluation.upper[6] == pytest.approx(10 + 3 * sd6)
    assert [a.index for a in evaluation.anomalies()] == [6]
    # the spike is left out of later statistics
    assert evaluation.upper[7] == evaluation.upper[6]


def test_without_ignore_anomalies_the_spike_widens_later_bounds() -> None:
    evaluation = OnlineNormal(ignore_anomalies=False, prediction_interval=False).evaluate(SERIES)
    history = np.array(SERIES[:7])
    assert evaluation.upper[7] == pytest.approx(history.mean() + 3 * history.std())


@pytest.mark.parametrize(
    ("detector", "series", "interval", "flagged"),
    [
        # Deequ's OnlineNormalStrategyTest, reproduced with include_current_point=True
        (OnlineNormal(3.5, 3.5, 0.2, include_current_point=True), None, None, list(range(20, 31))),
        (
            OnlineNormal(1.5, 1.5, 0.2, include_current_point=True),
            None,
            (25, 31),
            list(range(25, 31)),
        ),
        (OnlineNormal(None, 1.5, include_current_point=True), None, None, list(range(20, 31, 2))),
        (OnlineNormal(1.5, None, include_current_point=True), None, None, list(range(21, 30, 2))),
        (OnlineNormal(1e308, 1e308, include_current_point=True), None, None, []),
        (OnlineNormal(1.5, 1.5, 0.2, include_current_point=True), [1, 1, 1, 2, 1, 1, 1], None, [3]),
        # ours on the same data: the same anomalies where the spikes are clear
        (OnlineNormal(3.5, 3.5, 0.2), None, None, list(range(20, 31))),
        (OnlineNormal(), [], None, []),
        (OnlineNormal(), [5.0], None, []),
        (OnlineNormal(), [5.0] * 20, None, []),
        # a constant history has no spread: any change is an anomaly
        (OnlineNormal(), [5.0] * 10 + [5.1], None, [10]),
        (OnlineNormal(upper_deviation_factor=None), SERIES, None, []),
        (OnlineNormal(lower_deviation_factor=None), SERIES, None, [6]),
    ],
)
def test_flags(
    detector: OnlineNormal,
    series: list[float] | None,
    interval: tuple[int, int] | None,
    flagged: list[int],
) -> None:
    data = deequ_online_normal_data() if series is None else series
    assert [a.index for a in detector.detect(data, interval)] == flagged


def test_deequ_mode_keeps_the_tested_point_in_its_own_statistics() -> None:
    evaluation = OnlineNormal(1.5, 1.5, 0.2, include_current_point=True).evaluate(
        [1, 1, 1, 2, 1, 1, 1]
    )
    assert (evaluation.lower[-1], evaluation.upper[-1]) == (1.0, 1.0)
    # index 3 is tested against the mean and variance of [1, 1, 1, 2]
    assert evaluation.upper[3] == pytest.approx(1.25 + 1.5 * math.sqrt(0.1875))


# Hundredths: subnormal differences would underflow the variance to 0, a float artefact.
@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(-(10**8), 10**8).map(lambda i: i / 100), min_size=1, max_size=10))
def test_deequ_mode_never_fires_on_ten_points_or_fewer(series: list[float]) -> None:
    # max z-score of a point within its own n points is (n - 1) / sqrt(n) < 3 for n <= 10
    detector = OnlineNormal(ignore_start_percentage=0.0, include_current_point=True)
    assert detector.detect(series) == []


def test_default_fires_on_short_histories() -> None:
    assert [a.index for a in OnlineNormal(ignore_start_percentage=0).detect([10, 11, 10, 40])] == [
        3
    ]


def test_level_shift_stays_anomalous_only_while_anomalies_are_ignored() -> None:
    series = [10.0, 10.2, 9.8, 10.1, 9.9, 10.0, 10.1, 9.9, 20.0, 20.1, 19.9, 20.0, 20.2, 19.8]
    sticky = [a.index for a in OnlineNormal().detect(series)]
    assert sticky == list(range(8, 14))
    adapting = [a.index for a in OnlineNormal(ignore_anomalies=False).detect(series)]
    assert adapting[0] == 8 and 13 not in adapting


def test_deequ_mode_does_not_screen_history_before_the_interval() -> None:
    stable = [10.0, 10.1, 9.9, 10.0, 10.05, 9.95, 10.0, 10.1, 9.9, 10.0, 10.05, 9.95]
    series = [*stable, 50.0, 10.0, 10.1, 9.9]  # Deequ flags the spike in a full scan
    last = (15, 16)
    deequ = OnlineNormal(include_current_point=True)
    assert [a.index for a in deequ.detect(series)] == [12]
    assert deequ.evaluate(series, last).upper[0] > deequ.evaluate(series).upper[15] + 10
    ours = OnlineNormal()
    assert ours.evaluate(series, last).upper[0] == ours.evaluate(series).upper[15]


def test_nan_is_missing_and_skipped_infinity_is_flagged_but_not_learned() -> None:
    with_gaps = OnlineNormal(ignore_start_percentage=0).evaluate([10, 11, NAN, 9, math.inf, 10.5])
    plain = OnlineNormal(ignore_start_percentage=0).evaluate([10, 11, 9, 10.5])
    assert with_gaps.status[2] is Status.MISSING and with_gaps.status[4] is Status.ANOMALY
    assert with_gaps.upper[3] == plain.upper[2]
    assert with_gaps.upper[5] == plain.upper[3]


def test_warm_up_points_explain_why_they_are_not_tested() -> None:
    evaluation = OnlineNormal(ignore_start_percentage=0.5).evaluate(SERIES)
    assert evaluation.status[3] is Status.INSUFFICIENT_HISTORY
    assert "first 50%" in evaluation.detail[3]
    assert "fewer than 2 earlier values" in OnlineNormal().evaluate(SERIES).detail[1]


finite_or_not = st.one_of(st.floats(-1e3, 1e3), st.just(NAN), st.just(math.inf))


@settings(max_examples=150, deadline=None)
@given(
    series=st.lists(finite_or_not, max_size=40),
    factors=st.tuples(st.one_of(st.none(), st.floats(0, 4)), st.floats(0, 4)),
    skip=st.floats(0, 1),
    ignore=st.booleans(),
    deequ=st.booleans(),
    start=st.integers(0, 40),
    prediction=st.booleans(),
    minimum=st.integers(2, 6),
)
def test_scalar_loop_and_matrix_kernel_agree_exactly(
    series: list[float],
    factors: tuple[float | None, float],
    skip: float,
    ignore: bool,
    deequ: bool,
    start: int,
    prediction: bool,
    minimum: int,
) -> None:
    detector = OnlineNormal(*factors, skip, ignore, deequ, prediction, minimum)
    x = np.array(series, dtype=np.float64)
    scalar = detector.evaluate(x, (start, None))
    kernel = detector.evaluate_matrix(x[None, :], np.array([len(x)]), np.array([start]))
    window = slice(min(start, len(x)), len(x))
    np.testing.assert_array_equal(scalar.lower, kernel.lower[0, window])
    np.testing.assert_array_equal(scalar.upper, kernel.upper[0, window])
    np.testing.assert_array_equal(scalar.codes, kernel.codes[0, window])


@settings(max_examples=100, deadline=None)
@given(
    series=st.lists(finite_or_not, max_size=30), start=st.integers(0, 30), end=st.integers(0, 30)
)
def test_default_verdicts_do_not_depend_on_the_interval(
    series: list[float], start: int, end: int
) -> None:
    start, end = min(start, end), max(start, end)
    whole = OnlineNormal().evaluate(series)
    part = OnlineNormal().evaluate(series, (start, end))
    np.testing.assert_array_equal(part.codes, whole.codes[part.index])
    np.testing.assert_array_equal(part.upper, whole.upper[part.index])


def test_the_default_band_is_the_student_t_prediction_interval() -> None:
    from scipy import stats

    evaluation = OnlineNormal().evaluate(SERIES)
    # index 2: history [10, 11]: n = 2, sample sd sqrt(0.5), 1 degree of freedom
    q = stats.t.ppf(stats.norm.cdf(3.0), df=1)
    half = q * math.sqrt(0.5) * math.sqrt(1 + 1 / 2)
    assert evaluation.lower[2] == pytest.approx(10.5 - half)
    assert evaluation.upper[2] == pytest.approx(10.5 + half)
    # index 6: history of six points, 5 degrees of freedom; the spike is still caught
    history = np.array(SERIES[:6])
    q6 = stats.t.ppf(stats.norm.cdf(3.0), df=5)
    expected = history.mean() + q6 * history.std(ddof=1) * math.sqrt(1 + 1 / 6)
    assert evaluation.upper[6] == pytest.approx(expected)
    assert [a.index for a in evaluation.anomalies()] == [6]


def test_the_prediction_interval_tends_to_the_normal_band() -> None:
    x = np.random.default_rng(0).normal(0.0, 1.0, 3001)
    wide = OnlineNormal(ignore_start_percentage=0).evaluate(x, (3000, 3001))
    narrow = OnlineNormal(ignore_start_percentage=0, prediction_interval=False).evaluate(
        x, (3000, 3001)
    )
    assert wide.upper[0] == pytest.approx(narrow.upper[0], rel=1e-2)
    assert wide.upper[0] > narrow.upper[0]


def test_min_baseline_holds_judgement_back() -> None:
    evaluation = OnlineNormal(min_baseline=5, ignore_start_percentage=0).evaluate(SERIES)
    assert evaluation.status[:5] == [Status.INSUFFICIENT_HISTORY] * 5
    assert "fewer than 5 earlier values" in evaluation.detail[4]
    with pytest.raises(ValueError, match="min_baseline must be an integer >= 2"):
        OnlineNormal(min_baseline=1)


def test_short_baselines_no_longer_cascade_into_false_alarms() -> None:
    # Binomial means without any incident (6 groups x 60 days, as Mean(controversiality) per
    # subreddit): the population band flags early points on 2-5 point baselines, leaves them
    # out and narrows further; the prediction interval does not.
    from detectors import walk_forward

    rng = np.random.default_rng(0)
    counts = {True: 0, False: 0}
    for _ in range(6):
        rows = rng.integers(200, 2000, 60)
        means = rng.binomial(rows, 0.05) / rows
        for prediction in counts:
            detector = OnlineNormal(upper_deviation_factor=3, prediction_interval=prediction)
            counts[prediction] += int((walk_forward(detector, means).codes == 1).sum())
    assert counts[True] <= 6 and 4 * counts[True] <= counts[False]

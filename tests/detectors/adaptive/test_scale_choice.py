"""Adaptive: a magnitude whose values span a wide range is judged on the log or the identity
scale, whichever forecast the points before it better."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from detectors import Adaptive
from detectors.adaptive import scale_choice
from detectors.adaptive.judged import PERIOD_SLOTS
from detectors.adaptive.transform import Transform, Transforms
from detectors.vectorised import MatrixResult

NAN = np.nan


def judge(values: np.ndarray, start: int = 0, season: str | None = None) -> MatrixResult:
    groups, points = values.shape
    return Adaptive(season=season).evaluate_matrix(
        values, np.full(groups, points), np.full(groups, start, np.int64)
    )


def judge_log_only(values: np.ndarray, monkeypatch: pytest.MonkeyPatch) -> MatrixResult:
    """As before the scale choice: no row's scale is ever an open question."""
    with monkeypatch.context() as patch:
        patch.setattr(scale_choice, "wide_so_far", lambda x: np.zeros(x.shape, bool))
        return judge(values)


def scales(result: MatrixResult) -> np.ndarray:
    """The transform each judged cell was judged on (-1: not judged)."""
    aux = np.nan_to_num(result.aux, nan=-1.0)
    return np.where(aux >= 0, (aux // PERIOD_SLOTS) % 4, -1).astype(int)


def additive_mean(points: int = 365, seed: int = 3) -> np.ndarray:
    """A mean delay: positive for its first week, then additive noise that crosses zero."""
    rng = np.random.default_rng(seed)
    values = 10 + 6 * rng.standard_normal(points)
    values[:7] = [12.5, 9.1, 14.2, 8.7, 11.3, 10.4, 13.9]
    return values[None, :]


@pytest.mark.parametrize(
    ("values", "expected"),
    [
        ([5.0, 9, 2, 1, 3], [False, False, False, True, True]),  # 9 / 2 > 4 after the third
        ([100.0, 120, 90, 110, 95], [False] * 5),  # narrow: log and identity judge alike
        ([3.0, 0, 3, 3], [False, False, True, True]),  # zero
        ([3.0, -1, 3, 3], [False, False, True, True]),  # a value below zero
        ([NAN, 5, NAN, 30, 6], [False, False, False, False, True]),  # NaN is not a value
        ([NAN, NAN, NAN], [False, False, False]),
    ],
)
def test_wide_so_far_counts_only_earlier_values(values: list[float], expected: list[bool]) -> None:
    assert scale_choice.wide_so_far(np.array([values])).tolist() == [expected]


@pytest.mark.parametrize(
    "values",
    [[1e5, 2e5, 1.5e5], [1.0, 0.0, 3.0], [0.98, 0.99, 0.97], [-1.0, 2.0, 1.0], [20.5, 30.5, 25.5]],
)
def test_log_slope_is_the_transforms_derivative(values: list[float]) -> None:
    x = np.array([values])
    transforms = Transforms.choose(x)
    h = 1e-6 * np.maximum(np.abs(x), 1.0)
    slope = (transforms.forward(x + h) - transforms.forward(x - h)) / (2 * h)
    np.testing.assert_allclose(transforms.log_slope(x), np.log(slope), atol=1e-5)


@settings(max_examples=50, deadline=None)
@given(
    on_log=arrays(np.float64, (2, 12), elements=st.floats(-20, 5)),
    on_identity=arrays(np.float64, (2, 12), elements=st.floats(-20, 5)),
    cut=st.integers(1, 11),
)
def test_the_choice_at_a_point_uses_only_the_points_before_it(
    on_log: np.ndarray, on_identity: np.ndarray, cut: int
) -> None:
    wide = np.ones(on_log.shape, bool)
    chosen = scale_choice.prefer_identity(on_log, on_identity, wide)
    later = on_identity.copy()
    later[:, cut:] += 100.0  # the identity scale fits everything from ``cut`` on far better
    again = scale_choice.prefer_identity(on_log, later, wide)
    assert (chosen[:, : cut + 1] == again[:, : cut + 1]).all()
    assert not scale_choice.prefer_identity(on_log, later, ~wide).any()


@pytest.mark.parametrize("seed", [3, 4, 5])
def test_additive_noise_that_crosses_zero_is_judged_on_the_identity_scale(
    seed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    values = additive_mean(seed=seed)
    values[0, 250] += 45  # a rise of 7.5 standard deviations
    chosen = judge(values)
    used = scales(chosen)[0]
    assert (used[50:] == Transform.IDENTITY).mean() > 0.5  # most of the time
    assert chosen.codes[0, 250] == 1
    log_only = judge_log_only(values, monkeypatch)
    # On the log scale fitted to the first week the band's top is far higher: the rise passes.
    assert log_only.codes[0, 250] == 0
    assert log_only.upper[0, 250] > 1.5 * chosen.upper[0, 250]
    assert (chosen.codes == 1).sum() <= (log_only.codes == 1).sum() + 1


def test_multiplicative_noise_keeps_the_log_scale() -> None:
    rng = np.random.default_rng(5)
    amounts = 1000 * rng.lognormal(0, 0.5, (1, 365))  # spans far more than 4x
    used = scales(judge(amounts))[0]
    assert (used[used >= 0] == Transform.LOG).mean() > 0.9


def test_narrow_magnitudes_are_judged_once_on_the_log_scale(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    rng = np.random.default_rng(2)
    values = 100 + 3 * rng.standard_normal((20, 200))
    chosen = judge(values)
    log_only = judge_log_only(values, monkeypatch)
    np.testing.assert_array_equal(chosen.p_value, log_only.p_value)
    assert set(scales(chosen).ravel()) == {-1, int(Transform.LOG)}


@pytest.mark.parametrize("season", [None, "auto"])
@pytest.mark.parametrize("cut", [60, 150, 300])
def test_a_history_cut_short_gets_the_same_verdicts(cut: int, season: str | None) -> None:
    rng = np.random.default_rng(11)
    values = np.vstack([additive_mean(seed=s)[0] for s in range(3)] + [
        100 + 3 * rng.standard_normal(365),  # narrow until its unit changes at 200: wide after
        1000 * rng.lognormal(0, 0.05, 365),  # narrow throughout
    ])  # fmt: skip
    values[2, 200:] *= 60
    values[3, 200:] *= 60
    whole = judge(values, season=season)
    part = judge(values[:, :cut], season=season)
    np.testing.assert_array_equal(whole.codes[:, :cut], part.codes)
    np.testing.assert_allclose(whole.upper[:, :cut], part.upper, equal_nan=True)
    np.testing.assert_allclose(whole.p_value[:, :cut], part.p_value, equal_nan=True)  # type: ignore[index]


def test_one_extreme_value_on_a_multiplicative_series_alerts_once() -> None:
    rng = np.random.default_rng(5)
    amounts = 1000 * rng.lognormal(0, 0.5, (1, 365))
    quiet = judge(amounts)
    amounts[0, 100] = 1e300  # a sentinel written by a broken job
    result = judge(amounts)
    assert result.codes[0, 100] == 1
    assert (result.codes[0, 101:] == 1).sum() <= (quiet.codes[0, 101:] == 1).sum() + 1
    used = scales(result)[0, 101:]
    assert (used[used >= 0] == Transform.LOG).mean() > 0.6  # its evidence is bounded


@pytest.mark.filterwarnings("error")
@pytest.mark.parametrize("bad", [np.inf, -np.inf, 1e300, -1e300])
def test_extreme_values_on_both_scales_are_flagged_without_warnings(bad: float) -> None:
    values = additive_mean(points=120)
    values[0, 60] = bad
    result = judge(values)
    assert result.codes[0, 60] == 1
    assert (result.codes == 1).sum() == (judge(additive_mean(points=120)).codes == 1).sum() + 1
    assert np.isfinite(result.p_value[0, 61:]).all()  # type: ignore[index]

"""Adaptive: series judged in one call learn from each other how heavy their tails are (a few
rows only ever towards wider bands; a table's worth of rows through the posterior predictive,
which keeps the rate on light and heavy rows alike), and whole histories judged at once pool
only what had been seen by then."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from detectors import Adaptive
from detectors.adaptive import pooling, tails
from detectors.adaptive.band import point_test
from detectors.errors import InvalidParameterError
from detectors.vectorised import MatrixResult


def judge(values: np.ndarray, rate: float = 0.001, **kwargs: object) -> MatrixResult:
    groups, points = values.shape
    detector = Adaptive(false_alarm_rate=rate, season=None, **kwargs)  # type: ignore[arg-type]
    return detector.evaluate_matrix(values, np.full(groups, points), np.zeros(groups, np.int64))


def student_t(groups: int, points: int, df: float, seed: int) -> np.ndarray:
    return 100 + 5 * np.random.default_rng(seed).standard_t(df, (groups, points))


def normal(groups: int, points: int, seed: int) -> np.ndarray:
    return 100 + 5 * np.random.default_rng(seed).normal(0, 1, (groups, points))


def p_values(result: MatrixResult) -> np.ndarray:
    assert result.p_value is not None
    return result.p_value


def false_alert_share(result: MatrixResult) -> float:
    judged = np.isin(result.codes, (0, 1))
    return float((result.codes == 1).sum() / judged.sum())


def rows(result: MatrixResult, some: slice) -> MatrixResult:
    return MatrixResult(
        result.lower[some],
        result.upper[some],
        result.codes[some],
        result.confidence[some],
        result.aux[some],
        p_values(result)[some],
    )


def test_one_series_is_judged_as_it_would_be_without_sharing() -> None:
    values = student_t(1, 200, 3.0, seed=1)
    shared, alone = judge(values), judge(values, share_tails=False)
    np.testing.assert_array_equal(shared.codes, alone.codes)
    np.testing.assert_array_equal(p_values(shared), p_values(alone))
    np.testing.assert_array_equal(shared.upper, alone.upper)


def test_heavy_tailed_groups_judged_together_keep_the_rate_they_miss_alone() -> None:
    # A third of t(3.5) series look light on their own few hundred errors: alone, the share of
    # false alerts is about twice the rate; together the others' errors tell them otherwise.
    values = student_t(400, 250, 3.5, seed=2)
    alone = false_alert_share(judge(values, share_tails=False)) / 0.001
    together = false_alert_share(judge(values)) / 0.001
    assert alone > 1.6
    assert 0.5 < together < 1.4


def test_a_table_of_mixed_tails_keeps_the_rate_on_light_and_heavy_rows_alike() -> None:
    # Thirty light rows among thirty heavy ones (20 rows or more: the posterior predictive):
    # the light rows are not judged heavy for the company, nor the heavy ones light.
    values = np.r_[normal(30, 200, seed=3), student_t(30, 200, 3.0, seed=4)]
    shared = judge(values, rate=0.01)
    light = false_alert_share(rows(shared, slice(0, 30))) / 0.01
    heavy = false_alert_share(rows(shared, slice(30, 60))) / 0.01
    # Measured 0.50 and 1.18 (alone: 0.56 and 1.47); a quarter of the rate is kept for lasting
    # changes and stale values, so a single point's share sits near 0.75 of it at best.
    assert 0.4 <= light <= 2.0, light
    assert 0.5 <= heavy <= 2.0, heavy


def test_a_few_rows_never_narrow_a_band() -> None:
    # Fewer than ``PREDICTIVE_ROWS`` rows: light rows among heavy ones only ever get wider.
    values = np.r_[normal(8, 200, seed=3), student_t(8, 200, 3.0, seed=4)]
    shared, alone = judge(values), judge(values, share_tails=False)
    judged = ~np.isnan(alone.upper)
    assert (shared.upper[judged] >= alone.upper[judged]).all()
    assert (shared.lower[judged] <= alone.lower[judged]).all()
    assert (shared.codes[judged] <= alone.codes[judged]).all()  # no new alert anywhere
    light = np.zeros(values.shape, dtype=bool)
    light[:8] = judged[:8]
    assert (shared.upper[light] > alone.upper[light]).mean() > 0.05  # the heavy ones did teach


@settings(max_examples=15, deadline=None)
@given(
    seed=st.integers(0, 2**16),
    heavy=st.integers(0, 6),
    df=st.floats(1.5, 30.0),
    rate=st.sampled_from([0.01, 0.001, 0.0001]),
)
@example(seed=304, heavy=4, df=1.9375, rate=0.01)
@example(seed=233, heavy=0, df=3.0, rate=0.01)
@example(seed=234, heavy=0, df=3.0, rate=0.01)
@example(seed=38915, heavy=0, df=3.5, rate=0.01)
def test_sharing_never_narrows_a_band_law(seed: int, heavy: int, df: float, rate: float) -> None:
    # Fewer than ``PREDICTIVE_ROWS`` rows: sharing only makes tails heavier and floors a young
    # row's scale (the point test's band: the law below), and no row raises more alerts.
    # What sharing may move either way is the lasting-change test: a floored young scale
    # shrinks the first errors, so the CUSUM's running sum and its lag-one autocorrelation
    # (which sets its step) take another path. Found by Hypothesis: seed 233 (a band's lower
    # side 0.11 of its width higher from day 28, the CUSUM's room 2.39 -> 1.70 scales after
    # the first errors' autocorrelation fell), seed 38915 (the alert of a CUSUM crossing on
    # day 9 alone came on day 10 shared: one alert either way), seeds 234 and 304 (0.01).
    values = np.r_[normal(6 - heavy, 90, seed), student_t(heavy, 90, df, seed + 1)]
    shared, alone = judge(values, rate), judge(values, rate, share_tails=False)
    judged = ~np.isnan(alone.upper)
    np.testing.assert_array_equal(judged, ~np.isnan(shared.upper))
    alerts = ((shared.codes == 1).sum(axis=1), (alone.codes == 1).sum(axis=1))
    assert (alerts[0] <= alerts[1]).all(), alerts


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 2**16), df=st.floats(1.5, 30.0), rate=st.sampled_from([0.01, 1e-4]))
def test_shared_tails_never_narrow_the_point_band_law(seed: int, df: float, rate: float) -> None:
    # The same errors judged with and without the other rows' tails: a few rows only ever
    # make a row's tails heavier, so its point band (in scales) is never narrower. (Not its
    # p-values: matched by scale, heavier tails put less mass just outside the centre.)
    z = np.random.default_rng(seed).standard_t(df, (6, 60))
    z[:3] = np.random.default_rng(seed + 1).normal(0, 1, (3, 60))
    count = np.broadcast_to(np.arange(60), z.shape).copy()
    fc = SimpleNamespace(count=count)
    cells = np.ones(z.shape, bool)
    cells[:, :5] = False
    shared = point_test(z, fc, cells, cells, cells, (rate,), "both", True)  # type: ignore[arg-type]
    alone = point_test(z, fc, cells, cells, cells, (rate,), "both", False)  # type: ignore[arg-type]
    assert (shared[1][0][cells] >= alone[1][0][cells]).all()


def test_a_replay_pools_only_what_had_been_seen_by_then() -> None:
    # Rows matched by distance from their newest point: cutting every row at day 150 leaves the
    # verdicts before it as they were, so a backtest never learns from the other groups' future.
    values = np.r_[normal(20, 200, seed=5), student_t(20, 200, 3.0, seed=6)]
    whole, cut = judge(values), judge(values[:, :150])
    np.testing.assert_array_equal(whole.codes[:, :150], cut.codes)
    np.testing.assert_allclose(p_values(whole)[:, :150], p_values(cut))


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 2**16), order=st.permutations(range(8)))
def test_verdicts_do_not_depend_on_the_order_of_the_groups(seed: int, order: list[int]) -> None:
    values = np.r_[normal(4, 80, seed), student_t(4, 80, 3.0, seed + 1)]
    first, permuted = judge(values), judge(values[order])
    np.testing.assert_array_equal(first.codes[order], permuted.codes)
    np.testing.assert_allclose(p_values(first)[order], p_values(permuted))


def test_no_row_learns_from_itself() -> None:
    # Row 0's errors lean heavy, row 1's say nothing: row 1's weights (its prior) move towards
    # heavy tails, row 0's stay what its own errors give under the fixed prior, up to what the
    # EM steps before the last passed through row 1 (3% here; less with more rows).
    leaning = -1.0 * np.abs(np.arange(len(tails.NU)) - 1)[:, None]
    log_lik = np.c_[leaning, np.zeros((len(tails.NU), 1))]
    weights, pooled = pooling.pooled_posterior(log_lik, (np.array([0, 1]), np.array([9, 9])))
    np.testing.assert_allclose(weights[:, 0], tails.posterior(log_lik)[:, 0], rtol=0.05)
    assert weights[1, 1] > tails.PRIOR[1] * 1.05
    assert pooled.tolist() == pytest.approx([0.9 / 11, 0.9 / 11])


@pytest.mark.parametrize("value", [1, "yes", None])
def test_share_tails_must_be_a_boolean(value: object) -> None:
    with pytest.raises(InvalidParameterError, match="share_tails"):
        Adaptive(share_tails=value)  # type: ignore[arg-type]


def test_the_predictive_prior_reaches_where_many_plain_em_steps_go() -> None:
    # 300 rows of a few light-tailed errors each (each row barely leans to normal tails):
    # thirty plain EM steps leave a third of the weight on nu <= 20; SQUAREM gets there.
    rng = np.random.default_rng(4)
    lean = -0.02 * (len(tails.NU) - 1 - np.arange(len(tails.NU)))[:, None]
    log_lik = lean + rng.normal(0, 0.1, (len(tails.NU), 300))
    cells = (np.arange(300), np.full(300, 9))
    far = pooling.pooled_posterior(log_lik.copy(), cells, 1.0, 1.0, 3000)[0].mean(axis=1)
    plain = pooling.pooled_posterior(log_lik.copy(), cells, 1.0, 1.0, 30)[0].mean(axis=1)
    fast = pooling.predictive_weights(log_lik.copy(), cells).mean(axis=1)
    assert np.abs(plain - far).max() > 0.2 and np.abs(fast - far).max() < 0.01

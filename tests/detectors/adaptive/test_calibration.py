"""Calibration laws: on clean series of any shape the share of false alerts follows the rate
asked for (measured over many series of one shape, as a scan judges many groups)."""

from __future__ import annotations

import numpy as np
import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st

from detectors import Adaptive

SERIES, POINTS = 80, 200
DAYS = pd.date_range("2024-01-01", periods=POINTS, freq="D")


def clean(
    seed: int, level: float, noise: float, weekly: float, growth: float, wander: float
) -> np.ndarray:
    """Clean series: a level, a weekly cycle, slow growth, a wandering mean, normal noise."""
    rng = np.random.default_rng(seed)
    t = np.arange(POINTS)
    cycle = 1 + weekly * np.where(t % 7 >= 5, -1.0, 0.3)
    walk = np.zeros((SERIES, POINTS))
    for i in range(1, POINTS):
        walk[:, i] = 0.9 * walk[:, i - 1] + rng.normal(0, wander * noise, SERIES)
    base = level * cycle * (1 + growth) ** t
    return base[None, :] * (1 + walk) * (1 + rng.normal(0, noise, (SERIES, POINTS)))


def false_alarm_share(values: np.ndarray, rate: float) -> float:
    times = np.tile(DAYS.to_numpy(), (len(values), 1))
    detector = Adaptive(false_alarm_rate=rate).at_times(times)
    lengths, starts = np.full(len(values), POINTS), np.zeros(len(values), dtype=np.int64)
    result = detector.evaluate_matrix(values, lengths, starts)
    judged = np.isin(result.codes, (0, 1))
    return float((result.codes == 1).sum() / judged.sum())


@settings(max_examples=6, deadline=None, derandomize=True)
@given(
    seed=st.integers(0, 10_000),
    level=st.sampled_from([0.5, 40.0, 1e6]),
    noise=st.floats(0.005, 0.1),
    weekly=st.sampled_from([0.0, 0.3]),
    growth=st.sampled_from([0.0, 0.002]),
    wander=st.sampled_from([0.0, 0.5]),
)
def test_false_alerts_follow_the_rate_on_clean_series_of_any_shape(
    seed: int, level: float, noise: float, weekly: float, growth: float, wander: float
) -> None:
    values = clean(seed, level, noise, weekly, growth, wander)
    share = false_alarm_share(values, 0.01)
    assert 0.01 / 4 <= share <= 0.01 * 2.5, share


def test_a_lower_rate_raises_fewer_false_alerts() -> None:
    values = clean(1, 100.0, 0.03, 0.3, 0.0, 0.0)
    shares = [false_alarm_share(values, rate) for rate in (0.05, 0.01, 0.001)]
    assert shares[0] > shares[1] > shares[2]
    assert shares[0] > 0.05 / 3 and shares[2] < 0.003

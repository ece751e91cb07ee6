"""Young series judged together: no zero-width band from a few exactly repeated values, the
floor only widens, a lone series is judged as before."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from detectors import Adaptive
from detectors.adaptive.young import pooled_floor
from detectors.evaluation import ANOMALY, OK

DAYS = 45


def judge(values: np.ndarray, detector: Adaptive) -> tuple[np.ndarray, ...]:
    times = pd.date_range("2025-01-06", periods=values.shape[1], freq="D").to_numpy()
    bound = detector.at_times(np.tile(times, (len(values), 1)))
    found = bound.walk_forward_rows(values, np.zeros(len(values), np.int64),
                                    np.full(len(values), values.shape[1]),
                                    np.ones(values.shape, bool))  # fmt: skip
    codes = np.array([e.codes for e in found])
    p = np.array([e.p_value for e in found], dtype=float)
    return codes, p, np.array([e.lower for e in found]), np.array([e.upper for e in found])


def small_shares(groups: int, seed: int) -> np.ndarray:
    """Shares of a category in groups of 3 to 12 rows a day: 0, 1/7, 0.5 ... repeat by chance."""
    rng = np.random.default_rng(seed)
    rows = rng.integers(3, 13, (groups, DAYS))
    return rng.binomial(rows, rng.uniform(0.01, 0.5, (groups, 1))) / rows


def small_counts(groups: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    weekly = np.where(np.arange(DAYS) % 7 >= 5, 0.7, 1.0)
    return rng.poisson(rng.uniform(5, 15, (groups, 1)) * weekly, (groups, DAYS)).astype(float)


@pytest.mark.parametrize(
    ("make", "domain"), [(small_shares, (0.0, 1.0)), (small_counts, (0.0, math.inf))],
    ids=["shares", "counts"],
)  # fmt: skip
def test_clean_small_groups_never_get_an_impossible_verdict(make: object, domain: object) -> None:
    values = make(300, 1)  # type: ignore[operator]
    codes, p, _, _ = judge(values, Adaptive(domain=domain))  # type: ignore[arg-type]
    judged = np.isin(codes, (OK, ANOMALY))
    assert judged.sum() > 300 * 30
    assert (p[judged] > 1e-6).all()  # before: 0 on a few ordinary days (zero-width bands)


def test_the_floor_only_widens_and_a_lone_series_or_no_sharing_is_unchanged() -> None:
    # Fewer rows than ``pooling.PREDICTIVE_ROWS``: only the floor differs from judging alone.
    values = small_shares(15, 2)
    together = judge(values, Adaptive(domain=(0.0, 1.0)))
    apart = judge(values, Adaptive(domain=(0.0, 1.0), share_tails=False))
    lone = judge(values[:1], Adaptive(domain=(0.0, 1.0)))
    judged = np.isin(apart[0], (OK, ANOMALY))
    assert (together[3][judged] >= apart[3][judged] - 1e-12).all()
    assert (together[2][judged] <= apart[2][judged] + 1e-12).all()
    assert (together[3][judged] > apart[3][judged] + 1e-9).any()
    np.testing.assert_array_equal(lone[0][0], apart[0][0])
    np.testing.assert_allclose(lone[1][0], apart[1][0])


def test_a_completeness_that_never_moved_still_flags_a_real_drop() -> None:
    rng = np.random.default_rng(4)
    rows = rng.integers(200, 2000, (50, DAYS))
    complete = 1 - rng.binomial(rows, rng.uniform(0, 0.01, (50, 1))) / rows
    complete[0] = 1.0  # never a null
    complete[0, -1] = 0.6  # then 40% of the column is null
    codes, p, _, _ = judge(complete, Adaptive(domain=(0.0, 1.0)))
    assert codes[0, -1] == ANOMALY and p[0, -1] < 1e-6


def test_the_floor_is_the_peers_median_at_the_same_distance_from_their_newest_point() -> None:
    scale = np.array([[0.0, 0.0, np.nan]] + [[1.0, 2.0, np.nan]] * 5 + [[np.nan, 1.0, 2.0]] * 5)
    newest = np.array([1] * 6 + [2] * 5)  # the last five rows are one day longer
    floor = pooled_floor(scale, np.full(scale.shape, 3), np.zeros(11, np.int8), newest,
                         np.ones(scale.shape, bool))  # fmt: skip
    assert floor[0, :2].tolist() == [1.0, 2.0]  # never moved: the peers' upper quartile
    assert floor[1, :2].tolist() == [0.25, 0.5]  # moved: a quarter of their median

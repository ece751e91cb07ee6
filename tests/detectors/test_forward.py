from __future__ import annotations

import numpy as np
import pytest

from detectors import (
    AbsoluteChange,
    BatchNormal,
    OnlineNormal,
    RelativeRateOfChange,
    RobustMAD,
    SimpleThreshold,
    walk_forward,
)
from detectors.base import as_detector
from detectors.forward import _one_by_one

VECTORISED = [
    OnlineNormal(),
    OnlineNormal(prediction_interval=False, min_baseline=5),
    OnlineNormal(None, 2.0, 0.3, ignore_anomalies=False),
    OnlineNormal(include_current_point=True),
    SimpleThreshold(lower_bound=9, upper_bound=12),
    AbsoluteChange(-1.0, 1.0, order=2),
    RelativeRateOfChange(0.8, 1.25),
]


def _series(seed: int, n: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    x = 10 + rng.normal(0, 1, n)
    x[rng.random(n) < 0.1] += 8
    x[rng.random(n) < 0.05] = 0.0
    return x


@pytest.mark.parametrize("detector", VECTORISED, ids=repr)
def test_the_kernel_triangle_equals_one_evaluate_per_point(detector: object) -> None:
    for seed in range(8):
        x = _series(seed, 8 * seed)
        baseline = np.random.default_rng(seed).random(len(x)) < 0.8 if seed % 2 else None
        start = seed % 5
        fast = walk_forward(detector, x, start, baseline=baseline)
        slow = _one_by_one(as_detector(detector), x, start, len(x), baseline)
        for field in ("index", "value", "lower", "upper", "codes", "confidence"):
            np.testing.assert_array_equal(getattr(fast, field), getattr(slow, field))
        assert fast.detail == slow.detail


def test_long_series_are_cut_into_row_chunks(monkeypatch: pytest.MonkeyPatch) -> None:
    x = _series(1, 300)
    whole = walk_forward(OnlineNormal(), x)
    monkeypatch.setattr("detectors.forward.MAX_CELLS", 1000)  # ~3 rows per kernel call
    chunked = walk_forward(OnlineNormal(), x)
    np.testing.assert_array_equal(whole.codes, chunked.codes)
    np.testing.assert_array_equal(whole.upper, chunked.upper)


def test_a_point_is_judged_only_on_the_points_before_it() -> None:
    x = _series(3, 40)
    for detector in (OnlineNormal(), RobustMAD(), BatchNormal()):
        before = walk_forward(detector, x)
        changed = x.copy()
        changed[30:] = 1e6  # the future: must change nothing before it
        after = walk_forward(detector, changed)
        np.testing.assert_array_equal(before.codes[:30], after.codes[:30])
        np.testing.assert_array_equal(before.upper[:30], after.upper[:30])


def test_points_outside_the_baseline_are_judged_but_never_history() -> None:
    x = np.array([10.0, 10.5, 9.5, 10.2, 50.0, 9.9, 10.1])
    baseline = np.array([True, True, True, True, False, True, True])
    with_exclusion = walk_forward(RobustMAD(min_history=3), x, baseline=baseline)
    assert with_exclusion.status[4] == "anomaly"
    without_spike = walk_forward(RobustMAD(min_history=3), np.delete(x, 4))
    np.testing.assert_array_equal(with_exclusion.upper[5:], without_spike.upper[4:])


def test_a_baseline_of_the_wrong_length_is_refused() -> None:
    with pytest.raises(ValueError, match=r"one flag per value \(3\), got \(2,\)"):
        walk_forward(OnlineNormal(), [1.0, 2.0, 3.0], baseline=[True, False])

from __future__ import annotations

import math

import numpy as np
import pytest

from detectors import BatchNormal, Status

SERIES = [10.0, 11.0, 9.0, 10.0, 10.0, 25.0]


def test_bounds_use_the_sample_sd_of_points_outside_the_interval() -> None:
    evaluation = BatchNormal().evaluate(SERIES, (5, 6))
    sd = math.sqrt(0.5)  # sample sd of [10, 11, 9, 10, 10]
    assert evaluation.lower[0] == pytest.approx(10 - 3 * sd)
    assert evaluation.upper[0] == pytest.approx(10 + 3 * sd)
    assert evaluation.status == [Status.ANOMALY]
    assert evaluation.detail[0].startswith("[BatchNormal] Value 25.0 is not in bounds [")


@pytest.mark.parametrize(
    ("detector", "series", "interval", "flagged"),
    [
        (BatchNormal(), SERIES, (5, 6), [5]),
        # points after the interval are baseline too (Deequ)
        (BatchNormal(), [10.0, 11.0, 30.0, 9.0, 10.0, 10.0], (2, 3), [2]),
        # with the interval in the baseline, a lone spike inflates the sd past itself
        (BatchNormal(include_interval=True), SERIES, (5, 6), []),
        (BatchNormal(include_interval=True), [10.0] * 30 + [25.0], (30, 31), [30]),
        (BatchNormal(upper_deviation_factor=None), SERIES, (5, 6), []),
        (BatchNormal(lower_deviation_factor=None), [10.0, 11.0, 9.0, 10.0, -20.0], (4, 5), []),
        (BatchNormal(), [], None, []),
        (BatchNormal(), [4.0] * 10, (9, 10), []),
    ],
)
def test_flags(
    detector: BatchNormal, series: list[float], interval: tuple[int, int] | None, flagged: list[int]
) -> None:
    assert [a.index for a in detector.detect(series, interval)] == flagged


def test_too_small_baseline_is_insufficient_history_not_an_error() -> None:
    evaluation = BatchNormal().evaluate(SERIES)  # nothing outside the interval
    assert set(evaluation.status) == {Status.INSUFFICIENT_HISTORY}
    assert "0 finite baseline values, needs 2" in evaluation.detail[0]
    one = BatchNormal().evaluate([1.0, math.nan, 7.0], (2, 3))
    assert one.status == [Status.INSUFFICIENT_HISTORY]


def test_non_finite_values_stay_out_of_the_baseline() -> None:
    clean = BatchNormal().evaluate([10.0, 11.0, 9.0, 12.0], (3, 4))
    dirty = BatchNormal().evaluate([10.0, math.nan, 11.0, math.inf, 9.0, 12.0], (5, 6))
    np.testing.assert_array_equal(clean.upper, dirty.upper)

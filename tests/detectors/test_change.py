from __future__ import annotations

import math

import numpy as np
import pytest

from detectors import AbsoluteChange, RelativeRateOfChange, Status

NAN = math.nan
# Deequ's AbsoluteChangeStrategyTest series: 1.0, except +-i at 20..30.
DEEQU_ABSOLUTE = [1.0 if i < 20 or i > 30 else (i if i % 2 == 0 else -i) for i in range(51)]
# Deequ's RelativeRateOfChangeStrategyTest series: 1.0, except i at even 20..30.
DEEQU_RELATIVE = [1.0 if i < 20 or i > 30 else (i if i % 2 == 0 else 1) for i in range(51)]
GROWTH = [0, 1, 3, 6, 18, 72]


@pytest.mark.parametrize(
    ("detector", "series", "interval", "flagged"),
    [
        # Deequ's published behaviour
        (AbsoluteChange(max_rate_increase=8, order=2), GROWTH, None, [4, 5]),
        (AbsoluteChange(max_rate_increase=8, order=2), GROWTH, (5, 6), [5]),
        (AbsoluteChange(-2.0, 2.0), DEEQU_ABSOLUTE, None, list(range(20, 32))),
        (AbsoluteChange(-2.0, 2.0), DEEQU_ABSOLUTE, (25, 50), list(range(25, 32))),
        (AbsoluteChange(None, 1.0), DEEQU_ABSOLUTE, None, list(range(20, 31, 2))),
        (AbsoluteChange(-1.0, None), DEEQU_ABSOLUTE, None, list(range(21, 32, 2))),
        (AbsoluteChange(-2.0, 2.0), [1.0, -1.0, 4.0, -7.0], None, [2, 3]),
        (AbsoluteChange(-1e308, 1e308), DEEQU_ABSOLUTE, None, []),
        # order 0 tests the values themselves
        (AbsoluteChange(-2.0, 2.0, order=0), [1.0, -1.0, 4.0, -7.0], None, [2, 3]),
        # a level shift is one change; a trend is none
        (AbsoluteChange(-5, 5), [10, 10, 10, 30, 30, 30], None, [3]),
        (AbsoluteChange(-5, 5), [10, 12, 14, 16, 18], None, []),
        (AbsoluteChange(-5, 5), [], None, []),
        (AbsoluteChange(-5, 5), [3.0], None, []),
        (AbsoluteChange(-5, 5), [1, math.inf, 2], None, [1, 2]),
    ],
)
def test_absolute_change_flags(
    detector: AbsoluteChange,
    series: list[float],
    interval: tuple[int, int] | None,
    flagged: list[int],
) -> None:
    assert [a.index for a in detector.detect(series, interval)] == flagged


@pytest.mark.parametrize(
    ("detector", "series", "interval", "flagged"),
    [
        # Deequ's published behaviour: 3 / 0 is an infinite change
        (RelativeRateOfChange(max_rate_increase=8, order=2), GROWTH, None, [2, 5]),
        (RelativeRateOfChange(max_rate_increase=8, order=2), GROWTH, (5, 6), [5]),
        (RelativeRateOfChange(0.5, 2.0), DEEQU_RELATIVE, None, list(range(20, 32))),
        (RelativeRateOfChange(0.5, 2.0), DEEQU_RELATIVE, (25, 50), list(range(25, 32))),
        (RelativeRateOfChange(None, 1.0), DEEQU_RELATIVE, None, list(range(20, 31, 2))),
        (RelativeRateOfChange(0.5, None), DEEQU_RELATIVE, None, list(range(21, 32, 2))),
        # 0 -> 0 is no change; 0 -> negative is an infinite drop
        (RelativeRateOfChange(0.5, 2.0), [0, 0, 0], None, []),
        (RelativeRateOfChange(0.5, 2.0), [0, -3], None, [1]),
        (RelativeRateOfChange(0.9, 1.1), [100, 105, 80, 81], None, [2]),
        (RelativeRateOfChange(0.9, 1.1), [], None, []),
    ],
)
def test_relative_rate_of_change_flags(
    detector: RelativeRateOfChange,
    series: list[float],
    interval: tuple[int, int] | None,
    flagged: list[int],
) -> None:
    assert [a.index for a in detector.detect(series, interval)] == flagged


def test_reports_original_value_and_change_in_detail() -> None:
    anomalies = AbsoluteChange(max_rate_increase=8, order=2).detect(GROWTH)
    assert [a.value for a in anomalies] == [18.0, 72.0]
    assert anomalies[0].detail.startswith(
        "[AbsoluteChange] Change of 9.0 is not in bounds [-inf, 8.0]. Order=2."
    )
    (zero,) = RelativeRateOfChange(max_rate_increase=8, order=2).detect(GROWTH[:3])
    assert zero.detail.startswith("[RelativeRateOfChange] Change of inf is not in bounds")


@pytest.mark.parametrize(
    ("detector", "series", "lower", "upper"),
    [
        # the band is what the value would have to be: previous value plus the allowed change
        (AbsoluteChange(-3, 3), [10, 12, 5], [NAN, 7.0, 9.0], [NAN, 13.0, 15.0]),
        (
            AbsoluteChange(max_rate_increase=8, order=2),
            [0, 1, 3],
            [NAN, NAN, -math.inf],
            [NAN, NAN, 10.0],
        ),
        (AbsoluteChange(-2, 2, order=0), [1.0, 5.0], [-2.0, -2.0], [2.0, 2.0]),
        # the previous value scaled by the allowed ratios; a negative base flips them
        (RelativeRateOfChange(0.5, 1.5), [10, 20], [NAN, 5.0], [NAN, 15.0]),
        (RelativeRateOfChange(0.5, 1.5), [-10, -30], [NAN, -15.0], [NAN, -5.0]),
        (RelativeRateOfChange(0.5, 1.5), [0, 3], [NAN, 0.0], [NAN, 0.0]),
        (RelativeRateOfChange(None, 1.5), [0, 3], [NAN, -math.inf], [NAN, 0.0]),
    ],
)
def test_bounds_are_in_value_units(
    detector: AbsoluteChange | RelativeRateOfChange,
    series: list[float],
    lower: list[float],
    upper: list[float],
) -> None:
    evaluation = detector.evaluate(series)
    np.testing.assert_array_equal(evaluation.lower, lower)
    np.testing.assert_array_equal(evaluation.upper, upper)
    outside = (evaluation.value < evaluation.lower) | (evaluation.value > evaluation.upper)
    assert (outside == (evaluation.codes == 1)).all()


def test_first_points_and_points_after_nan_have_insufficient_history() -> None:
    evaluation = AbsoluteChange(max_rate_increase=1).evaluate([1, NAN, 3, 4])
    assert evaluation.status == [
        Status.INSUFFICIENT_HISTORY,
        Status.MISSING,
        Status.INSUFFICIENT_HISTORY,
        Status.OK,
    ]
    assert "needs 1 earlier points" in evaluation.detail[0]
    assert "missing" in evaluation.detail[2]

from __future__ import annotations

import math

import numpy as np
import pytest

from detectors import Anomaly, Detector, SimpleThreshold, Status, as_detector
from detectors.base import as_values, resolve_interval
from detectors.evaluation import FloatArray


@pytest.mark.parametrize(
    ("interval", "length", "expected"),
    [
        (None, 5, (0, 5)),
        ((1, 3), 5, (1, 3)),
        ((2, None), 5, (2, 5)),
        ((3, 99), 5, (3, 5)),
        ((7, 9), 5, (5, 5)),
        ((7, None), 5, (5, 5)),
        ((0, 0), 0, (0, 0)),
    ],
)
def test_resolve_interval(
    interval: tuple[int, int | None] | None, length: int, expected: tuple[int, int]
) -> None:
    assert resolve_interval(interval, length) == expected


@pytest.mark.parametrize("interval", [(-1, 3), (3, 2), (0, -1)])
def test_bad_interval_is_refused(interval: tuple[int, int]) -> None:
    with pytest.raises(ValueError, match="interval"):
        SimpleThreshold(upper_bound=1).detect([1, 2, 3], interval)


def test_values_become_float_with_none_as_nan() -> None:
    values = as_values([1, None, 2.5])
    assert values.dtype == np.float64 and math.isnan(values[1])
    with pytest.raises(ValueError, match="one-dimensional"):
        as_values([[1.0, 2.0]])


class LastValuePlusMinusOne(Detector):
    """A user detector that only says what it expects next."""

    def bounds(self, history: FloatArray) -> tuple[float, float] | None:
        return None if len(history) == 0 else (history[-1] - 1, history[-1] + 1)


def test_a_bounds_only_subclass_gets_evaluate_and_detect() -> None:
    evaluation = LastValuePlusMinusOne().evaluate([1.0, 1.5, math.nan, 4.0, 4.5])
    assert evaluation.status == [
        Status.INSUFFICIENT_HISTORY,
        Status.OK,
        Status.MISSING,
        Status.ANOMALY,  # compared with 1.5: NaN is not history
        Status.OK,
    ]
    assert evaluation.lower[3] == 0.5 and evaluation.upper[3] == 2.5
    (anomaly,) = LastValuePlusMinusOne().detect([1.0, 1.5, math.nan, 4.0, 4.5])
    assert anomaly == Anomaly(
        3, 4.0, 1.0, 0.5, 2.5, "[LastValuePlusMinusOne] Value 4.0 is not in bounds [0.5, 2.5]."
    )


class DeequStyle:
    """A plug-in with only Deequ's detect, reporting an anomaly outside the interval too."""

    def detect(self, values: object, interval: tuple[int, int] | None = None) -> list[Anomaly]:
        return [
            Anomaly(0, 1.0, 0.5, 0.0, 0.5, "[DeequStyle] first"),
            Anomaly(2, 9.0, 0.9, 0.0, 5.0, "[DeequStyle] big"),
        ]


def test_a_detect_only_object_works_as_a_detector() -> None:
    wrapped = as_detector(DeequStyle())
    assert wrapped.name == "DeequStyle"
    evaluation = wrapped.evaluate([1.0, 2.0, 9.0, math.nan], (1, 4))
    assert evaluation.status == [Status.OK, Status.ANOMALY, Status.MISSING]
    assert np.isnan(evaluation.upper[0]) and evaluation.upper[1] == 5.0
    assert [a.index for a in wrapped.detect([1.0, 2.0, 9.0], (1, 3))] == [2]  # index 0 dropped


def test_as_detector_refuses_objects_without_detect() -> None:
    with pytest.raises(TypeError, match="detect"):
        as_detector(object())
    threshold = SimpleThreshold(upper_bound=1)
    assert as_detector(threshold) is threshold


def test_a_subclass_must_override_something() -> None:
    with pytest.raises(TypeError, match="must override bounds, evaluate or detect"):

        class Empty(Detector):
            pass

from __future__ import annotations

import math

import numpy as np
import pytest

from detectors import (
    AbsoluteChange,
    AllOf,
    AnyOf,
    KOfLastN,
    OnlineNormal,
    SimpleThreshold,
    Status,
)

CAP = SimpleThreshold(upper_bound=100)
JUMP = AbsoluteChange(max_rate_increase=10)


@pytest.mark.parametrize(
    ("detector", "series", "flagged"),
    [
        (AnyOf(CAP, JUMP), [50, 55, 90, 101], [2, 3]),
        (AllOf(CAP, JUMP), [50, 55, 90, 101, 105], [3]),
        (AllOf(CAP), [50, 101], [1]),
        (KOfLastN(SimpleThreshold(upper_bound=10), k=2, n=3), [1, 20, 1, 1, 20, 20, 1, 20], [5, 7]),
        (KOfLastN(SimpleThreshold(upper_bound=10), k=1, n=1), [1, 20, 1], [1]),
        (KOfLastN(SimpleThreshold(upper_bound=10), k=3, n=3), [20, 20, 1, 20, 20, 20], [5]),
    ],
)
def test_flags(detector: object, series: list[float], flagged: list[int]) -> None:
    assert [a.index for a in detector.detect(series)] == flagged  # type: ignore[attr-defined]


def test_status_combination() -> None:
    # JUMP cannot judge index 0; CAP finds it fine
    anyof = AnyOf(CAP, JUMP).evaluate([50, 55])
    allof = AllOf(CAP, JUMP).evaluate([50, 55])
    assert anyof.status == [Status.INSUFFICIENT_HISTORY, Status.OK]
    assert allof.status == [Status.OK, Status.OK]
    assert math.isnan(anyof.confidence[0])
    # flagged by one member, no verdict from the other: AllOf cannot be sure
    assert AllOf(SimpleThreshold(upper_bound=1), JUMP).evaluate([50]).status == [
        Status.INSUFFICIENT_HISTORY
    ]
    assert AnyOf(CAP, JUMP).evaluate([math.nan, 5]).status[0] is Status.MISSING


def test_bands_combine_as_intersection_and_union_hull() -> None:
    low = SimpleThreshold(lower_bound=0, upper_bound=10)
    high = SimpleThreshold(lower_bound=5, upper_bound=20)
    # fine for both (AnyOf asks both), flagged by the first (AllOf asks both)
    assert (AnyOf(low, high).evaluate([7]).lower[0], AnyOf(low, high).evaluate([7]).upper[0]) == (
        5,
        10,
    )
    assert (AllOf(low, high).evaluate([12]).lower[0], AllOf(low, high).evaluate([12]).upper[0]) == (
        0,
        20,
    )
    # a member without a band (insufficient history) does not erase the others'
    assert AnyOf(CAP, JUMP).evaluate([50]).upper[0] == 100


def test_details_name_the_combination_and_the_members() -> None:
    (anomaly,) = AllOf(CAP, JUMP).detect([50, 101], (1, 2))
    assert anomaly.detail.startswith("[AllOf] [SimpleThreshold] Value 101.0")
    assert "[AbsoluteChange] Change of 51.0" in anomaly.detail
    # AnyOf does not ask JUMP about a point CAP already flagged
    (anomaly,) = AnyOf(CAP, JUMP).detect([50, 101], (1, 2))
    assert anomaly.detail == "[AnyOf] [SimpleThreshold] Value 101.0 is not in bounds [-inf, 100.0]."
    (persistent,) = KOfLastN(SimpleThreshold(upper_bound=10), 2, 3).detect([20, 20], (1, 2))
    assert persistent.detail.startswith("[KOfLastN] 2 of the last 3 points are anomalies (needs 2)")


def test_k_of_last_n_counts_history_before_the_interval() -> None:
    detector = KOfLastN(SimpleThreshold(upper_bound=10), k=2, n=3)
    series = [1, 20, 20, 1]
    assert [a.index for a in detector.detect(series, (2, 4))] == [2]
    np.testing.assert_array_equal(detector.evaluate(series, (2, 4)).upper, [10, 10])
    # the lone blip at 1 is suppressed, and reported fine
    assert detector.evaluate(series).status[1] is Status.OK


def test_compositions_nest_and_compare() -> None:
    # The population band (prediction_interval=False) flags 90 after only two points.
    nested = AnyOf(AllOf(CAP, JUMP), KOfLastN(OnlineNormal(prediction_interval=False), 1, 1))
    same = AnyOf(AllOf(CAP, JUMP), KOfLastN(OnlineNormal(prediction_interval=False), 1, 1))
    assert nested == same
    assert nested != AnyOf(AllOf(CAP, JUMP), KOfLastN(OnlineNormal(), 1, 1))
    assert nested != AllOf(
        AllOf(CAP, JUMP), KOfLastN(OnlineNormal(prediction_interval=False), 1, 1)
    )
    assert len({nested, same}) == 1
    assert repr(AllOf(CAP)).startswith("AllOf(SimpleThreshold(")
    # OnlineNormal alone flags the jump to 90 and keeps it out of its baseline
    assert [a.index for a in nested.detect([50, 55, 90, 101, 105])] == [2, 3, 4]


@pytest.mark.parametrize(
    ("build", "parameter"),
    [
        (lambda: AllOf(), "detectors"),
        (lambda: AnyOf(CAP, "not a detector"), "detectors[1]"),
        (lambda: KOfLastN(42, 1, 2), "detector"),
        (lambda: KOfLastN(CAP, 0, 2), "k"),
        (lambda: KOfLastN(CAP, 3, 2), "n"),
    ],
)
def test_bad_parameters(build: object, parameter: str) -> None:
    with pytest.raises(ValueError, match=rf"^{parameter.replace('[', '.').replace(']', '.')} "):
        build()  # type: ignore[operator]

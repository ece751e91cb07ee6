"""AllOf/AnyOf evaluate later members only on the points the earlier ones left undecided."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from detectors import (
    AbsoluteChange,
    AlertFatigue,
    AllOf,
    AnyOf,
    BatchNormal,
    Detector,
    KOfLastN,
    OnlineNormal,
    RobustMAD,
    SimpleThreshold,
    Status,
    as_detector,
)
from detectors.base import Interval
from detectors.compose import _Combination
from detectors.evaluation import Evaluation, FloatArray
from tests.detectors.data import weekly

SERIES = [*weekly(6, seed=11), 40.0, 11.0, math.nan, 1.0, 12.0]
SERIES[20] = 30.0


class Recording(Detector):
    """Fine within 100 of the last value; records every interval it is asked about."""

    def __init__(self) -> None:
        self.intervals: list[tuple[int, int]] = []

    def evaluate(self, values: object, interval: Interval | None = None) -> Evaluation:
        x = np.asarray(values, dtype=float)
        span = interval or (0, len(x))
        self.intervals.append((span[0], len(x) if span[1] is None else span[1]))
        return SimpleThreshold(-100.0, 100.0).evaluate(x, interval)


class NearMedian(Detector):
    """A bounds-only user detector: interval independent, evaluated point by point."""

    def bounds(self, history: FloatArray) -> tuple[float, float] | None:
        if len(history) < 3:
            return None
        median = float(np.median(history))
        return median - 3.0, median + 3.0


def eager(combination: _Combination, values: list[float], interval: Interval) -> np.ndarray:
    """The verdicts of evaluating every member on the whole interval (the old behaviour)."""
    x = np.asarray(values, dtype=float)
    members = [as_detector(d).evaluate(x, interval) for d in combination.detectors]
    codes = combination._combine(np.stack([m.codes for m in members]))
    codes[np.isnan(x[interval[0] : interval[1]])] = 3
    return codes


CHEAP = [OnlineNormal(), AbsoluteChange(-6, 6), SimpleThreshold(0, 20), NearMedian()]
# Members whose verdicts depend on the interval: they must still see the whole of it.
DEPENDENT = [BatchNormal(), OnlineNormal(include_current_point=True), KOfLastN(BatchNormal(), 2, 3)]
MEMBERS = [*CHEAP, *DEPENDENT, RobustMAD(window=14), AlertFatigue(OnlineNormal(), cooldown=2)]


@pytest.mark.parametrize("kind", [AllOf, AnyOf])
@pytest.mark.parametrize("interval", [(0, len(SERIES)), (10, 30), (35, 47), (42, 43), (44, 45)])
@pytest.mark.parametrize("pair", [(0, 4), (1, 5), (4, 8), (2, 6), (6, 3), (7, 8), (8, 1), (5, 0)])
def test_verdicts_are_those_of_evaluating_every_member(
    kind: type[_Combination], interval: tuple[int, int], pair: tuple[int, int]
) -> None:
    for members in ([MEMBERS[pair[0]], MEMBERS[pair[1]]], [MEMBERS[pair[1]], *MEMBERS[:3]]):
        combination = kind(*members)
        lazy = combination.evaluate(SERIES, interval)
        np.testing.assert_array_equal(lazy.codes, eager(combination, SERIES, interval))
        assert lazy.index.tolist() == list(range(*interval))


@pytest.mark.parametrize(
    ("build", "series", "asked"),
    [
        # the threshold finds the newest point fine: the second member is never asked
        (lambda r: AllOf(SimpleThreshold(upper_bound=50), r), [1.0, 2.0, 3.0], []),
        # flagged by the threshold: the second member must judge it, on the same interval
        (lambda r: AllOf(SimpleThreshold(upper_bound=50), r), [1.0, 2.0, 99.0], [(2, 3)]),
        (lambda r: AnyOf(SimpleThreshold(upper_bound=50), r), [1.0, 2.0, 99.0], []),
        (lambda r: AnyOf(SimpleThreshold(upper_bound=50), r), [1.0, 2.0, 3.0], [(2, 3)]),
        # a missing value is missing whatever the members say
        (lambda r: AllOf(SimpleThreshold(upper_bound=50), r), [1.0, 2.0, math.nan], []),
    ],
)
def test_later_members_run_only_on_undecided_points(
    build: object, series: list[float], asked: list[tuple[int, int]]
) -> None:
    recording = Recording()
    build(recording).evaluate(series, (2, 3))  # type: ignore[operator]
    assert recording.intervals == asked


def test_an_interval_dependent_member_sees_the_whole_interval() -> None:
    recording = Recording()  # not interval independent: it must see the interval it was given
    AllOf(SimpleThreshold(upper_bound=50), recording).evaluate([1, 99, 2, 3, 99, 4], (1, 6))
    assert recording.intervals == [(1, 6)]


class SpanRecording(Recording):
    """Like a vectorised detector: interval independent, costs the same for any interval."""

    @property
    def interval_independent(self) -> bool:
        return True


class BoundsRecording(Detector):
    """A bounds-only detector that records the history length of each point it judges."""

    def __init__(self) -> None:
        self.judged: list[int] = []

    def bounds(self, history: FloatArray) -> tuple[float, float] | None:
        self.judged.append(len(history))
        return -100.0, 100.0


@pytest.mark.parametrize(
    ("series", "span", "judged"),
    [
        # 2 undecided points in a span of 8: point by point for a bounds-only detector
        ([1, 99, 2, 3, 4, 5, 6, 7, 99, 8], (1, 9), [1, 8]),
        # 3 of 4: the span is cheaper than a call per point
        ([1, 99, 99, 2, 99, 3], (1, 5), [1, 2, 3, 4]),
        ([1, 2, 99], (2, 3), [2]),
    ],
)
def test_interval_independent_members_see_the_span_or_single_points(
    series: list[float], span: tuple[int, int], judged: list[int]
) -> None:
    vectorised, per_point = SpanRecording(), BoundsRecording()
    AllOf(SimpleThreshold(upper_bound=50), vectorised).evaluate(series)
    AllOf(SimpleThreshold(upper_bound=50), per_point).evaluate(series)
    assert vectorised.intervals == [span]
    assert per_point.judged == judged


@pytest.mark.parametrize(
    ("kind", "value", "status", "band", "members_in_detail"),
    [
        # AllOf: fine for the first member -> its band only (the second was never asked)
        (AllOf, 7.0, Status.OK, (0.0, 10.0), 0),
        # flagged by the first, fine for the second -> the hull of both bands
        (AllOf, 12.0, Status.OK, (0.0, 20.0), 0),
        (AllOf, 25.0, Status.ANOMALY, (0.0, 20.0), 2),
        # AnyOf: flagged by the first -> its band and detail only
        (AnyOf, 12.0, Status.ANOMALY, (0.0, 10.0), 1),
        (AnyOf, 7.0, Status.OK, (5.0, 10.0), 0),
        (AnyOf, 6.0, Status.OK, (5.0, 10.0), 0),
        (AnyOf, 3.0, Status.ANOMALY, (5.0, 10.0), 1),
    ],
)
def test_band_and_detail_of_points_decided_early(
    kind: type[_Combination],
    value: float,
    status: Status,
    band: tuple[float, float],
    members_in_detail: int,
) -> None:
    low = SimpleThreshold(lower_bound=0, upper_bound=10)
    high = SimpleThreshold(lower_bound=5, upper_bound=20)
    result = kind(low, high).evaluate([value])
    assert result.status == [status]
    assert (result.lower[0], result.upper[0]) == band
    assert result.detail[0].count("[SimpleThreshold]") == members_in_detail
    assert result.confidence[0] == (1.0 if status is Status.ANOMALY else 0.0)


def test_a_missing_value_is_described_by_the_first_member() -> None:
    result = AllOf(SimpleThreshold(upper_bound=1), BatchNormal()).evaluate([1.0, math.nan])
    assert result.status == [Status.OK, Status.MISSING]
    assert result.detail[1] == "[AllOf] [SimpleThreshold] Value is missing (NaN): not evaluated."


@pytest.mark.parametrize(
    "detector",
    [
        OnlineNormal(),
        AbsoluteChange(-6, 6),
        RobustMAD(window=14),
        NearMedian(),
        AlertFatigue(OnlineNormal(), first_of_run=True, cooldown=3),
        AlertFatigue(RobustMAD(), k=2, n=3),
        KOfLastN(OnlineNormal(), 2, 3),
        AllOf(OnlineNormal(), AnyOf(RobustMAD(), AbsoluteChange(-6, 6))),
    ],
    ids=lambda d: type(d).__name__,
)
def test_interval_independent_detectors_judge_sub_intervals_alike(detector: Detector) -> None:
    assert detector.interval_independent
    whole = detector.evaluate(SERIES).to_frame()
    for start, end in [(0, 5), (20, 21), (30, 45), (44, 47)]:
        part = detector.evaluate(SERIES, (start, end)).to_frame()
        pd.testing.assert_frame_equal(part, whole.iloc[start:end].reset_index(drop=True))


@pytest.mark.parametrize(
    "detector",
    [
        BatchNormal(),
        OnlineNormal(include_current_point=True),
        KOfLastN(BatchNormal(), 1, 2),
        AllOf(OnlineNormal(), BatchNormal()),
        as_detector(Recording()),
    ],
    ids=lambda d: type(d).__name__,
)
def test_interval_dependent_detectors_say_so(detector: Detector) -> None:
    assert not detector.interval_independent

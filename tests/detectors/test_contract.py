"""The contract every detector keeps, built-in or user-defined."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from detectors import (
    AbsoluteChange,
    Adaptive,
    AllOf,
    Anomaly,
    AnyOf,
    BatchNormal,
    Detector,
    HoltWinters,
    KOfLastN,
    OnlineNormal,
    RelativeRateOfChange,
    RobustMAD,
    SeasonalArima,
    SimpleThreshold,
    Status,
    SupportsDetect,
    as_detector,
    detect_frame,
)
from detectors.base import Interval
from detectors.evaluation import FloatArray
from tests.detectors.data import weekly


class WithinTwoOfMedian(Detector):
    """A user detector written against the base class: it only says what it expects."""

    def bounds(self, history: FloatArray) -> tuple[float, float] | None:
        if len(history) < 3:
            return None
        median = float(np.median(history))
        return median - 2.0, median + 2.0


class DeequStyle:
    """A user detector with only Deequ's detect (no base class)."""

    def detect(self, values: object, interval: Interval | None = None) -> list[Anomaly]:
        x = np.asarray(values, dtype=float)
        start, end = interval or (0, None)
        end = len(x) if end is None else end
        return [
            Anomaly(i, float(x[i]), 1.0, 0.0, 20.0, f"[DeequStyle] Value {x[i]} is not in [0, 20].")
            for i in range(start, end)
            if not 0.0 <= x[i] <= 20.0
        ]


DETECTORS: dict[str, SupportsDetect] = {
    "Adaptive": Adaptive(),
    "Adaptive(daily points)": Adaptive(spacing=86_400),
    "Adaptive(side=upper)": Adaptive(side="upper", season=7),
    "Adaptive(holidays=US)": Adaptive(holidays="US"),  # its daily times hold New Year's Day
    "SimpleThreshold": SimpleThreshold(lower_bound=0, upper_bound=20),
    "OnlineNormal": OnlineNormal(),
    "OnlineNormal(Deequ)": OnlineNormal(include_current_point=True),
    "BatchNormal": BatchNormal(),
    "AbsoluteChange": AbsoluteChange(-10, 10),
    "RelativeRateOfChange": RelativeRateOfChange(0.3, 3.0),
    "HoltWinters": HoltWinters(7),
    "SeasonalArima": SeasonalArima(seasonal_order=(0, 1, 1, 7)),
    "RobustMAD": RobustMAD(),
    "AllOf": AllOf(OnlineNormal(), AbsoluteChange(-10, 10)),
    "AnyOf": AnyOf(SimpleThreshold(upper_bound=20), RobustMAD()),
    "KOfLastN": KOfLastN(OnlineNormal(), 1, 2),
    "user Detector subclass": WithinTwoOfMedian(),
    "user detect-only object": DeequStyle(),
}
HAS_BANDS = {name for name in DETECTORS if name != "user detect-only object"}
SERIES = [*weekly(4, seed=7), 40.0, 11.0, 14.0]  # a spike at 28
INTERVAL = (26, 30)


@pytest.fixture(params=list(DETECTORS), ids=list(DETECTORS))
def name(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def test_empty_input(name: str) -> None:
    detector = DETECTORS[name]
    assert detector.detect([]) == []
    assert len(as_detector(detector).evaluate([])) == 0
    assert detector.detect([], (0, 0)) == []


def test_one_point(name: str) -> None:
    evaluation = as_detector(DETECTORS[name]).evaluate([10.0])
    assert len(evaluation) == 1
    assert evaluation.status[0] in (Status.OK, Status.INSUFFICIENT_HISTORY)


def test_nan_is_missing_and_never_flagged(name: str) -> None:
    series = list(SERIES)
    series[27] = math.nan
    detector = as_detector(DETECTORS[name])  # what every layer calls, for plug-ins too
    assert detector.evaluate(series, INTERVAL).status[1] is Status.MISSING
    assert 27 not in [a.index for a in detector.detect(series, INTERVAL)]


def test_constant_series_has_no_anomalies(name: str) -> None:
    assert DETECTORS[name].detect([10.0] * 30) == []
    assert DETECTORS[name].detect([10.0] * 30, (29, 30)) == []


def test_interval_is_respected(name: str) -> None:
    detector = as_detector(DETECTORS[name])
    evaluation = detector.evaluate(SERIES, INTERVAL)
    assert evaluation.index.tolist() == list(range(*INTERVAL))
    assert detector.evaluate(SERIES, (30, 99)).index.tolist() == [30]
    for anomaly in DETECTORS[name].detect(SERIES, INTERVAL):
        assert INTERVAL[0] <= anomaly.index < INTERVAL[1]
        assert anomaly.value == SERIES[anomaly.index]


def test_the_spike_is_flagged_with_details_and_bounds(name: str) -> None:
    anomalies = DETECTORS[name].detect(SERIES, INTERVAL)
    assert 28 in [a.index for a in anomalies]
    prefix = f"[{as_detector(DETECTORS[name]).name}]"
    for anomaly in anomalies:
        assert anomaly.detail.startswith(prefix)
        assert anomaly.value < anomaly.lower or anomaly.value > anomaly.upper
        assert 0.0 <= anomaly.confidence <= 1.0


def test_every_judged_point_reports_a_band(name: str) -> None:
    evaluation = as_detector(DETECTORS[name]).evaluate(SERIES, INTERVAL)
    judged = np.isin(evaluation.codes, [0, 1])
    assert judged.any()
    if name in HAS_BANDS:
        assert not np.isnan(evaluation.lower[judged]).any()
        assert not np.isnan(evaluation.upper[judged]).any()
        fine = evaluation.codes == 0
        assert (evaluation.lower[fine] <= evaluation.value[fine]).all()
        assert (evaluation.value[fine] <= evaluation.upper[fine]).all()
    for detail, status in zip(evaluation.detail, evaluation.status, strict=True):
        if status is not Status.OK:
            assert detail.startswith(f"[{as_detector(DETECTORS[name]).name}]")


def test_deterministic(name: str) -> None:
    first = as_detector(DETECTORS[name]).evaluate(SERIES, INTERVAL).to_frame()
    second = as_detector(DETECTORS[name]).evaluate(np.array(SERIES), INTERVAL).to_frame()
    pd.testing.assert_frame_equal(first, second)


def test_detect_is_evaluate_filtered(name: str) -> None:
    detector = DETECTORS[name]
    assert (
        detector.detect(SERIES, INTERVAL)
        == as_detector(detector).evaluate(SERIES, INTERVAL).anomalies()
    )


def test_works_per_group(name: str) -> None:
    days = pd.date_range("2024-01-01", periods=len(SERIES), freq="D")
    frame = pd.DataFrame({"board": "a", "timestamp": days, "value": SERIES})
    frame = pd.concat([frame, frame.assign(board="b", value=[*SERIES[:-3], 11.0, 11.0, 14.0])])
    result = detect_frame(
        frame, DETECTORS[name], by="board", newest_only=True, anomalies_only=False
    )
    assert result["board"].tolist() == ["a", "b"]
    assert result["history"].tolist() == [len(SERIES) - 1] * 2


def test_interval_independence_holds_when_claimed(name: str) -> None:
    # Compositions evaluate such members on sub-intervals only: the result must not change.
    detector = as_detector(DETECTORS[name])
    if not detector.interval_independent:
        return
    whole = detector.evaluate(SERIES).to_frame()
    for start, end in [(0, 3), (INTERVAL[0], INTERVAL[0] + 1), INTERVAL]:
        part = detector.evaluate(SERIES, (start, end)).to_frame()
        pd.testing.assert_frame_equal(part, whole.iloc[start:end].reset_index(drop=True))

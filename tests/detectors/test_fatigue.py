from __future__ import annotations

import math

import numpy as np
import pytest

from detectors import (
    AlertFatigue,
    InvalidParameterError,
    KOfLastN,
    OnlineNormal,
    RobustMAD,
    SimpleThreshold,
    Status,
    walk_forward,
)

OVER = SimpleThreshold(upper_bound=10)
#         0   1   2   3  4   5  6  7   8   9  10  11
BURSTS = [1, 20, 20, 20, 1, 20, 1, 1, 20, 20, 1, 20]


def alerts(detector: object, series: list[float], **kwargs: object) -> list[int]:
    return [a.index for a in AlertFatigue(detector, **kwargs).detect(series)]  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("controls", "expected"),
    [
        ({"first_of_run": True}, [1, 5, 8, 11]),
        ({"cooldown": 1}, [1, 3, 5, 8, 11]),
        ({"cooldown": 2}, [1, 5, 8, 11]),
        ({"cooldown": 3}, [1, 5, 9]),  # 8 is 3 points after 5; 9 is 4
        ({"cooldown": 3, "first_of_run": True}, [1, 5, 11]),  # 9 continues the run of 8
        ({"k": 2, "n": 2}, [2, 3, 9]),  # only the second of two in a row
        ({"k": 2, "n": 3}, [2, 3, 5, 9, 11]),
        ({"k": 2, "n": 3, "first_of_run": True}, [2, 5, 9, 11]),  # runs of KOfLastN alerts
    ],
)
def test_controls_on_bursts(controls: dict[str, object], expected: list[int]) -> None:
    assert alerts(OVER, BURSTS, **controls) == expected


def test_first_of_run_and_cooldown_are_what_the_series_before_says() -> None:
    # The same last point, with different histories before it.
    detector = AlertFatigue(OVER, first_of_run=True)
    assert detector.evaluate([1, 20, 20], (2, 3)).status == [Status.OK]
    assert detector.evaluate([1, 1, 20], (2, 3)).status == [Status.ANOMALY]
    cooling = AlertFatigue(OVER, cooldown=3)
    assert cooling.evaluate([20, 1, 1, 20], (3, 4)).status == [Status.OK]
    assert cooling.evaluate([20, 1, 1, 1, 20], (4, 5)).status == [Status.ANOMALY]
    # A persistent anomaly re-alerts every cooldown + 1 points.
    assert alerts(OVER, [20] * 10, cooldown=3) == [0, 4, 8]


def test_minimum_change_is_measured_from_the_expected_value() -> None:
    # Both sides bounded: the expected value is the centre of the band, 10 +- 3 * sd.
    steady = [10.0, 10.2, 9.8, 10.1, 9.9, 10.0, 10.1, 9.9, 10.0, 10.2]
    detector = OnlineNormal(ignore_start_percentage=0, prediction_interval=False)
    assert [a.index for a in detector.detect([*steady, 10.8])] == [10]
    assert alerts(detector, [*steady, 10.8], min_absolute_change=1.0) == []
    assert alerts(detector, [*steady, 11.2], min_absolute_change=1.0) == [10]
    assert alerts(detector, [*steady, 10.8], min_relative_change=0.05) == [10]
    assert alerts(detector, [*steady, 10.8], min_relative_change=0.1) == []
    # Both minimums must be met.
    assert alerts(detector, [*steady, 11.2], min_absolute_change=1, min_relative_change=0.2) == []
    # An open side: the change is measured from the previous value (here 9 -> 12: 3).
    assert alerts(OVER, [9, 12], min_absolute_change=3) == [1]
    assert alerts(OVER, [9, 12], min_absolute_change=3.5) == []
    assert alerts(OVER, [12], min_absolute_change=100) == [0]  # nothing to compare: alert


def test_suppressed_anomalies_are_ok_with_the_band_and_a_reason() -> None:
    evaluation = AlertFatigue(OVER, first_of_run=True, cooldown=5).evaluate(BURSTS)
    assert evaluation.status[2] is Status.OK and evaluation.upper[2] == 10.0
    assert evaluation.detail[2].startswith("[AlertFatigue] Not alerted, not the first anomaly")
    assert "cooldown: the last alert was 4 point(s) before" in evaluation.detail[5]
    assert evaluation.detail[1].startswith("[AlertFatigue] [SimpleThreshold] Value 20.0")
    minimum = AlertFatigue(OVER, min_absolute_change=50).evaluate([1, 20])
    assert "below the minimum (50 absolute" in minimum.detail[1]
    assert minimum.status == [Status.OK, Status.OK]


def test_insufficient_history_and_missing_pass_through() -> None:
    evaluation = AlertFatigue(RobustMAD(min_history=3), first_of_run=True).evaluate(
        [1.0, 2.0, math.nan, 1.5, 30.0]
    )
    assert evaluation.status == [
        Status.INSUFFICIENT_HISTORY,
        Status.INSUFFICIENT_HISTORY,
        Status.MISSING,
        Status.INSUFFICIENT_HISTORY,
        Status.ANOMALY,
    ]


def test_k_of_n_reuses_k_of_last_n() -> None:
    wrapped = AlertFatigue(OVER, k=2, n=3, cooldown=1)
    assert wrapped.inner == KOfLastN(OVER, 2, 3)
    assert AlertFatigue(OVER, cooldown=1).inner is OVER


@pytest.mark.parametrize(
    "inner", [OVER, OnlineNormal(ignore_start_percentage=0), RobustMAD(min_history=3)]
)
@pytest.mark.parametrize(
    "controls",
    [
        {"first_of_run": True},
        {"cooldown": 3},
        {"first_of_run": True, "cooldown": 4, "min_relative_change": 0.1},
        {"k": 2, "n": 3, "cooldown": 2},
    ],
)
def test_newest_point_checks_agree_with_one_pass_over_the_series(
    inner: object, controls: dict[str, object]
) -> None:
    rng = np.random.default_rng(7)
    detector = AlertFatigue(inner, **controls)  # type: ignore[arg-type]
    for trial in range(6):
        n = int(rng.integers(5, 30))
        x = 10 + rng.normal(0, 0.5, n) + np.where(rng.random(n) < 0.35, 12.0, 0.0)
        baseline = rng.random(n) < 0.8 if trial % 2 else None
        whole = walk_forward(detector, x, baseline=baseline)
        for i in range(n):
            history = x[:i] if baseline is None else x[:i][baseline[:i]]
            row = np.append(history, x[i])
            newest = detector.evaluate(row, (len(row) - 1, len(row)))
            assert (newest.codes[0], newest.detail[0]) == (whole.codes[i], whole.detail[i])


@pytest.mark.parametrize(
    ("kwargs", "parameter"),
    [
        ({}, "first_of_run/min_absolute_change"),
        ({"cooldown": -1}, "cooldown"),
        ({"cooldown": 1.5}, "cooldown"),
        ({"first_of_run": "yes"}, "first_of_run"),
        ({"min_relative_change": -0.1}, "min_relative_change"),
        ({"min_absolute_change": math.nan}, "min_absolute_change"),
        ({"k": 3, "n": 2}, "n"),
    ],
)
def test_bad_controls_name_the_parameter(kwargs: dict[str, object], parameter: str) -> None:
    with pytest.raises(InvalidParameterError, match=parameter) as error:
        AlertFatigue(OVER, **kwargs)  # type: ignore[arg-type]
    assert error.value.parameter.startswith(parameter)


def test_the_wrapped_object_must_detect() -> None:
    with pytest.raises(InvalidParameterError, match="detector must have a detect"):
        AlertFatigue(object(), first_of_run=True)

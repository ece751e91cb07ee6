from __future__ import annotations

import math

import pandas as pd
import pytest

from detectors import (
    AbsoluteChange,
    OnlineNormal,
    SimpleThreshold,
    Status,
    Verdict,
    detect_series,
    is_newest_anomalous,
)
from detectors.errors import InvalidTimeError
from detectors.series import clean_series

DAYS = pd.date_range("2024-01-01", periods=6, freq="D")


def test_cleaning_sorts_drops_missing_and_keeps_the_last_duplicate() -> None:
    points = [
        (DAYS[2], 3.0),
        (DAYS[0], 1.0),
        (DAYS[1], None),
        (pd.NaT, 9.0),
        (DAYS[2], 4.0),
        (DAYS[3], math.nan),
    ]
    series = clean_series(points)
    assert series.index.tolist() == [DAYS[0], DAYS[2]]
    assert series.tolist() == [1.0, 4.0]


@pytest.mark.parametrize(
    "points",
    [
        pd.Series([1.0, 1.0, 9.0], index=DAYS[:3]),
        {DAYS[2]: 9.0, DAYS[0]: 1.0, DAYS[1]: 1.0},
        [("2024-01-03", 9.0), ("2024-01-01", 1.0), ("2024-01-02", 1.0)],
    ],
)
def test_accepts_series_mappings_and_pairs(points: object) -> None:
    result = detect_series(points, AbsoluteChange(max_rate_increase=5))  # type: ignore[arg-type]
    assert result["time"].tolist() == [DAYS[2]]
    assert result["history"].tolist() == [2]


def test_time_bounds_are_lower_inclusive_upper_exclusive() -> None:
    points = pd.Series([5.0, 5.0, 5.0, 5.0, 5.0, 5.0], index=DAYS)
    result = detect_series(points, SimpleThreshold(upper_bound=1), start=DAYS[1], end=DAYS[4])
    assert result["time"].tolist() == list(DAYS[1:4])
    everything = detect_series(points, SimpleThreshold(upper_bound=1), start="2024-01-05")
    assert everything["time"].tolist() == list(DAYS[4:])
    assert detect_series(points, SimpleThreshold(upper_bound=1), start=DAYS[5], end=DAYS[2]).empty


def test_anomalies_only_false_returns_every_point_with_its_band() -> None:
    points = pd.Series([1.0, math.nan, 2.0, 9.0], index=DAYS[:4])
    result = detect_series(points, AbsoluteChange(-2, 2), anomalies_only=False)
    assert list(result.columns) == [
        "time",
        "value",
        "status",
        "lower",
        "upper",
        "confidence",
        "detail",
        "history",
    ]
    assert result["status"].tolist() == ["insufficient history", "ok", "anomaly"]
    assert result[["lower", "upper"]].iloc[1].tolist() == [-1.0, 3.0]


def test_integer_times_work_too() -> None:
    result = detect_series({3: 9.0, 1: 1.0, 2: 1.0}, AbsoluteChange(max_rate_increase=5), start=2)
    assert result["time"].tolist() == [3]


HISTORY = pd.Series([10.0, 11.0, 9.0, 10.0, 10.5], index=DAYS[:5])


def test_newest_point_verdicts() -> None:
    spike = is_newest_anomalous(HISTORY, (DAYS[5], 30.0), OnlineNormal())
    assert isinstance(spike, Verdict) and spike and spike.is_anomaly
    assert spike.status is Status.ANOMALY and spike.history == 5 and spike.time == DAYS[5]
    assert spike.detail.startswith("[OnlineNormal] Value 30.0")
    fine = is_newest_anomalous(HISTORY, 10.2, OnlineNormal())
    assert not fine and fine.status is Status.OK and fine.time is None
    assert fine.lower < 10.2 < fine.upper  # bounds for a fine point too


def test_newest_point_never_sees_itself_or_later_runs() -> None:
    rerun = pd.concat([HISTORY, pd.Series([30.0], index=[DAYS[5]])])
    verdict = is_newest_anomalous(rerun, ("2024-01-06", 30.0), OnlineNormal())
    assert verdict and verdict.history == 5
    backfill = is_newest_anomalous(rerun, (DAYS[2], 9.0), OnlineNormal(prediction_interval=False))
    assert backfill.history == 2 and (backfill.lower, backfill.upper) == (9.0, 12.0)


def test_newest_point_missing_or_without_history_is_a_status() -> None:
    assert is_newest_anomalous(HISTORY, math.nan, OnlineNormal()).status is Status.MISSING
    assert is_newest_anomalous(HISTORY, None, OnlineNormal()).status is Status.MISSING
    alone = is_newest_anomalous([], 5.0, OnlineNormal())
    assert alone.status is Status.INSUFFICIENT_HISTORY and not alone and alone.history == 0
    assert "Insufficient history" in alone.detail


@pytest.mark.parametrize(
    ("times", "bad"),
    [
        (["2024-01-01", "2024-01-02", "yesterday", "2024-01-04"], ["'yesterday'"]),
        (
            ["2024-01-01", "2024-13-01", "2024-01-03", "2024-02-30"],
            ["'2024-13-01'", "'2024-02-30'"],
        ),
        ([DAYS[0], DAYS[1], "not a time"], ["'not a time'"]),
    ],
)
def test_an_unparseable_time_is_an_error_naming_it(times: list[object], bad: list[str]) -> None:
    points = [(t, float(i)) for i, t in enumerate(times)]
    with pytest.raises(InvalidTimeError, match="cannot be read as times") as raised:
        detect_series(points, SimpleThreshold(upper_bound=1))
    message = str(raised.value)
    assert all(value in message for value in bad)
    assert f"{len(bad)} of {len(times)}" in message and "ISO 8601" in message
    assert isinstance(raised.value, ValueError)


def test_times_in_several_formats_are_all_read_none_dropped() -> None:
    points = [
        ("2024-01-01", 1.0),
        (None, 5.0),  # a missing time: dropped
        ("2024-01-02T06:00", 1.0),
        ("2024-01-03 12:30:00", 9.0),
    ]
    result = detect_series(points, SimpleThreshold(upper_bound=2), anomalies_only=False)
    assert result["time"].tolist() == [
        pd.Timestamp("2024-01-01"),
        pd.Timestamp("2024-01-02 06:00"),
        pd.Timestamp("2024-01-03 12:30"),
    ]

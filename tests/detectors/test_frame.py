from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from detectors import (
    AbsoluteChange,
    Anomaly,
    HoltWinters,
    MatrixDetector,
    OnlineNormal,
    RelativeRateOfChange,
    SeasonalArima,
    SimpleThreshold,
    detect_frame,
    detect_series,
    is_newest_anomalous,
)
from tests.detectors.data import weekly

COLUMNS = [
    "board",
    "timestamp",
    "value",
    "status",
    "lower",
    "upper",
    "confidence",
    "detail",
    "history",
]
GROWTH = [0, 1, 3, 6, 18, 72]


def frame_of(groups: Mapping[object, Sequence[float]]) -> pd.DataFrame:
    days = pd.date_range("2024-01-01", periods=max(map(len, groups.values())), freq="D")
    rows = [(g, days[i], v) for g, values in groups.items() for i, v in enumerate(values)]
    return pd.DataFrame(rows, columns=["board", "timestamp", "value"])


def test_deequ_examples_per_group() -> None:
    frame = frame_of({"a": GROWTH, "b": [1, 1, 1, 1, 1, 1]})
    result = detect_frame(frame, AbsoluteChange(max_rate_increase=8, order=2), by="board")
    assert list(result.columns) == COLUMNS
    assert result[["board", "history", "value"]].values.tolist() == [["a", 4, 18.0], ["a", 5, 72.0]]
    ratios = detect_frame(frame, RelativeRateOfChange(max_rate_increase=8, order=2), by=["board"])
    assert ratios["history"].tolist() == [2, 5]


def test_newest_only_reports_every_group_including_fine_and_too_short_ones() -> None:
    frame = frame_of(
        {"spike": [10, 11, 9, 10, 10.5, 30], "fine": [10, 11, 9, 10, 10.5, 10], "new": [5]}
    )
    result = detect_frame(frame, OnlineNormal(), by="board", newest_only=True, anomalies_only=False)
    assert result[["board", "status"]].values.tolist() == [
        ["fine", "ok"],
        ["new", "insufficient history"],
        ["spike", "anomaly"],
    ]
    assert result["history"].tolist() == [5, 0, 5]
    assert result["lower"].iloc[0] < 10 < result["upper"].iloc[0]
    anomalies = detect_frame(frame, OnlineNormal(), by="board", newest_only=True)
    assert anomalies["board"].tolist() == ["spike"]


def test_custom_column_names_null_groups_and_unsorted_duplicated_input() -> None:
    frame = pd.DataFrame(
        {
            "g": ["x", None, "x", "x", None],
            "day": [3, 1, 1, 2, 2],
            "metric": [50.0, 1.0, 1.0, 2.0, 9.0],
        }
    )
    frame = pd.concat([frame, pd.DataFrame({"g": ["x"], "day": [3], "metric": [3.0]})])
    result = detect_frame(
        frame, AbsoluteChange(-5, 5), by="g", time="day", value="metric", anomalies_only=False
    )
    assert list(result.columns[:3]) == ["g", "day", "metric"]
    # x at day 3 was re-written: 3.0 replaces 50.0; the null group is a group of its own
    assert result[["g", "day", "metric", "status"]].values.tolist() == [
        ["x", 1, 1.0, "insufficient history"],
        ["x", 2, 2.0, "ok"],
        ["x", 3, 3.0, "ok"],
        [None, 1, 1.0, "insufficient history"],
        [None, 2, 9.0, "anomaly"],
    ]


def test_without_group_columns_the_frame_is_one_series() -> None:
    frame = pd.DataFrame({"timestamp": [3, 1, 2], "value": [72.0, 1.0, 3.0]})
    result = detect_frame(frame, AbsoluteChange(max_rate_increase=8))
    assert list(result.columns) == COLUMNS[1:]
    assert result[["timestamp", "history"]].values.tolist() == [[3, 2]]


def test_empty_frame_and_missing_columns() -> None:
    empty = frame_of({"a": [1.0]}).iloc[:0]
    result = detect_frame(empty, OnlineNormal(), by="board")
    assert result.empty and list(result.columns) == COLUMNS
    with pytest.raises(ValueError, match=r"no column\(s\) \['board'\]"):
        detect_frame(frame_of({"a": [1.0]}).drop(columns="board"), OnlineNormal(), by="board")


class EverythingAboveTen:
    """A user detector with only Deequ's detect."""

    def detect(self, values: object, interval: tuple[int, int] | None = None) -> list[Anomaly]:
        x = np.asarray(values, dtype=float)
        start, end = interval or (0, len(x))
        return [
            Anomaly(i, float(x[i]), 1.0, -math.inf, 10.0, "[EverythingAboveTen] too big")
            for i in range(start, end)
            if x[i] > 10
        ]


def test_any_detector_works_per_group() -> None:
    frame = frame_of({"a": [1, 20, 3], "b": [30, 1, 1]})
    result = detect_frame(frame, EverythingAboveTen(), by="board")
    assert result[["board", "history", "detail"]].values.tolist() == [
        ["a", 1, "[EverythingAboveTen] too big"],
        ["b", 0, "[EverythingAboveTen] too big"],
    ]


def test_model_detectors_per_group_match_their_series_results() -> None:
    frame = frame_of({"a": [*weekly(6, seed=1), 25.0], "b": [*weekly(6, seed=2), 10.0]})
    for detector in (HoltWinters(7), SeasonalArima(seasonal_order=(0, 1, 1, 7))):
        result = detect_frame(frame, detector, by="board", newest_only=True, anomalies_only=False)
        assert result["status"].tolist() == ["anomaly", "ok"]
        for _, row in result.iterrows():
            points = frame[frame["board"] == row["board"]].set_index("timestamp")["value"]
            verdict = is_newest_anomalous(
                points.iloc[:-1], (points.index[-1], points.iloc[-1]), detector
            )
            assert (row["lower"], row["upper"], row["detail"]) == (
                verdict.lower,
                verdict.upper,
                verdict.detail,
            )


VECTORISED: list[MatrixDetector] = [
    OnlineNormal(),
    OnlineNormal(1.0, 2.0, ignore_start_percentage=0.0, ignore_anomalies=False),
    OnlineNormal(None, 1.5, include_current_point=True),
    SimpleThreshold(lower_bound=-5, upper_bound=5),
    AbsoluteChange(-3, 3),
    AbsoluteChange(max_rate_increase=2, order=2),
    RelativeRateOfChange(0.5, 2.0),
]
values = st.one_of(st.floats(-20, 20), st.just(math.nan), st.just(math.inf))


@st.composite
def long_frames(draw: st.DrawFn) -> pd.DataFrame:
    rows = []
    for group in range(draw(st.integers(1, 4))):
        times = draw(st.lists(st.integers(0, 30), max_size=25))  # duplicates happen
        rows += [(f"g{group}", t, draw(values)) for t in times]
    order = draw(st.permutations(range(len(rows))))
    frame = pd.DataFrame([rows[i] for i in order], columns=["board", "timestamp", "value"])
    return frame.astype({"value": "float64", "timestamp": "int64"})


@settings(max_examples=150, deadline=None)
@given(frame=long_frames(), index=st.integers(0, len(VECTORISED) - 1), newest=st.booleans())
def test_vectorised_path_equals_the_per_group_series_path(
    frame: pd.DataFrame, index: int, newest: bool
) -> None:
    detector = VECTORISED[index]
    result = detect_frame(frame, detector, by="board", newest_only=newest, anomalies_only=False)
    expected = []
    for board, group in frame.groupby("board", sort=True):
        points = list(zip(group["timestamp"], group["value"], strict=True))
        # Deequ's mode never screens points before the interval: its newest verdict is the
        # one of an interval holding just the newest point.
        rows = detect_series(points, detector, anomalies_only=False)
        if newest and not detector.interval_independent and len(rows):
            newest_time = rows["time"].iloc[-1]
            rows = detect_series(points, detector, start=newest_time, anomalies_only=False)
        if newest:
            rows = rows.iloc[-1:]
        expected.append(rows.rename(columns={"time": "timestamp"}).assign(board=board))
    want = pd.concat(expected, ignore_index=True) if expected else result.iloc[:0]
    assert len(result) == len(want)
    for column in COLUMNS:
        got, ref = result[column].tolist(), want[column].tolist()
        same = got == ref or np.array_equal(
            np.array(got, float), np.array(ref, float), equal_nan=True
        )
        assert same, column

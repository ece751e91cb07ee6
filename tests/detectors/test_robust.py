from __future__ import annotations

import numpy as np
import pytest

from detectors import OnlineNormal, RobustMAD, Status


@pytest.mark.parametrize(
    ("detector", "series", "flagged"),
    [
        (RobustMAD(min_history=3), [10.0, 10.5, 9.5, 60.0, 10.2, 9.8, 10.1, 30.0], [3, 7]),
        (RobustMAD(), [10.0, 10.5, 9.5, 10.2, 9.8, 10.1, 9.9, 10.0], []),
        (RobustMAD(upper_deviation_factor=None), [10.0, 10.5, 9.5, 10.2, 9.8, 100.0], []),
        (RobustMAD(lower_deviation_factor=None), [10.0, 10.5, 9.5, 10.2, 9.8, 100.0], [5]),
        # more than half the history at one value: the mean absolute deviation sets the scale
        (RobustMAD(), [1, 1, 1, 1, 1.1, 1, 1, 1.05, 1.2], [8]),
        (RobustMAD(), [3.0] * 8, []),
        (RobustMAD(), [3.0] * 8 + [3.01], [8]),
        (RobustMAD(), [], []),
        (RobustMAD(), [1.0], []),
    ],
)
def test_flags(detector: RobustMAD, series: list[float], flagged: list[int]) -> None:
    assert [a.index for a in detector.detect(series)] == flagged


def test_band_is_median_plus_minus_scaled_mad_of_earlier_points() -> None:
    series = [10.0, 12.0, 11.0, 9.0, 13.0, 11.5]
    evaluation = RobustMAD().evaluate(series, (5, 6))
    # history median 11, absolute deviations [1, 1, 0, 2, 2] -> MAD 1
    assert evaluation.lower[0] == pytest.approx(11 - 3.5 * 1.4826)
    assert evaluation.upper[0] == pytest.approx(11 + 3.5 * 1.4826)


def test_an_outlier_in_the_history_does_not_widen_the_band() -> None:
    series = [10.0, 10.2, 9.8, 10.1, 9.9, 500.0, 10.0, 10.1, 9.9, 14.0]
    robust = RobustMAD().evaluate(series, (9, 10))
    normal = OnlineNormal(ignore_anomalies=False, ignore_start_percentage=0).evaluate(
        series, (9, 10)
    )
    assert robust.status == [Status.ANOMALY]
    assert normal.status == [Status.OK]


def test_window_and_min_history() -> None:
    series = [100.0] * 20 + [10.0, 10.2, 9.8, 10.1, 9.9, 10.0]
    assert RobustMAD(window=5).evaluate(series, (25, 26)).status == [Status.OK]
    assert RobustMAD().evaluate(series, (25, 26)).status == [Status.ANOMALY]
    short = RobustMAD(min_history=5).evaluate([1.0, 2.0, 3.0, 4.0, 50.0])
    assert set(short.status) == {Status.INSUFFICIENT_HISTORY}
    assert "4 usable points before 4" in short.detail[4]
    assert np.isnan(short.upper).all()

from __future__ import annotations

import math

import pytest

from detectors import SimpleThreshold, Status

NAN = math.nan


@pytest.mark.parametrize(
    ("detector", "series", "interval", "flagged"),
    [
        # Deequ's published example
        (SimpleThreshold(upper_bound=1), [-1, 2, 3, 0.5], None, [1, 2]),
        (SimpleThreshold(upper_bound=1), [-1, 2, 3, 0.5], (2, 4), [2]),
        (SimpleThreshold(lower_bound=0), [1, -2, 3], None, [1]),
        # bounds are inclusive
        (SimpleThreshold(lower_bound=0, upper_bound=10), [5, -1, 11, 10, 0], None, [1, 2]),
        (SimpleThreshold(upper_bound=1), [NAN, 5], None, [1]),
        (SimpleThreshold(upper_bound=1), [math.inf, -math.inf], None, [0]),
        (SimpleThreshold(lower_bound=0), [-math.inf], None, [0]),
        (SimpleThreshold(upper_bound=1), [], None, []),
        (SimpleThreshold(upper_bound=1), [7.0], None, [0]),
        (SimpleThreshold(lower_bound=3, upper_bound=3), [3, 3.0001], None, [1]),
    ],
)
def test_flags(
    detector: SimpleThreshold,
    series: list[float],
    interval: tuple[int, int] | None,
    flagged: list[int],
) -> None:
    assert [a.index for a in detector.detect(series, interval)] == flagged


def test_anomaly_reports_value_bounds_and_deequ_detail() -> None:
    (anomaly,) = SimpleThreshold(lower_bound=-1, upper_bound=1).detect([0, 2])
    assert (anomaly.index, anomaly.value, anomaly.confidence) == (1, 2.0, 1.0)
    assert (anomaly.lower, anomaly.upper) == (-1.0, 1.0)
    assert anomaly.detail == "[SimpleThreshold] Value 2.0 is not in bounds [-1.0, 1.0]."


def test_every_point_has_the_band_and_nan_is_missing() -> None:
    evaluation = SimpleThreshold(upper_bound=1).evaluate([0.5, NAN, 2])
    assert evaluation.status == [Status.OK, Status.MISSING, Status.ANOMALY]
    assert evaluation.lower.tolist() == [-math.inf] * 3
    assert evaluation.upper.tolist() == [1.0] * 3
    assert evaluation.detail[1].startswith("[SimpleThreshold] Value is missing")

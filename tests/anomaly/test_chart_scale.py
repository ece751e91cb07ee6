"""The value axis of a chart: it follows the values, takes in band edges near them, cuts the
others; durations in human units; numbers to significant digits."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from anomaly.chart_scale import (
    REACH,
    chart_scale,
    clip_band,
    duration_unit,
    human_duration,
    significant,
    value_axis,
)
from anomaly.metric_domain import metric_domain

finite = st.floats(min_value=-1e12, max_value=1e12, allow_nan=False)


@given(st.lists(finite, min_size=1, max_size=30), st.lists(finite, max_size=30),
       st.lists(finite, max_size=30))  # fmt: skip
def test_every_value_is_on_the_axis_and_far_band_edges_are_not(
    values: list[float], lower: list[float], upper: list[float]
) -> None:
    axis = value_axis(values, lower, upper)
    assert axis.low <= min(values) and max(values) <= axis.high
    span = (max(values) - min(values)) or abs(max(values)) * 0.1 or 1.0
    for edge in lower + upper:
        far = edge < min(values) - REACH * span or edge > max(values) + REACH * span
        near = not far
        if near:
            assert axis.low <= edge <= axis.high
        elif axis.low <= edge <= axis.high:
            # A far edge is only on the axis when nearer edges already took the axis past it.
            assert axis.high - axis.low > span


def test_the_demo_size_chart_follows_about_100_rows_a_day_not_a_band_of_millions() -> None:
    values = [96.0, 104.0, 99.0, 101.0, 25.0]  # the last day: a partial load
    lower = [-4_000_000.0, -900.0, 70.0, 71.0, 72.0]
    upper = [5_000_000.0, 1_200.0, 130.0, 131.0, 129.0]
    axis = value_axis(values, lower, upper, "Size(*)")
    assert axis.low < 25 and 131 <= axis.high < 150
    above, below = axis.cut_points(*clip_band(lower, upper, metric_domain("Size(*)")))
    assert above.tolist() == [True, True, False, False, False]
    assert not below.any()  # clipped to 0, within reach of the values
    assert axis.inside([5_000_000.0]).tolist() == [axis.high]


@pytest.mark.parametrize(
    ("metric", "lower", "upper", "clipped_lower", "clipped_upper"),
    [
        ("Completeness(price)", [-3.0, 0.95], [3.0, math.inf], [0.0, 0.95], [1.0, 1.0]),
        ("Size(*)", [-50.0, None], [80.0, 90.0], [0.0, math.nan], [80.0, 90.0]),
        ("Correlation(a, b)", [-2.0], [0.5], [-1.0], [0.5]),
        ("Mean(price)", [-2.0, -math.inf], [3.0, 4.0], [-2.0, math.nan], [3.0, 4.0]),
    ],
)
def test_bands_are_clipped_to_the_metric_domain(
    metric: str,
    lower: list[float | None],
    upper: list[float],
    clipped_lower: list[float],
    clipped_upper: list[float],
) -> None:
    lo, hi = clip_band(lower, upper, metric_domain(metric))
    np.testing.assert_array_equal(lo, clipped_lower)
    np.testing.assert_array_equal(hi, clipped_upper)


@pytest.mark.parametrize(
    ("seconds", "shown"),
    [(42.123, "42.1 s"), (119.0, "119 s"), (150.0, "2.5 min"), (5400.0, "90 min"),
     (41_581.0, "11.6 h"), (2.0e7, "231 d"), (-150.0, "-2.5 min"), (None, "-"), (math.inf, "-")],
)  # fmt: skip
def test_durations_are_shown_in_human_units(seconds: float | None, shown: str) -> None:
    assert human_duration(seconds) == shown


def test_a_freshness_axis_is_in_the_unit_of_its_size() -> None:
    scale = chart_scale([1800.0, 2000.0, 86_400.0], [0.0], [3600.0], "Freshness(event_time)")
    assert (scale.unit, scale.size) == ("h", 3600.0)
    axis = value_axis([1800.0, 2000.0, 86_400.0], [0.0], [3600.0], "Freshness(event_time)")
    assert (scale.axis.low, scale.axis.high) == pytest.approx((axis.low / 3600, axis.high / 3600))
    assert chart_scale([0.5], [], [], "Completeness(x)").unit is None
    assert duration_unit([2.0e7]) == ("d", 86400.0)


@pytest.mark.parametrize(
    ("value", "shown"),
    [(0.5460992907801419, "0.5461"), (19.256435258860170, "19.26"), (183.41012415509968, "183.4"),
     (5_000_000.0, "5,000,000"), (1246.3, "1,246"), (0.0, "0"), (-2.5, "-2.5"),
     (3.15e-43, "3.15e-43"), (None, "-"), (math.nan, "-")],
)  # fmt: skip
def test_numbers_are_shown_to_significant_digits(value: float | None, shown: str) -> None:
    assert significant(value) == shown

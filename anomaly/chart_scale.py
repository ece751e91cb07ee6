"""The value axis of a metric's chart, shared by the PNG plots and the report's charts.

The axis follows the values, not the band: a detector's band in its first weeks can reach
millions on a series of a hundred rows a day, and an axis that showed it would flatten the
series into a line at 0. A band edge within one span of the values (``REACH``) widens the axis;
one farther away is drawn cut at the axis edge, where a marker says the band goes on. Bands are
clipped to the metric's domain first (:mod:`anomaly.metric_domain`); durations are shown in the
largest unit (s, min, h, d) that keeps the axis' numbers above 2.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from anomaly.metric_domain import MetricDomain, metric_domain

__all__ = [
    "DURATION_UNITS",
    "REACH",
    "ChartScale",
    "ValueAxis",
    "chart_scale",
    "clip_band",
    "duration_unit",
    "human_duration",
    "significant",
    "value_axis",
]

REACH = 1.0
"""A band edge farther than this many value spans beyond the values is cut, not shown."""
PAD = 0.06
"""Space above and below the values, as a share of the axis."""
DURATION_UNITS = (("s", 1.0), ("min", 60.0), ("h", 3600.0), ("d", 86400.0))

Numbers = Iterable[float | None]


@dataclass(frozen=True)
class ValueAxis:
    """The shown range of a chart's values.

    Examples
    --------
    >>> axis = ValueAxis(0.0, 10.0)
    >>> above, below = axis.cut_points([5.0, 4.0, None], [9.0, 50.0, 60.0])
    >>> above.tolist(), below.tolist()
    ([False, True, True], [False, False, False])
    """

    low: float
    high: float

    def cut_points(self, lower: Numbers, upper: Numbers) -> tuple[np.ndarray, np.ndarray]:
        """Per point: whether the band goes on above the axis, and whether below it."""
        lo, hi = _floats(lower), _floats(upper)
        with np.errstate(invalid="ignore"):
            return hi > self.high, lo < self.low

    def inside(self, values: Numbers) -> np.ndarray:
        """`values` held to the axis (NaN stays NaN): what a cut band is drawn with."""
        return np.clip(_floats(values), self.low, self.high)


@dataclass(frozen=True)
class ChartScale:
    """How a series is drawn: its axis in the shown unit, the unit (``min``, ``h``... for
    durations, else None) and the unit's size in the stored unit (seconds for durations)."""

    axis: ValueAxis
    unit: str | None = None
    size: float = 1.0


def chart_scale(
    values: Numbers, lower: Numbers, upper: Numbers, domain: MetricDomain | str
) -> ChartScale:
    """The axis (`value_axis` of the band clipped to the domain) in the unit durations are shown
    in: the one `duration_unit` gives for the axis' ends.

    Examples
    --------
    >>> scale = chart_scale([3600.0, 7200.0, 9000.0], [0.0], [1e9], "Freshness(*)")
    >>> scale.unit, scale.size, round(scale.axis.low, 2), round(scale.axis.high, 2)
    ('h', 3600.0, -0.15, 2.65)
    """
    chosen = metric_domain(domain) if isinstance(domain, str) else domain
    axis = value_axis(values, lower, upper, chosen)
    if chosen.unit != "s":
        return ChartScale(axis)
    unit, size = duration_unit([axis.low, axis.high])
    return ChartScale(ValueAxis(axis.low / size, axis.high / size), unit, size)


def clip_band(lower: Numbers, upper: Numbers, domain: MetricDomain) -> tuple[np.ndarray, ...]:
    """The band held to `domain`; infinite or missing edges become NaN once clipped (a
    one-sided band of a share, ``[0.9, inf)``, is ``[0.9, 1]``).

    Examples
    --------
    >>> lo, hi = clip_band([-3.0, 0.9, None], [3.0, math.inf, 0.5], metric_domain("Completeness"))
    >>> lo.tolist(), hi.tolist()
    ([0.0, 0.9, nan], [1.0, 1.0, 0.5])
    """
    low = -math.inf if domain.lower is None else domain.lower
    high = math.inf if domain.upper is None else domain.upper
    clipped = []
    for edge in (lower, upper):
        values = np.clip(_floats(edge), low, high)
        clipped.append(np.where(np.isfinite(values), values, np.nan))
    return tuple(clipped)


def value_axis(
    values: Numbers,
    lower: Numbers = (),
    upper: Numbers = (),
    domain: MetricDomain | str = "",
) -> ValueAxis:
    """The axis of a series: its values, widened to the band's edges (clipped to the domain)
    within ``REACH`` spans of them, padded.

    Examples
    --------
    >>> axis = value_axis([95.0, 105.0, 3.0], [80.0, -50.0], [120.0, 5_000_000.0], "Size(*)")
    >>> round(axis.low, 1), round(axis.high, 1)
    (-7.2, 127.2)
    >>> round(value_axis([0.97, 0.99], [0.9], [1.2], "Completeness(x)").high, 3)
    1.002
    """
    chosen = metric_domain(domain) if isinstance(domain, str) else domain
    points = _finite(_floats(values))
    band = np.concatenate([_finite(edge) for edge in clip_band(lower, upper, chosen)])
    if not points.size:
        points = band
    if not points.size:
        return ValueAxis(
            0.0 if chosen.lower is None else chosen.lower,
            1.0 if chosen.upper is None else chosen.upper,
        )
    low, high = float(points.min()), float(points.max())
    span = high - low or abs(high) * 0.1 or 1.0
    near = band[(band >= low - REACH * span) & (band <= high + REACH * span)]
    if near.size:
        low, high = min(low, float(near.min())), max(high, float(near.max()))
    # Padded even past a bound of the domain: a point on the bound (a completeness of 1, a
    # count of 0) stays whole, not half hidden by the frame.
    pad = PAD * ((high - low) or span)
    return ValueAxis(low - pad, high + pad)


def duration_unit(seconds: Numbers) -> tuple[str, float]:
    """The unit to show these seconds in (the largest that keeps the biggest of them >= 2)
    and its length in seconds.

    >>> duration_unit([30.0, 90.0]), duration_unit([2.0e7]), duration_unit([])
    (('s', 1.0), ('d', 86400.0), ('s', 1.0))
    """
    finite = _finite(_floats(seconds))
    biggest = float(np.abs(finite).max()) if finite.size else 0.0
    chosen = DURATION_UNITS[0]
    for unit in DURATION_UNITS:
        if biggest >= 2 * unit[1]:
            chosen = unit
    return chosen


def human_duration(seconds: float | None, digits: int = 3) -> str:
    """A number of seconds in its own unit, to `digits` significant digits.

    >>> human_duration(2.0e7), human_duration(5400), human_duration(42.123), human_duration(None)
    ('231 d', '90 min', '42.1 s', '-')
    """
    if seconds is None or not math.isfinite(seconds):
        return "-"
    name, size = duration_unit([seconds])
    return f"{significant(seconds / size, digits)} {name}"


def significant(value: float | None, digits: int = 4) -> str:
    """`value` to `digits` significant digits, thousands separated, never in exponent form
    below 10^15 (a count of rows stays a whole number).

    >>> significant(5_000_000.123), significant(0.123456789), significant(-2.0), significant(1e-7)
    ('5,000,000', '0.1235', '-2', '1e-07')
    """
    if value is None or not math.isfinite(value):
        return "-"
    if value == 0:
        return "0"
    magnitude = math.floor(math.log10(abs(value)))
    if magnitude >= 15 or magnitude < -4:
        return f"{value:.{digits}g}"
    decimals = max(digits - 1 - magnitude, 0)
    text = f"{value:,.{decimals}f}"
    return text.rstrip("0").rstrip(".") if "." in text else text


def _floats(values: Numbers) -> np.ndarray:
    return np.array([np.nan if v is None else v for v in values], dtype="float64")


def _finite(values: np.ndarray) -> np.ndarray:
    return values[np.isfinite(values)]

"""Bands a reader can trust: finite, within reach of what the series has shown, inside the
metric's domain.

The forecast band lives on a transformed scale (a log for counts and magnitudes); mapped back,
a scale that grew after a holiday drop, or a band calibrated on a few errors, can reach far
beyond anything the metric could be (``[-1.7e220, 4.0e231]`` for daily taxi counts, five
million for a table of a hundred rows a day, a share below zero). Such a band says nothing a
reader can use and hides real changes, so every judged band is cut to

* at most ``RANGE_REACH`` times the range the series' learnt values have spanned before the
  point, beyond that range (its largest value when it has not moved yet, 1 when that is 0);
* the metric's ``domain`` (``(0, 1)`` for ratios, completeness and shares; ``(0, inf)`` for
  counts and sizes), which the caller knows from the analyzer;
* finite numbers.

A point is judged against the band it is shown with: a value beyond the cut band is flagged,
its p-value at most the false-alarm rate (0 outside the domain: the model cannot produce it).
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import NDArray

from detectors.errors import InvalidParameterError

FloatMatrix = NDArray[np.float64]
BoolMatrix = NDArray[np.bool_]
Domain = tuple[float, float]

RANGE_REACH = 10.0
"""How many of its observed ranges a band may reach beyond them: further than any clean
family's normal day comes (t(3) noise reaches 10 ranges of a first week once in 30,000 points),
near enough that a chart of the band still shows the series."""
FINITE = float(np.finfo(np.float64).max) / 4
UNBOUNDED: Domain = (-math.inf, math.inf)


def check_domain(value: object) -> Domain:
    """``(lower, upper)`` numbers with ``lower < upper`` (either may be infinite), or ``None``
    for no bound.

    >>> check_domain((0, 1)), check_domain(None)
    ((0.0, 1.0), (-inf, inf))
    >>> try:
    ...     check_domain((1, 0))
    ... except InvalidParameterError as error:
    ...     print(error.parameter)
    domain
    """
    if value is None:
        return UNBOUNDED
    ok = isinstance(value, tuple | list) and len(value) == 2
    bounds: tuple[object, ...] = tuple(value) if ok else ()  # type: ignore[arg-type]
    ok = ok and all(isinstance(b, int | float) and not isinstance(b, bool) for b in bounds)
    numbers = [float(b) for b in bounds] if ok else []  # type: ignore[arg-type]
    ok = ok and not any(math.isnan(b) for b in numbers) and numbers[0] < numbers[1]
    if not ok:
        raise InvalidParameterError(
            "domain",
            "must be (lower, upper) numbers with lower < upper (either may be infinite) or None",
            value,
        )
    return numbers[0], numbers[1]


def observed_reach_at(
    values: FloatMatrix,
    learn: BoolMatrix,
    at: tuple[NDArray[np.intp], ...],
    domain: Domain = UNBOUNDED,
) -> tuple[FloatMatrix, FloatMatrix]:
    """Per cell of ``at`` (rows, columns in row-major order; one value per cell: a
    newest-point check has one cell a row), the lowest and highest value a band there may
    reach: ``RANGE_REACH`` ranges of the learnt values before it beyond them (NaN for a first
    point); on a domain bounded on both sides, ranges on its angular scale (:func:`to_angle`).

    >>> every, at = np.ones((1, 4), bool), (np.array([0]), np.array([3]))
    >>> low, high = observed_reach_at(np.array([[0.0, 0.01, 0.02, 0.0]]), every, at, (0, 1))
    >>> float(low[0]), round(float(high[0]), 3)
    (0.0, 1.0)
    """
    from detectors.adaptive.kernels.extremes import extremes_through

    low, high = np.full(len(at[0]), np.nan), np.full(len(at[0]), np.nan)
    later = at[1] >= 1  # (a first point has nothing before it)
    if values.shape[1] < 2 or not later.any():
        return low, high
    rows, cols = at[0][later], at[1][later] - 1
    # The learnt values' extremes before each cell (one pass along each row).
    plain = np.ascontiguousarray(values, dtype=np.float64)
    below, above = extremes_through(plain, np.ascontiguousarray(learn, dtype=np.bool_), rows, cols)
    angular = math.isfinite(domain[0]) and math.isfinite(domain[1])
    if angular:  # (the scale is monotone: the extremes' angles are the angles' extremes)
        below, above = to_angle(below, domain), to_angle(above, domain)
    with np.errstate(invalid="ignore", over="ignore"):
        span = above - below
        span = np.where(span > 0, span, np.fmax(np.abs(below), np.abs(above)))
        span = np.where(span > 0, span, 1.0)
        reach = np.minimum(RANGE_REACH * span, FINITE)
        low[later] = np.clip(below - reach, -FINITE, FINITE)
        high[later] = np.clip(above + reach, -FINITE, FINITE)
    if angular:
        low[later] = from_angle(low[later], domain)
        high[later] = from_angle(high[later], domain)
    return low, high


def to_angle(values: FloatMatrix, domain: Domain) -> FloatMatrix:
    """Values of a bounded ``domain`` on its variance-stabilising angular scale,
    ``arcsin(sqrt(u))`` of the position ``u`` in it: a ratio's binomial spread, tight near a
    bound and widest in the middle, is about even there, so a null ratio that moved within
    0-4% is not confined to 4 ranges of 4 percentage points (a storm's cancellations reach
    half a day's flights) while a share near 50% is judged as on the values.

    >>> to_angle(np.array([0.0, 0.5, 1.0]), (0.0, 1.0)).round(4).tolist()
    [0.0, 0.7854, 1.5708]
    """
    low, high = domain
    with np.errstate(invalid="ignore"):
        return np.arcsin(np.sqrt(np.clip((values - low) / (high - low), 0.0, 1.0)))


def from_angle(angles: FloatMatrix, domain: Domain) -> FloatMatrix:
    """:func:`to_angle` undone, angles beyond the scale's ends put at the domain's bounds."""
    low, high = domain
    with np.errstate(invalid="ignore"):
        return low + (high - low) * np.sin(np.clip(angles, 0.0, math.pi / 2)) ** 2


def sane_band(
    lower: FloatMatrix,
    upper: FloatMatrix,
    reach: tuple[FloatMatrix, FloatMatrix],
    needed: BoolMatrix,
    domain: Domain,
    side: str,
    in_place: bool = False,
) -> tuple[FloatMatrix, FloatMatrix]:
    """``lower``/``upper`` of the ``needed`` cells cut to ``reach`` (from
    :func:`observed_reach_at` of those cells) and to ``domain``; a side ``side`` leaves open
    stays open (at the domain's bound, if it has one). ``in_place``: the cut cells are written
    into ``lower`` and ``upper`` (a caller that has no more use for them saves two copies of
    the matrix).

    >>> values, every = np.array([[100.0, 110, 90, 105]]), np.ones((1, 4), bool)
    >>> needed = np.array([[False, False, True, True]])
    >>> reach = observed_reach_at(values, every, np.nonzero(needed))
    >>> low, high = sane_band(np.array([[0, 0, -1e230, -50]]), np.array([[0, 0, 4e231, 5e6]]),
    ...                       reach, needed, (0, math.inf), "both")
    >>> low[0, 2:].tolist(), high[0, 2:].tolist()
    ([0.0, 0.0], [210.0, 310.0])
    """
    cells = np.nonzero(needed)
    floor, ceiling = reach
    with np.errstate(invalid="ignore"):
        low = np.clip(np.fmax(lower[cells], floor), floor, ceiling)
        high = np.clip(np.fmin(upper[cells], ceiling), floor, ceiling)
    if side == "upper":
        low = np.full(low.shape, -math.inf)
    if side == "lower":
        high = np.full(high.shape, math.inf)
    if not in_place:
        lower, upper = lower.copy(), upper.copy()
    lower[cells], upper[cells] = np.clip(low, *domain), np.clip(high, *domain)
    return lower, upper


def out_of_domain(values: FloatMatrix, domain: Domain) -> BoolMatrix:
    """Values the metric cannot take."""
    with np.errstate(invalid="ignore"):
        return (values < domain[0]) | (values > domain[1])

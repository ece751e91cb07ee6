"""While the forecast's scale rests on a handful of errors, the last two weeks judge too.

In its first weeks a daily series' forecast is judged on a scale learnt from three to nine
errors (and a weekly model that has just taken over from the level model starts again from
three), so its band is the Student-t prediction interval of so few errors: 15 to 27 scales at
the default rate, and a doubled load on day 11 (z 9.5 on the weekly model's four errors, 4.1 on
the level model's nine) is judged normal (p 0.009). The values themselves say more: the last
``WINDOW`` learnt values (7 to 14 of them by then) give a Student-t predictive of a new value,
``mean +- t(df) * sd * sqrt(1 + 1 / n)``, an honest version of the 14-day rolling z-score (a
weekly profile or a past incident in the window widens it, so it is conservative there).
``df`` combines the ``n - 1`` of a normal sample with the tail heaviness the model's prior
gives a young series (10 degrees of freedom) as :mod:`detectors.adaptive.tails` combines them:
with normal tails, t(3) noise raised 2.7 times the rate in its first 30 points.

Until the chosen model's scale rests on as many errors as the window has values
(``YOUNG_ERRORS``, two weeks of a daily series), a point is judged by both tests with Simes'
test (Simes 1986): flagged where either p-value is below half the rate or both are below the
rate, its p-value ``min(2 * min(p_model, p_window), max(p_model, p_window))``. Two forecasts
of one point's deviation rise together (positive dependence, under which Simes' test holds
its rate: Sarkar 1998), so Bonferroni's ``2 * min`` alone spent half the rate: the first 30
points of 4,000 clean daily row counts judged together raised 0.45 of it at 0.01. Sub-daily
points are left alone: fourteen of them do not span their daily cycle.

Rows judged together whose model is weekly read the window by its seasonal differences
(:mod:`detectors.adaptive.season_window`).

Why two weeks, not the ``tails.SETTLED`` errors after which the model's own errors start to
say how heavy its tails are: a weekly model takes over from the level model around day 11
with three or four errors, so at ten errors it is on day 17-18 and its band still reaches 10
to 15 scales (Student-t of so few errors, the prior's tails), where a doubled load on a
trend + weekly count was 9.9 rolling deviations out and p 0.004 under the model. The window's
14 values are then no less an estimate than the model's errors.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray
from scipy.special import stdtr, stdtrit

from detectors.adaptive import recurrence, tails

FloatMatrix = NDArray[np.float64]
BoolMatrix = NDArray[np.bool_]

WINDOW, MIN_SEEN = recurrence.WINDOW, recurrence.MIN_SEEN
"""The window is the recurrence share's: the 14 learnt values before a point, at least 7."""
YOUNG_ERRORS = WINDOW
"""The window judges too while the chosen model's scale rests on fewer errors than this."""
PRIOR_NU = tails.NU[int(tails.plug_in(np.array(tails.PRIOR)[:, None])[0])]
"""Tail heaviness of the window's values: the plug-in of the model's prior (10 degrees of
freedom), what a young model is judged with before its own errors inform."""


def window_test(
    values: FloatMatrix,
    learn: BoolMatrix,
    cells: BoolMatrix,
    rate: float,
    side: str,
    nu: FloatMatrix | None = None,
) -> tuple[FloatMatrix, FloatMatrix, FloatMatrix]:
    """Per ``cells`` cell: the window's band at ``rate`` (``side``: ``"both"`` splits it over
    two sides, ``"lower"``/``"upper"`` leave the other side open) and the value's p-value under
    the window's predictive (NaN band and p-value 1 where the window has fewer than
    ``MIN_SEEN`` learnt values or does not vary). ``nu``: per cell, the values' tail
    heaviness where the rows judged together have told it (NaN, or no ``nu``: ``PRIOR_NU``).

    >>> x = np.array([[10.0, 12, 11, 9, 12, 11, 10, 12, 11, 10, 30]])
    >>> cells = np.zeros(x.shape, bool); cells[0, 9:] = True
    >>> low, high, p = window_test(x, np.ones(x.shape, bool), cells, 1e-3, "both")
    >>> [round(float(v), 1) for v in (*low[0, 9:], *high[0, 9:])]
    [2.4, 3.0, 19.4, 18.6]
    >>> [f"{v:.0e}" for v in p[0, 9:]]
    ['5e-01', '2e-05']
    """
    shape = values.shape
    low, high, p = np.full(shape, np.nan), np.full(shape, np.nan), np.ones(shape)
    rows, cols = np.nonzero(cells)
    if len(rows) == 0:
        return low, high, p
    mean, sd, n, usable = recurrence.window_moments(values, learn, rows, cols)
    with np.errstate(invalid="ignore", divide="ignore"):
        spread = sd * np.sqrt(1.0 + 1.0 / n)
    student_band((low, high, p), (rows, cols), values[rows, cols], (mean, spread, n - 1.0),
                 usable, (rate, side, nu))  # fmt: skip
    return low, high, p


def student_band(
    out: tuple[FloatMatrix, FloatMatrix, FloatMatrix],
    at: tuple[NDArray[np.intp], NDArray[np.intp]],
    value: FloatMatrix,
    predictive: tuple[FloatMatrix, FloatMatrix, FloatMatrix],
    usable: BoolMatrix,
    test: tuple[float, str, FloatMatrix | None],
) -> None:
    """Fill ``out`` (low, high, p) at the cells ``at`` with :func:`student_cells` (``nu``, if
    any, a matrix read at those cells); a side ``side`` leaves open is left as it is."""
    (low, high, p), (rows, cols), (rate, side, nu) = out, at, test
    some = None if nu is None else nu[rows, cols]
    low_at, high_at, p[rows, cols] = student_cells(value, predictive, usable, (rate, side, some))
    if side != "upper":
        low[rows, cols] = low_at
    if side != "lower":
        high[rows, cols] = high_at


def student_cells(
    value: FloatMatrix,
    predictive: tuple[FloatMatrix, FloatMatrix, FloatMatrix],
    usable: BoolMatrix,
    test: tuple[float, str, FloatMatrix | None],
) -> tuple[FloatMatrix, FloatMatrix, FloatMatrix]:
    """Per cell, from a Student-t predictive (``centre, spread, sample_df``) of ``value``,
    where ``usable``: the band at ``rate`` on ``side`` (NaN elsewhere, and on a side ``side``
    leaves open) and the value's p-value (1 elsewhere). The tails are as heavy as the model's
    prior gives a young series' errors (or ``nu``, per cell, where the rows judged together
    told it), combined with the sample's degrees of freedom as ``tails`` combines them
    (normal tails: t(3) noise 2.7x the rate)."""
    (centre, spread, sample_df), (rate, side, nu) = predictive, test
    heavy = PRIOR_NU if nu is None else np.where(np.isnan(nu), PRIOR_NU, nu)
    low, high = np.full(len(value), np.nan), np.full(len(value), np.nan)
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        df = 1.0 / (1.0 / heavy + 1.0 / np.maximum(sample_df, 1.0))
        t = (value - centre) / spread
        upper_tail, lower_tail = stdtr(df, -t), stdtr(df, t)
        both = side == "both"
        tail = 2.0 * np.minimum(upper_tail, lower_tail) if both else (
            lower_tail if side == "lower" else upper_tail)  # fmt: skip
        p = np.where(usable & np.isfinite(t), np.minimum(tail, 1.0), 1.0)
        reach = stdtrit(df, 1.0 - (rate / 2.0 if both else rate)) * spread
        if side != "upper":
            low = np.where(usable, centre - reach, np.nan)
        if side != "lower":
            high = np.where(usable, centre + reach, np.nan)
    return low, high, p


def young_cells(
    needed: BoolMatrix, errors: NDArray[np.int64], plain: BoolMatrix, daily: bool
) -> BoolMatrix:
    """The cells both tests judge: needed, the model on fewer than ``YOUNG_ERRORS`` ``errors``, a
    ``plain`` row (not a cumulative size's increments), and points a day or more apart
    (``daily``: fourteen sub-daily points do not span their daily cycle)."""
    young = np.zeros(needed.shape, bool)
    if daily:  # (read on the needed cells only: a newest-point check has one a row)
        at = np.nonzero(needed)
        young[at] = (errors[at] < YOUNG_ERRORS) & plain[at]
    return young


def combine(
    lower: FloatMatrix,
    upper: FloatMatrix,
    p: FloatMatrix,
    cells: BoolMatrix,
    window: tuple[FloatMatrix, FloatMatrix, FloatMatrix],
    at_rate: tuple[FloatMatrix, FloatMatrix, FloatMatrix, FloatMatrix] | None = None,
) -> tuple[FloatMatrix, FloatMatrix, FloatMatrix]:
    """The model's band and p-value (each at half the rate on ``cells``) with the
    ``window_test``'s: the band cut to the window's where they overlap (``narrow``), the
    p-value ``2 * min(p_model, p_window)`` on ``cells`` (Bonferroni).

    ``at_rate``: the model's and the window's bands at the whole rate (model low, high,
    window low, high). Then Simes' test (Simes 1986) joins them: a point is flagged where
    either p-value is below half the rate or both are below the rate, ``p = min(2 * min,
    max)``, valid where the two tests' evidence rises together (positive regression
    dependence, Sarkar 1998), as two forecasts of one point's deviation do. Bonferroni spent
    about half the rate there: two tests that flag the same points flag them once.

    >>> half = np.array([[0.0]]), np.array([[10.0]])
    >>> window = np.array([[1.0]]), np.array([[11.0]]), np.array([[0.004]])
    >>> whole = np.array([[1.0]]), np.array([[9.0]]), np.array([[2.0]]), np.array([[9.5]])
    >>> low, high, p = combine(*half, np.array([[0.003]]), np.ones((1, 1), bool), window, whole)
    >>> low.tolist(), high.tolist(), p.tolist()
    ([[1.0]], [[9.5]], [[0.004]])
    """
    cut_low, cut_high, used = narrow(lower, upper, (window[0], window[1]))
    p_window = np.where(used, window[2], 1.0)
    joined = np.minimum(2.0 * np.fmin(p, p_window), 1.0)
    if at_rate is not None:
        # Outside both bands at the whole rate is flagged too: the band is the half-rate
        # bands' intersection cut to the union of the whole-rate bands.
        union_low = np.fmin(at_rate[0], at_rate[2])
        union_high = np.fmax(at_rate[1], at_rate[3])
        cut_low = np.where(used, np.fmax(cut_low, union_low), cut_low)
        cut_high = np.where(used, np.fmin(cut_high, union_high), cut_high)
        joined = np.minimum(joined, np.fmax(p, p_window))
    return cut_low, cut_high, np.where(cells, joined, p)


def narrow(
    lower: FloatMatrix, upper: FloatMatrix, window: tuple[FloatMatrix, FloatMatrix]
) -> tuple[FloatMatrix, FloatMatrix, BoolMatrix]:
    """The band cut to the window's band (the intersection of the two tests' acceptance
    regions) where the two overlap, and where the window counted. Disjoint bands (a window
    still at a level the model has left, or thrown far by a value like 1e300) leave the
    model's band alone: the window has nothing to say there.

    >>> low, high, used = narrow(np.array([[0.0, 0.0]]), np.array([[10.0, 10.0]]),
    ...                          (np.array([[2.0, 20.0]]), np.array([[12.0, 30.0]])))
    >>> low.tolist(), high.tolist(), used.tolist()
    ([[2.0, 0.0]], [[10.0, 10.0]], [[True, False]])
    """
    low, high = window
    with np.errstate(invalid="ignore"):  # a one-sided window leaves its other side open (NaN)
        used = (np.isfinite(low) | np.isfinite(high)) & ~(low > upper) & ~(high < lower)
    return (
        np.where(used, np.fmax(lower, low), lower),
        np.where(used, np.fmin(upper, high), upper),
        used,
    )

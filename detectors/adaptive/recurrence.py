"""The quietest bands rank like a rolling window: a recent level can come back.

A forecast model of a short daily history knows its weekly shape and its day-to-day noise, and
a holiday Monday at the level of a Sunday, or a one-day campaign at the level of last month's,
are then tens of scales away: the model alone gives them p-values of 1e-20, and no
false-alarm rate, however low, keeps them quiet while it still catches a lost load. A rolling
z-score over the last two weeks is not surprised by a value inside the spread of those weeks;
lost, duplicated and partial loads land far outside it. So the model's error distribution is
mixed (an epsilon-contamination, Huber 1964) with a small share ``SHARE`` of "the point is
drawn from the last ``WINDOW`` learnt values' normal": its p-value is at least
``SHARE * p_z`` (``p_z`` the rolling z-score's two-sided p-value), and the band at a
false-alarm rate ``r`` reaches at least the z-score's band at ``r / SHARE``.

``SHARE`` is the default false-alarm rate (0.001): at that rate and above the band is the
model's alone (``r / SHARE >= 1``: the z-score band is empty) and only p-values of flagged
points change. It decides the quiet operating points (alert budgets over many groups, rates
of 1e-4 and below), where a point must be far from both the forecast and the recent weeks.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray
from scipy.special import ndtr, ndtri

FloatMatrix = NDArray[np.float64]
BoolMatrix = NDArray[np.bool_]

SHARE = 1e-3
"""Probability that a point is drawn from its recent window rather than from the forecast."""
WINDOW = 14
"""Learnt points behind a point that make its window (two weeks of days)."""
MIN_SEEN = 7
"""Learnt values in the window before it counts (a first week says little)."""


def window_floor(
    values: FloatMatrix, learn: BoolMatrix, needed: BoolMatrix, rate: float, side: str
) -> tuple[FloatMatrix, FloatMatrix, FloatMatrix]:
    """Per ``needed`` cell: the rolling z-score band at ``rate / SHARE`` over the ``WINDOW``
    points before it (NaN: none, or too few learnt values) and the p-value floor
    ``SHARE * p_z`` of the value itself (0 elsewhere).

    >>> x = np.array([[10.0, 12, 11, 9, 12, 11, 10, 12, 11, 10, 30]])
    >>> needed = np.zeros(x.shape, bool); needed[0, 9:] = True
    >>> low, high, floor = window_floor(x, np.ones(x.shape, bool), needed, 1e-6, "both")
    >>> [round(float(v), 1) for v in (*low[0, 9:], *high[0, 9:])]
    [7.4, 7.4, 14.4, 14.2]
    >>> [f"{v:.0e}" for v in floor[0, 9:]]
    ['4e-04', '4e-80']
    """
    shape = values.shape
    low, high = np.full(shape, np.nan), np.full(shape, np.nan)
    floor = np.zeros(shape)
    at = np.nonzero(needed)
    low[at], high[at], floor[at] = window_cells(values, learn, at, rate, side)
    return low, high, floor


def window_cells(
    values: FloatMatrix,
    learn: BoolMatrix,
    at: tuple[NDArray[np.intp], ...],
    rate: float,
    side: str,
) -> tuple[FloatMatrix, FloatMatrix, FloatMatrix]:
    """:func:`window_floor` of the cells ``at`` (rows, columns), one value per cell: a
    newest-point check has one cell a row, and no matrix is filled for them."""
    rows, cols = at
    low, high = np.full(len(rows), np.nan), np.full(len(rows), np.nan)
    if len(rows) == 0:
        return low, high, np.zeros(0)
    mean, sd, _, usable = window_moments(values, learn, rows, cols)
    both = side == "both"
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        z = (values[rows, cols] - mean) / sd
        tail = ndtr(-np.abs(z)) if both else (ndtr(z) if side == "lower" else ndtr(-z))
        p_z = np.minimum((2.0 if both else 1.0) * tail, 1.0)
        floor = np.where(usable & np.isfinite(z), SHARE * p_z, 0.0)
        cut = rate / SHARE / (2.0 if both else 1.0)
        if cut >= 0.5:  # the z-score band at that rate is empty
            return low, high, floor
        reach = ndtri(1.0 - cut) * sd
        if side != "upper":
            low = np.where(usable, mean - reach, np.nan)
        if side != "lower":
            high = np.where(usable, mean + reach, np.nan)
    return low, high, floor


def window_moments(
    values: FloatMatrix, learn: BoolMatrix, rows: NDArray[np.intp], cols: NDArray[np.intp]
) -> tuple[FloatMatrix, FloatMatrix, FloatMatrix, BoolMatrix]:
    """Per cell ``(rows[i], cols[i])``, of the ``WINDOW`` learnt values before it: their mean,
    sample standard deviation and count, and whether they count (at least ``MIN_SEEN`` of
    them, and they vary)."""
    windows = _windows(values, learn, rows, cols)
    count = np.sum(np.isfinite(windows), axis=1)
    usable = count >= MIN_SEEN
    windows = np.where(usable[:, None], windows, 0.0)
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        mean = np.nanmean(windows, axis=1)
        sd = np.nanstd(windows, axis=1, ddof=1)
    return mean, sd, count.astype(np.float64), usable & (sd > 0) & np.isfinite(sd)


def _windows(
    values: FloatMatrix, learn: BoolMatrix, rows: NDArray[np.intp], cols: NDArray[np.intp]
) -> FloatMatrix:
    """Per cell, the ``WINDOW`` values before it (NaN: before the start, not learnt or not
    finite), gathered for these cells only.

    >>> _windows(np.arange(16.0)[None, :], np.ones((1, 16), bool), np.array([0]),
    ...          np.array([15]))[0, [0, -1]].tolist()
    [1.0, 14.0]
    """
    at = cols[:, None] + np.arange(-WINDOW, 0)[None, :]
    inside = at >= 0
    at = np.maximum(at, 0)
    before = values[rows[:, None], at]
    return np.where(inside & learn[rows[:, None], at] & np.isfinite(before), before, np.nan)


def widen_at(
    band: tuple[FloatMatrix, FloatMatrix],
    at: tuple[NDArray[np.intp], ...],
    window: tuple[FloatMatrix, FloatMatrix],
    domain: tuple[float, float],
) -> None:
    """The band (``lower``, ``upper``), in place, stretched over the window's band where it has
    one, within ``domain``; the window's band is given at the cells ``at`` only (one value per
    cell)."""
    low, high = window
    stretched = np.isfinite(low) | np.isfinite(high)
    if not stretched.any():
        return
    (lower, upper), some = band, (at[0][stretched], at[1][stretched])
    lower[some] = np.clip(np.fmin(lower[some], low[stretched]), *domain)
    upper[some] = np.clip(np.fmax(upper[some], high[stretched]), *domain)

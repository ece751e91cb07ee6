"""A weekly row's last two weeks, read by their seasonal differences.

A window of two weeks holds two weekends, so on a weekly row its spread is the weekly
profile's, not the noise's. Rows judged together whose model is weekly (``settling.cycles``)
read the seasonal differences of the same 14 days (``season_test``) instead:

- the young window (``recent_test``, in place of ``young_window.window_test``), only where
  their band is clearly narrower than the plain window's (``WEEKLY_WIDTH``): on noise a model
  may pick as weekly, 7 differences judge worse than 14 values (a clean day of the monitors
  demo was flagged without that condition);
- the recurrence share (``weekly_window``, the normal of :mod:`detectors.adaptive.recurrence`).

A series judged alone keeps the plain windows (on the daily benchmark's development draws,
where each series is judged alone, the seasonal differences lowered F1 0.630 -> 0.626).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from detectors.adaptive import recurrence
from detectors.adaptive.transform import Transforms
from detectors.adaptive.young_window import WINDOW, student_cells, window_test

FloatMatrix = NDArray[np.float64]
BoolMatrix = NDArray[np.bool_]

MIN_DIFFS = 4
"""Seasonal differences in the window before they judge (a weekly model's fourth day)."""
WEEKLY_WIDTH = 0.7
"""A young weekly row's window reads its seasonal differences only where their band is at most
this share of the plain window's: where the week, not the noise, spreads the 14 days. On noise
a model may pick as weekly, 7 differences give a band about 1.4 times the plain one's."""


def recent_test(
    values: FloatMatrix,
    learn: BoolMatrix,
    cells: BoolMatrix,
    rate: float,
    side: str,
    nu: FloatMatrix | None,
    seasonal: tuple[FloatMatrix, NDArray[np.int64], Transforms, tuple[int, ...]],
) -> tuple[FloatMatrix, FloatMatrix, FloatMatrix]:
    """The young window's test (``young_window.window_test``), or, on cells of rows judged
    together whose model is weekly (``seasonal`` as in ``weekly_window``), the
    ``season_test`` of the same 14 days where its band is at most ``WEEKLY_WIDTH`` of the
    window's. A window of 14 days holds two weekends, so on a weekly row its spread is the
    profile's: half of the young points' rate went unspent (first 30 points of daily row
    counts at 0.01: 0.45 of the rate)."""
    low, high, p = window_test(values, learn, cells, rate, side, nu)
    y, period, transforms, cycles = seasonal
    weekly = weekly_cells(cells, period, cycles)
    if not weekly.any():
        return low, high, p
    s_low, s_high, s_p, used = season_test(y, learn, weekly, period, rate, side, nu)
    s_low, s_high = in_values(transforms, s_low, used), in_values(transforms, s_high, used)
    with np.errstate(invalid="ignore"):
        used &= (s_high - s_low) <= WEEKLY_WIDTH * (high - low)
    return np.where(used, s_low, low), np.where(used, s_high, high), np.where(used, s_p, p)


def weekly_cells(
    cells: BoolMatrix, period: NDArray[np.int64], cycles: tuple[int, ...]
) -> BoolMatrix:
    """The ``cells`` whose model's period is one of ``cycles`` short enough to leave the
    window ``MIN_DIFFS`` seasonal differences."""
    weekly = np.zeros(cells.shape, bool)
    at = np.nonzero(cells)
    weekly[at] = np.isin(period[at], _short(cycles))  # (read on the cells only)
    return weekly


def _short(cycles: tuple[int, ...]) -> list[int]:
    return [c for c in cycles if 2 <= c <= WINDOW - MIN_DIFFS]


def in_values(transforms: Transforms, band: FloatMatrix, used: BoolMatrix) -> FloatMatrix:
    """``band`` (on the rows' transformed scale) in value units on the ``used`` cells (NaN
    elsewhere): only those cells are transformed back (a newest-point check has one a row)."""
    out = np.full(band.shape, np.nan)
    rows, cols = np.nonzero(used)
    out[rows, cols] = transforms.take(rows).inverse(band[rows, cols])
    return out


def weekly_window(
    learn: BoolMatrix,
    at: tuple[NDArray[np.intp], ...],
    rate: float,
    side: str,
    seasonal: tuple[FloatMatrix, NDArray[np.int64], Transforms, tuple[int, ...]],
    recurring: tuple[FloatMatrix, FloatMatrix, FloatMatrix],
) -> tuple[FloatMatrix, FloatMatrix, FloatMatrix]:
    """``recurrence.window_cells``' band and p-value floor of the cells ``at`` (rows, columns;
    ``recurring``, one value per cell) with, on cells of rows judged together whose model is
    weekly (``seasonal``: the values on the model's scale, each cell's period, the rows'
    transforms, the cycles of ``settling.cycles``), the last 14 days' seasonal differences for
    the window's normal: the band at ``rate / recurrence.SHARE`` and the floor ``SHARE * p``.
    Two weekends in a window of 14 days made its normal as wide as the weekly profile: daily
    row counts after 30 points at 0.0001 raised 0.22 of the rate."""
    values, period, transforms, cycles = seasonal
    low, high, floor = (part.copy() for part in recurring)
    weekly = np.isin(period[at], _short(cycles))
    if not weekly.any():
        return low, high, floor
    cut = rate / recurrence.SHARE
    banded = cut / (2.0 if side == "both" else 1.0) < 0.5  # else the band is empty
    some = (at[0][weekly], at[1][weekly])
    normal = np.full(len(some[0]), np.inf)  # the window's normal, as ``recurrence`` has it
    s_low, s_high, s_p, used = season_cells(values, learn, some, period, min(cut, 0.5), side,
                                            normal)  # fmt: skip
    into, back = np.flatnonzero(weekly)[used], transforms.take(some[0][used])
    low[into] = back.inverse(s_low[used]) if banded else np.nan
    high[into] = back.inverse(s_high[used]) if banded else np.nan
    floor[into] = recurrence.SHARE * s_p[used]
    return low, high, floor


def season_test(
    y: FloatMatrix,
    learn: BoolMatrix,
    cells: BoolMatrix,
    period: NDArray[np.int64],
    rate: float,
    side: str,
    nu: FloatMatrix | None = None,
) -> tuple[FloatMatrix, FloatMatrix, FloatMatrix, BoolMatrix]:
    """Per ``cells`` cell, the band on ``y``'s scale, the p-value and whether the test
    counted: the value a ``period`` before, moved by the mean of the seasonal differences
    ``y[s] - y[s - period]`` inside the last ``WINDOW`` values (a weekly profile and a trend
    drop out of them), with a Student-t of their spread. The new difference shares its
    base with the oldest one, so the mean's variance counts twice: ``sd * sqrt(1 + 2 / n)``.

    >>> y = np.tile([10.0, 10, 10, 10, 10, 4, 4], 3) + np.resize([0.0, 0.3, -0.2, 0.1], 21)
    >>> y[-1] = 9.0
    >>> cells = np.zeros((1, 21), bool); cells[0, 19:] = True
    >>> low, high, p, used = season_test(y[None, :], np.ones((1, 21), bool), cells,
    ...                                  np.full((1, 21), 7), 1e-3, "both")
    >>> round(float(high[0, 19]), 1), used[0, 19:].tolist()
    (8.0, [True, True])
    >>> [f"{v:.0e}" for v in p[0, 19:]]
    ['8e-01', '5e-04']
    """
    shape = y.shape
    low, high, p = np.full(shape, np.nan), np.full(shape, np.nan), np.ones(shape)
    used = np.zeros(shape, bool)
    at = np.nonzero(cells)
    found = season_cells(y, learn, at, period, rate, side, None if nu is None else nu[at])
    low[at], high[at], p[at], used[at] = found
    return low, high, p, used


def season_cells(
    y: FloatMatrix,
    learn: BoolMatrix,
    at: tuple[NDArray[np.intp], ...],
    period: NDArray[np.int64],
    rate: float,
    side: str,
    nu: FloatMatrix | None = None,
) -> tuple[FloatMatrix, FloatMatrix, FloatMatrix, NDArray[np.bool_]]:
    """:func:`season_test` of the cells ``at`` (rows, columns), one value per cell (``nu``:
    per cell too): their band (NaN where the test did not count), p-value (1 there) and
    whether it counted."""
    rows, cols = at
    lag = period[rows, cols]
    seen = learn & np.isfinite(y)
    window = cols[:, None] + np.arange(-WINDOW, 0)[None, :]  # the window's columns
    back = window - lag[:, None]
    inside = (back >= 0) & (window - cols[:, None] >= lag[:, None] - WINDOW)
    window, back = np.maximum(window, 0), np.maximum(back, 0)
    both_seen = inside & seen[rows[:, None], window] & seen[rows[:, None], back]
    diffs = np.where(both_seen, y[rows[:, None], window] - y[rows[:, None], back], np.nan)
    n = both_seen.sum(axis=1).astype(np.float64)
    base_at = np.maximum(cols - lag, 0)
    usable = (n >= MIN_DIFFS) & (cols >= lag) & seen[rows, base_at]
    diffs = np.where(usable[:, None], diffs, 0.0)
    with np.errstate(invalid="ignore", divide="ignore"):
        sd = np.nanstd(diffs, axis=1, ddof=1)
        usable &= np.isfinite(sd) & (sd > 0)
        centre = y[rows, base_at] + np.nanmean(diffs, axis=1)
        spread = sd * np.sqrt(1.0 + 2.0 / n)
    usable &= np.isfinite(y[rows, cols])
    low, high, p = student_cells(y[rows, cols], (centre, spread, n - 1.0), usable,
                                 (rate, side, nu))  # fmt: skip
    return low, high, p, usable

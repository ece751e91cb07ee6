"""``Adaptive``'s holidays (``holidays=``): the days a user's calendar names are judged on a
wider band and never learnt.

A holiday runs unlike the days around it (a business table's load drops to a weekend's, a
shop's rises), and it is planned: no one wants an alert for it. Learnt, one holiday would also
widen the scale for weeks and pull the level it forecasts. So a holiday point is left out of
the history (``learn``), as a point outside a baseline is, and judged on its cell's scale times
``FACTOR`` plus the series' weekly range over ``ALLOWANCE_Z`` (a holiday runs like the quietest,
or the busiest, day of the week): the band, the standardised error and its p-value all follow
the one scale, so they agree, and a broken load on a holiday (zero rows on Christmas) is still
far outside it. Chosen on the daily benchmark's development data against a fixed factor (2, 4,
6: the weekly range's allowance found more at every matched rate) and an allowance alone (the
factor 1 lost fast-growing weekly series): docs/daily-benchmark.md.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

import numpy as np
from numpy.typing import NDArray

from detectors.adaptive import calendar
from detectors.adaptive.persistence import Sums
from detectors.adaptive.smoother import Forecasts
from detectors.holidays import Holidays
from detectors.vectorised import Cell

BoolMatrix = NDArray[np.bool_]
FloatMatrix = NDArray[np.float64]

FACTOR = 2.0
"""How many times its usual scale a holiday's band is wide."""
ALLOWANCE_Z = 3.0
"""A holiday's band reaches about its weekly range (:func:`weekly_range`) beyond the usual band
at a band of ``ALLOWANCE_Z`` scales (more at lower false-alarm rates)."""
WEEK = 7
FLAG = 1_000_000
"""Added to a holiday cell's ``aux`` (which packs its scale and season, ``judged.py``)."""


def mask(holidays: Any, stamps: NDArray[np.int64] | None) -> BoolMatrix | None:
    """Which points at ``stamps`` fall on ``holidays`` (``None``: no calendar, or no times)."""
    if not isinstance(holidays, Holidays) or stamps is None:
        return None
    return holidays.mask(stamps)


def bound(days: BoolMatrix | None, shape: tuple[int, int]) -> BoolMatrix:
    """The holiday mask a detector was bound to, cut to a values matrix of ``shape`` (no
    holidays where it was bound to none).

    >>> bound(np.array([False, True, False]), (1, 2)).tolist()
    [[False, True]]
    """
    cut = calendar.bound_slots(days, shape)
    return np.zeros(shape, dtype=bool) if cut is None else cut


def widen(
    fc: Forecasts,
    z: FloatMatrix,
    days: BoolMatrix,
    series: tuple[FloatMatrix, BoolMatrix, NDArray[np.int64] | None, tuple[int, ...]] | None = None,
) -> tuple[Forecasts, FloatMatrix]:
    """The forecasts and standardised errors with each holiday cell's scale ``FACTOR`` times
    wider, plus (a weekly season in ``series``: transformed values, learnt cells, slots,
    periods) its :func:`weekly_range` over ``ALLOWANCE_Z``; its error that much nearer the
    forecast.

    >>> fc = Forecasts(*(np.ones((1, 2)) for _ in range(3)), np.ones((1, 2), np.int64),
    ...                *(np.ones((1, 2), bool) for _ in range(2)), np.zeros((1, 2), np.int64),
    ...                np.ones((1, 2), bool))
    >>> wide, z = widen(fc, np.array([[8.0, 8.0]]), np.array([[False, True]]))
    >>> wide.scale.tolist(), z.tolist()
    ([[1.0, 2.0]], [[8.0, 4.0]])
    """
    if not days.any():
        return fc, z
    extra: FloatMatrix | float = 0.0
    if series is not None and WEEK in series[3]:
        extra = weekly_range(series[0], series[1], series[2], WEEK) / ALLOWANCE_Z
    scale = np.where(days, fc.scale * FACTOR + extra, fc.scale)
    with np.errstate(divide="ignore", invalid="ignore"):
        z = np.where(days, z * fc.scale / scale, z)
    return replace(fc, scale=scale), z


def weekly_range(
    y: FloatMatrix, learn: BoolMatrix, slots: NDArray[np.int64] | None, period: int
) -> FloatMatrix:
    """Per cell, how far apart the learnt points' means per slot of the ``period`` lie before it
    (the quietest weekday's mean to the busiest's; 0 until two slots have one): a holiday runs
    like a day of the week, so it may lie that far from its forecast.

    >>> y = np.array([[1.0, 3.0, 1.0, 3.0, 2.0]])
    >>> weekly_range(y, np.ones((1, 5), bool), None, 2).tolist()
    [[0.0, 0.0, 2.0, 2.0, 2.0]]
    """
    phase = (np.broadcast_to(np.arange(y.shape[1]), y.shape) if slots is None else slots) % period
    means = np.full((period, *y.shape), np.nan)
    for d in range(period):
        on = learn & (phase == d) & np.isfinite(y)
        total = np.cumsum(np.where(on, y, 0.0), axis=1) - np.where(on, y, 0.0)
        count = np.cumsum(on, axis=1) - on
        with np.errstate(divide="ignore", invalid="ignore"):
            means[d] = np.where(count > 0, total / count, np.nan)
    known = np.isfinite(means).sum(axis=0) >= 2
    with np.errstate(invalid="ignore"):
        spread = np.nanmax(np.where(known, means, 0.0), axis=0) - np.nanmin(
            np.where(known, means, 0.0), axis=0
        )
    return np.where(known, spread, 0.0)


def off_sums(sums: Sums, days: BoolMatrix) -> Sums:
    """``sums`` without a lasting change's band on holiday cells: their errors never enter the
    sums (they are not learnt), so no holiday can be the point that crosses.

    >>> sums = Sums(*(np.zeros((1, 2)) for _ in range(2)), np.full((1, 2), -1.0), np.ones((1, 2)))
    >>> off_sums(sums, np.array([[True, False]])).z_low.tolist()
    [[-inf, -1.0]]
    """
    if not days.any():
        return sums
    return sums._replace(z_low=np.where(days, -np.inf, sums.z_low),
                         z_high=np.where(days, np.inf, sums.z_high))  # fmt: skip


def describe(cell: Cell, detail: Callable[[Cell], str]) -> str:
    """An anomalous ``cell``'s ``detail`` (a text ending in ``).``), told when its day was
    judged as a holiday.

    >>> text = lambda cell: f"[Adaptive] {cell.value} is not in bounds (period {cell.aux:g})."
    >>> cell = Cell(position=3, length=9, value=0.0, lower=1.0, upper=5.0, code=1, aux=FLAG + 7)
    >>> describe(cell, text)[-58:]
    '(period 7; judged as a holiday, on a band widened for it).'
    """
    holiday, aux = flagged(cell.aux)
    text = detail(cell._replace(aux=aux))
    return text[:-2] + "; judged as a holiday, on a band widened for it)." if holiday else text


def flagged(aux: Any) -> tuple[bool, float]:
    """Whether a cell's ``aux`` says it was judged as a holiday, and its ``aux`` without it.

    >>> flagged(FLAG + 7.0), flagged(7.0), flagged(-3.0)
    ((True, 7.0), (False, 7.0), (False, -3.0))
    """
    if aux >= FLAG:
        return True, aux - FLAG
    return False, aux

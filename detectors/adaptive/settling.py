"""A seasonal model's errors shrink while its phases settle: its scale is set for the error now.

A seasonal model starts from one cycle's phase means, so each phase's value is off by about
one day's noise, and every visit to the phase moves it ``season_rate`` of the way (Holt-Winters
as :mod:`detectors.adaptive.smoother` runs it): the forecast error of its second cycle has
about twice the variance of a settled model's, its fifth a quarter more. The scale is the
running mean of past errors (weighed ``decay`` per point, a memory of about five weeks of
days), so in the first two months it remembers the larger errors of the first cycles: on
daily counts with a weekly cycle it was 7-10% above the errors it judged (their median
absolute z 0.78 where 0.85 is the normal's), and past 30 points the clean families raised
0.4-0.5 of the false alerts asked for.

The variance of a phase's value after ``k`` visits follows ``v(k + 1) = (1 - g)^2 v(k) + g^2``
(in units of the noise variance, from ``v(0) = 1 - 1 / period``; ``g`` the share of an error a
phase learns), the level's stays near its settled ``a / (2 - a)``; the ``i``-th error of a
model has the relative sd ``f(i) = sqrt(1 + v(i // period) + a / (2 - a))``, and a scale after
``c`` errors is the running mean of ``f`` over them. The scale a point is judged with is
multiplied by ``f(c) / mean(f)``: what the running mean says of the error now.
"""

from __future__ import annotations

import functools

import numpy as np
from numpy.typing import NDArray

from detectors.adaptive import pooling
from detectors.adaptive.kernels.decay import decayed_sums
from detectors.adaptive.smoother import SETTINGS

FloatMatrix = NDArray[np.float64]
LONGEST = 4096
"""Errors after which the correction is 1 (the phases have long settled)."""


@functools.lru_cache(maxsize=16)
def factors(period: int) -> NDArray[np.float64]:
    """Per number of errors ``c`` (0 to ``LONGEST``) of a model with a cycle of ``period``
    points: the factor its running scale is multiplied by (``f(c) / mean(f)``, 1 without
    errors).

    >>> weekly = factors(7)
    >>> [round(float(weekly[c]), 3) for c in (3, 14, 30, 60, 4096)]
    [1.0, 0.927, 0.927, 0.949, 1.0]
    """
    level = SETTINGS.level_rate / (2.0 - SETTINGS.level_rate)
    learns = SETTINGS.season_rate * (1.0 - SETTINGS.level_rate)
    visits = LONGEST // period + 2
    v = np.empty(visits)
    v[0] = 1.0 - 1.0 / period
    for k in range(1, visits):
        v[k] = (1.0 - learns) ** 2 * v[k - 1] + learns**2
    errors = np.arange(LONGEST + 1)
    f = np.sqrt(1.0 + v[errors // period] + level)
    # The running mean of f over errors 0 .. c - 1, weighed as the smoother weighs them.
    weighed, weights = decayed_sums(np.vstack([f[:-1], np.ones(LONGEST)]), SETTINGS.decay)
    out = np.ones(LONGEST + 1)
    out[1:] = f[1:] / (weighed / weights)
    return out


def cycles(periods: tuple[int, ...], daily: bool, rows: int, share_tails: bool) -> tuple[int, ...]:
    """The cycles whose models' scales are settled: the candidate ``periods`` of points a day
    or more apart (``daily``), in a call of more than ``pooling.PREDICTIVE_ROWS`` series judged
    together (``share_tails``), where the band is the pooled posterior predictive; none else.

    A series judged alone keeps its running scale: on the development split of the daily
    benchmark (each series alone) the settled scale ranked clean holidays and events of
    trend + weekly series above subtle incidents at the quiet end (recall at 0.05 false alerts
    per 100 clean checks 0.30 -> 0.25 overall, trend + weekly 0.46 -> 0.31, at 0.3 0.51 ->
    0.47), while a scan's groups, judged together, get their false-alert rate from it.

    >>> cycles((7,), True, 50, True), cycles((7,), True, 1, True), cycles((7,), False, 50, True)
    ((7,), (), ())
    """
    together = rows > pooling.PREDICTIVE_ROWS and share_tails
    return periods if daily and together else ()


def settled_scale(
    scale: FloatMatrix,
    count: NDArray[np.int64],
    period: NDArray[np.int64],
    cycles: tuple[int, ...],
) -> FloatMatrix:
    """``scale`` per cell for the error now: cells forecast by a seasonal model whose cycle
    (``period``) is one of ``cycles`` (the candidates of points a day or more apart; none for
    sub-daily points) multiplied by :func:`factors`; the rest as they are.

    >>> settled_scale(np.array([[2.0, 2.0]]), np.array([[30, 30]]), np.array([[7, 0]]), (7,))
    array([[1.85401328, 2.        ]])
    """
    out = scale
    # A newest-point check passes the whole history: a few passes per cycle, no more.
    for cycle in [c for c in cycles if c > 0]:
        at = period == cycle
        out = np.where(at, scale * factors(cycle).take(count, mode="clip"), out)
    return out

"""Which scale a positive magnitude is judged on: the one that forecast its past better.

A magnitude (a mean, a sum, an amount) is put on a log scale by its first points
(:mod:`detectors.adaptive.transform`), which fits noise that grows with the level. A week of
points cannot tell whether it does: a mean delay whose noise is additive, which crosses zero
now and then, or a metric whose unit changed by 60x, swings wildly on a log scale fitted to its
first week. Once a series' values have spanned a wide range (``SPREAD`` times, or reached zero
or below) it is also forecast on the identity scale, and each point is judged on the scale
whose one-step forecasts of the points before it were the more likely (density in value units,
so the two compare; recent points weigh more, no single point more than ``FIT_CLIP``).
While the values stay in a narrow range the two scales are nearly the same map and only the log
scale runs.

>>> x = np.array([[5.0, 9, 2, 1, 3], [100, 120, 90, 110, 95]])
>>> wide_so_far(x).tolist()
[[False, False, False, True, True], [False, False, False, False, False]]
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from detectors.adaptive.kernels.decay import decayed_sums
from detectors.adaptive.kernels.smoothing import FIT_CLIP
from detectors.adaptive.transform import Transform, Transforms

FloatMatrix = NDArray[np.float64]
BoolMatrix = NDArray[np.bool_]

SPREAD = 4.0
"""Values that have spanned this factor (largest over smallest) make the scale an open
question; below it log and identity judge alike."""
MEMORY = 0.97
"""Per point, how much of the earlier evidence for a scale is kept: a unit change that makes
the other scale fit better wins within weeks, not after the whole earlier history."""


def wide_so_far(x: FloatMatrix) -> BoolMatrix:
    """Per cell: the values before it (NaN: not learnt) spanned more than ``SPREAD`` times, or
    one of them was zero or below."""
    high = np.fmax.accumulate(np.where(np.isnan(x), -np.inf, x), axis=1)
    low = np.fmin.accumulate(np.where(np.isnan(x), np.inf, x), axis=1)
    with np.errstate(invalid="ignore"):
        wide = np.isfinite(low) & ((low <= 0) | (high > SPREAD * low))
    before = np.zeros(x.shape, dtype=bool)
    before[:, 1:] = wide[:, :-1]
    return before


def open_rows(
    transforms: Transforms, x: FloatMatrix, skip: NDArray[np.bool_], together: bool
) -> tuple[NDArray[np.intp], BoolMatrix]:
    """The rows (indices) to forecast on the identity scale too, and :func:`wide_so_far` of
    them: magnitudes on a log scale (not ``skip``) whose values ``x`` (NaN: not learnt) at some
    point spanned a wide range; when rows share tails (``together``), every such magnitude
    once one of them did, so that which rows share the identity pass, fixed by their first
    points, does not depend on values to come."""
    magnitudes = np.flatnonzero((transforms.kinds == Transform.LOG) & ~transforms.counts & ~skip)
    x = x if len(magnitudes) == len(x) else x[magnitudes]
    some = ever_wide(x)  # (most often none: no matrix of running extremes then)
    if together and some.any():
        return magnitudes, wide_so_far(x)
    return magnitudes[some], wide_so_far(x[some])


def ever_wide(x: FloatMatrix) -> NDArray[np.bool_]:
    """Per row, whether :func:`wide_so_far` holds at some cell: at its last, since a range
    that has widened stays wide (a row with ``-inf``, whose range is then no longer finite,
    is checked cell by cell).

    >>> ever_wide(np.array([[1.0, np.nan, 3.0, 9.0], [1.0, 5.0, 1.0, np.nan]])).tolist()
    [False, True]
    """
    before = x[:, :-1]
    seen = ~np.isnan(before)
    low = np.min(before, axis=1, initial=np.inf, where=seen)
    high = np.max(before, axis=1, initial=-np.inf, where=seen)
    with np.errstate(invalid="ignore"):
        wide = np.isfinite(low) & ((low <= 0) | (high > SPREAD * low))
    odd = np.flatnonzero(low == -np.inf)
    wide[odd] = wide_so_far(x[odd]).any(axis=1)
    return wide


def log_density(
    x: FloatMatrix, error: FloatMatrix, scale: FloatMatrix, transforms: Transforms,
    cells: BoolMatrix,
) -> FloatMatrix:  # fmt: skip
    """Per cell of ``cells``: the log density of the value under its one-step forecast, in
    value units up to a constant (a Laplace density on the transformed scale, the error
    counted up to ``FIT_CLIP`` scales as the season choice counts it, times the transform's
    slope); NaN elsewhere."""
    with np.errstate(invalid="ignore", divide="ignore"):
        z = np.minimum(np.abs(error) / scale, FIT_CLIP)
        density = transforms.log_slope(x) - np.log(scale) - z
    return np.where(cells & np.isfinite(density), density, np.nan)


def prefer_identity(on_log: FloatMatrix, on_identity: FloatMatrix, wide: BoolMatrix) -> BoolMatrix:
    """Per cell: the identity scale forecast the earlier points better (their densities'
    differences, weighed ``MEMORY`` per point back) and the values have spanned a wide range.

    >>> log = np.array([[-1.0, -5.0, -1.0, -1.0]])
    >>> prefer_identity(log, np.full((1, 4), -2.0), np.ones((1, 4), bool)).tolist()
    [[False, False, True, True]]
    """
    # Bounded per point, so one extreme value (a 1e300 sentinel) cannot decide for months.
    gain = np.clip(np.nan_to_num(on_identity - on_log), -FIT_CLIP, FIT_CLIP)
    evidence = decayed_sums(np.ascontiguousarray(gain, dtype=np.float64), MEMORY)
    before = np.zeros(gain.shape)
    before[:, 1:] = evidence[:, :-1]
    return (before > 0) & wide

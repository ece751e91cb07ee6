"""Page's CUSUM along each series (:mod:`detectors.adaptive.persistence` says what it does)."""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from detectors.adaptive.cusum_shape import (
    ALLOWANCE,
    CLIP,
    MAX_AUTOCORRELATION,
    MEMORY,
    NORMAL_MAE,
)
from detectors.adaptive.kernels import BoolMatrix, FloatMatrix


@njit(cache=True, nogil=True)
def cusum_rows(
    z: FloatMatrix,
    informs: BoolMatrix,
    limit: float,
    low_side: bool,
    high_side: bool,
    below: FloatMatrix,
    above: FloatMatrix,
    z_low: FloatMatrix,
    z_high: FloatMatrix,
) -> None:
    """Fill ``below``/``above`` (the sums after each point) and ``z_low``/``z_high`` (the
    errors that would have crossed ``limit``) for the sides asked."""
    groups, steps = z.shape
    for g in range(groups):
        low, high, previous, square, product = 0.0, 0.0, np.nan, 0.0, 0.0
        for t in range(steps):
            raw = np.nan
            if informs[g, t] and not math.isnan(z[g, t]):
                raw = min(max(z[g, t] * NORMAL_MAE, -CLIP), CLIP)
            valid = not math.isnan(raw)
            r = product / square if square > 0 else 0.0
            r = min(max(r, 0.0), MAX_AUTOCORRELATION)
            root = math.sqrt((1 + r) / (1 - r))
            s = raw / root
            if valid:
                square = MEMORY * square + raw * raw
                if not math.isnan(previous):
                    product = MEMORY * product + raw * previous
                previous = raw
            if low_side:
                room = (limit + ALLOWANCE - low) * root  # a clipped step beyond it would cross
                z_low[g, t] = -room / NORMAL_MAE if room < CLIP else -np.inf
                if valid:
                    low = max(0.0, low - s - ALLOWANCE)
                below[g, t] = low
                if low > limit:
                    low = 0.0
            if high_side:
                room = (limit + ALLOWANCE - high) * root
                z_high[g, t] = room / NORMAL_MAE if room < CLIP else np.inf
                if valid:
                    high = max(0.0, high + s - ALLOWANCE)
                above[g, t] = high
                if high > limit:
                    high = 0.0

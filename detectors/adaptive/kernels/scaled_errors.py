"""The chosen model's forecasts, errors and scales as the point tests read them, in one pass
over the cells (numpy would build ten matrices on the way: a newest-point check of 10,000
groups x 365 points writes each of them for 3.65 million cells)."""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from detectors.adaptive.kernels import FloatArray, FloatMatrix


@njit(cache=True, nogil=True, error_model="numpy")
def standardised(
    y: FloatMatrix,
    forecast: FloatMatrix,
    error: FloatMatrix,
    scale: FloatMatrix,
    lowest: FloatArray,
    floor: FloatMatrix,
    raised: FloatMatrix,
    errors: FloatMatrix,
    scales: FloatMatrix,
    z: FloatMatrix,
) -> None:
    """Per cell, written into the last four: the ``forecast`` raised to its row's ``lowest``
    forecast (``np.maximum``: NaN if either is), the error of ``y`` from it (NaN where
    ``error`` is: no error to judge), the finite ``scale`` raised to ``floor`` (``np.fmax``),
    and the error in scales ``z`` (0 where the error is 0, however small the scale)."""
    rows, steps = y.shape
    for g in range(rows):
        low = lowest[g]
        for t in range(steps):
            f = forecast[g, t]
            f = np.nan if math.isnan(f) or math.isnan(low) else (f if f >= low else low)
            e = np.nan if math.isnan(error[g, t]) else y[g, t] - f
            s = scale[g, t]
            if math.isfinite(s):
                bound = floor[g, t]
                s = s if math.isnan(bound) or s >= bound else bound
            raised[g, t], errors[g, t], scales[g, t] = f, e, s
            z[g, t] = 0.0 if e == 0 else e / s

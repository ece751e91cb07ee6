"""How well each tail heaviness explains a series' past errors.

The log likelihood of every past standardised error under every grid value of
:mod:`detectors.adaptive.tails`, summed per judged point over the errors before it, in one pass
along each series.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from detectors.adaptive.kernels import FloatArray, FloatMatrix, IntArray, IntMatrix


@njit(cache=True, nogil=True)
def earlier_sums(
    z: FloatMatrix,
    count: IntMatrix,
    rows: IntArray,
    columns: IntArray,
    df: FloatMatrix,
    log_norm: FloatMatrix,
    beyond: FloatMatrix,
    within: FloatMatrix,
    m: FloatArray,
    censor: float,
    inner: float,
    cap: int,
) -> FloatMatrix:
    """Grid x cells: for each cell ``(rows[i], columns[i])`` (row-major order), the summed log
    likelihoods of the finite ``z`` before it in its row.

    A ``z`` beyond ``censor`` counts as "that far or further", one within ``inner`` as "that
    close"; the tables are per grid value and number of scale updates (capped at ``cap``).
    """
    grid = df.shape[0]
    out = np.zeros((grid, len(rows)))
    running = np.zeros(grid)
    i = 0
    while i < len(rows):
        g = rows[i]
        running[:] = 0.0
        t = 0
        while i < len(rows) and rows[i] == g:
            while t < columns[i]:
                value = z[g, t]
                t += 1
                if math.isnan(value):
                    continue
                index = min(count[g, t - 1], cap)
                size = abs(value)
                for v in range(grid):
                    if size > censor:
                        running[v] += beyond[v, index]
                    elif size < inner:
                        running[v] += within[v, index]
                    else:
                        d = df[v, index]
                        running[v] += log_norm[v, index] - 0.5 * (d + 1) * math.log1p(
                            value * value * m[v] * m[v] / d
                        )
            out[:, i] = running
            i += 1
    return out

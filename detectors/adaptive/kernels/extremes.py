"""The smallest and largest learnt value of a row up to each judged cell, in one pass along
each row: what running extremes (``np.fmin.accumulate``) of the learnt values give at those
cells, without building the masked matrix and the running extremes of every cell."""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from detectors.adaptive.kernels import BoolMatrix, FloatArray, FloatMatrix, IntArray


@njit(cache=True, nogil=True)
def extremes_through(
    values: FloatMatrix, learn: BoolMatrix, rows: IntArray, columns: IntArray
) -> tuple[FloatArray, FloatArray]:
    """For each cell ``(rows[i], columns[i])`` (row-major order, as ``np.nonzero`` gives them),
    the smallest and largest finite ``values`` with ``learn`` in its row up to and including
    its column (NaN: none)."""
    low = np.full(len(rows), np.nan)
    high = np.full(len(rows), np.nan)
    i = 0
    while i < len(rows):
        g = rows[i]
        smallest, largest = np.nan, np.nan
        t = 0
        while i < len(rows) and rows[i] == g:
            while t <= columns[i]:
                value = values[g, t]
                if learn[g, t] and math.isfinite(value):
                    if not value >= smallest:  # (NaN: nothing yet)
                        smallest = value
                    if not value <= largest:
                        largest = value
                t += 1
            low[i], high[i] = smallest, largest
            i += 1
    return low, high

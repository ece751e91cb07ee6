"""How much history each cell has behind it, counted along each row in one pass (numpy's
running count, ``np.cumsum(learn, axis=1)``, is a matrix of 64-bit counts only compared with a
threshold)."""

from __future__ import annotations

import numpy as np
from numba import njit

from detectors.adaptive.kernels import BoolMatrix


@njit(cache=True, nogil=True)
def learnt_before(learn: BoolMatrix, least: int) -> BoolMatrix:
    """Per cell, whether at least ``least`` cells of its row before it are ``learn``:
    ``np.cumsum(learn, axis=1) - learn >= least``."""
    rows, steps = learn.shape
    out = np.empty((rows, steps), dtype=np.bool_)
    for g in range(rows):
        seen = 0
        for t in range(steps):
            out[g, t] = seen >= least
            if learn[g, t]:
                seen += 1
    return out

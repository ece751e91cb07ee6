"""A running sum that forgets geometrically along each row, ``y[t] = x[t] + memory * y[t-1]``
(``scipy.signal.lfilter([1], [1, -memory], x, axis=1)`` computes the same numbers, but importing
``scipy.signal`` costs a command line about a second before its first verdict)."""

from __future__ import annotations

import numpy as np
from numba import njit

from detectors.adaptive.kernels import FloatMatrix


@njit(cache=True, nogil=True)
def decayed_sums(x: FloatMatrix, memory: float) -> FloatMatrix:
    """Per row, ``x`` summed with weights ``memory ** age``, newest last."""
    rows, steps = x.shape
    out = np.empty((rows, steps))
    for g in range(rows):
        running = 0.0
        for t in range(steps):
            running = x[g, t] + memory * running
            out[g, t] = running
    return out

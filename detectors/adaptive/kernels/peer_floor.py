"""A young row's scale floor from its peers' scales, cell by cell in one pass (what
:func:`detectors.adaptive.young.pooled_floor` asks for, without a numpy temporary per step)."""

from __future__ import annotations

import math

from numba import njit

from detectors.adaptive.kernels import FloatMatrix, IntArray, IntMatrix


@njit(cache=True, nogil=True)
def faded_floor(
    floor: FloatMatrix,
    rows: IntArray,
    scale: FloatMatrix,
    count: IntMatrix,
    typical: FloatMatrix,
    wide: FloatMatrix,
    share: float,
    fade: float,
) -> None:
    """Write ``floor[rows]``: where the row's ``scale`` is 0 (it never erred), ``wide``; else
    ``typical * share * min(1, fade / count)`` (``count`` at least 1); 0 where that is not
    finite. ``typical``/``wide`` have one line per row of ``rows``, or one line for all."""
    one = typical.shape[0] == 1
    for i in range(len(rows)):
        r = rows[i]
        line = 0 if one else i
        for c in range(floor.shape[1]):
            if scale[r, c] == 0:
                peer = wide[line, c]
            else:
                peer = typical[line, c] * (share * min(1.0, fade / max(count[r, c], 1)))
            floor[r, c] = peer if math.isfinite(peer) else 0.0

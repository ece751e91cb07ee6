"""The adaptive detector's inner loops, compiled with numba.

Each is a recursion along one series (a smoother, a running likelihood, a CUSUM), which numpy
can only vectorise across series, paying Python's overhead on every point; compiled, a year of
one series costs microseconds. They release the interpreter, so :func:`by_rows` splits many
series across threads. Imported lazily: ``import detectors`` does not load numba.
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

import numpy as np
from numpy.typing import NDArray

FloatArray = NDArray[np.float64]
FloatMatrix = NDArray[np.float64]
BoolMatrix = NDArray[np.bool_]
IntArray = NDArray[np.int64]
IntMatrix = NDArray[np.int64]
THREAD_CELLS = 200_000
"""Work on more cells than this is split across threads; below it a thread costs more than it
saves."""


def by_rows(run: Callable[[slice], None], rows: int, cells: int) -> None:
    """Call ``run`` on slices of ``rows`` rows, on one thread per core when there are more than
    ``THREAD_CELLS`` cells."""
    threads = min(os.cpu_count() or 1, max(1, cells // THREAD_CELLS), max(rows, 1))
    if threads == 1:
        run(slice(0, rows))
        return
    edges = np.linspace(0, rows, threads + 1).astype(int)
    with ThreadPoolExecutor(threads) as pool:
        list(pool.map(run, [slice(a, b) for a, b in itertools.pairwise(edges)]))


def at_least_before(learn: BoolMatrix, least: int) -> BoolMatrix:
    """Per cell, whether at least ``least`` cells of its row before it are ``learn``
    (``np.cumsum(learn, axis=1) - learn >= least``, without a matrix of running counts)."""
    from detectors.adaptive.kernels.history import learnt_before

    return learnt_before(np.ascontiguousarray(learn, dtype=np.bool_), least)


def standardised(*arrays: FloatMatrix) -> tuple[FloatMatrix, ...]:
    """:func:`detectors.adaptive.kernels.scaled_errors.standardised` of ``arrays`` (numba
    loaded on first use): its four matrices, the rows split across threads."""
    from detectors.adaptive.kernels.scaled_errors import standardised as kernel

    out = tuple(np.empty(arrays[0].shape) for _ in range(4))

    def run(part: slice) -> None:
        kernel(*(a[part] for a in arrays), *(o[part] for o in out))

    by_rows(run, len(arrays[0]), arrays[0].size)
    return out

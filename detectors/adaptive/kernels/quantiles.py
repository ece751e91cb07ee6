"""Quantiles of each column's usable scales: what ``np.nanquantile(..., axis=0)`` gives, bit for
bit, without its per-column Python calls and copies.

``np.nanquantile`` along an axis calls a Python function per column, which copies the column's
values and partitions them (10,000 rows x 365 columns of scales for the young floor of a
newest-point check: most of that step's time). Here the usable values are gathered in one pass
over the rows, each column's few order statistics are selected in place (quickselect: linear
time), and combined as numpy's ``"linear"`` method combines them.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from detectors.adaptive.kernels import FloatArray, FloatMatrix, IntArray, IntMatrix

BLOCK = 16
"""Columns gathered at a time: their buffers (16 x 10,000 values for 10,000 rows) stay in
cache, where one buffer for every column would be a fresh matrix as large as the scales'."""


def positive_quantiles(
    scale: FloatMatrix,
    count: IntMatrix,
    min_count: int,
    min_values: int,
    quantiles: tuple[float, ...],
) -> FloatMatrix:
    """``(len(quantiles), columns)``: each column's quantiles of its finite positive ``scale``
    values whose ``count`` is at least ``min_count``, NaN for a column with fewer than
    ``min_values`` of them; the same numbers as ``np.nanquantile`` of those values.

    >>> scale = np.array([[1.0, np.nan], [4.0, 2.0], [2.0, 0.0], [3.0, 5.0]])
    >>> positive_quantiles(scale, np.full((4, 2), 3), 3, 2, (0.5, 0.75)).tolist()
    [[2.5, 3.5], [3.25, 4.25]]
    """
    from detectors.adaptive.kernels import by_rows

    q = np.asarray(quantiles, dtype=np.float64)
    scale, count = np.asarray(scale, dtype=np.float64), np.asarray(count, dtype=np.int64)
    out = np.empty((len(q), scale.shape[1]))

    def part(columns: slice) -> None:
        out[:, columns] = _positive_quantiles(scale[:, columns], count[:, columns], min_count,
                                              min_values, q)  # fmt: skip

    # Each column's quantiles are its own: threads share out the columns (by_rows' "rows").
    by_rows(part, scale.shape[1], scale.size)
    return out


@njit(cache=True, nogil=True)
def _positive_quantiles(
    scale: FloatMatrix, count: IntMatrix, min_count: int, min_values: int, q: FloatArray
) -> FloatMatrix:
    rows, width = scale.shape
    out = np.full((len(q), width), np.nan)
    ranks = np.empty(2 * len(q), dtype=np.int64)
    # A block of columns at a time, row by row (the matrix's order), each column's usable
    # values to its own line of a buffer that stays in cache.
    gathered = np.empty((min(BLOCK, width), rows))
    found = np.zeros(min(BLOCK, width), dtype=np.int64)
    for first in range(0, width, BLOCK):
        block = min(BLOCK, width - first)
        found[:] = 0
        for r in range(rows):
            for b in range(block):
                value = scale[r, first + b]
                if math.isfinite(value) and value > 0 and count[r, first + b] >= min_count:
                    gathered[b, found[b]] = value
                    found[b] += 1
        for b in range(block):
            _column(gathered[b], found[b], min_values, q, ranks, out[:, first + b])
    return out


@njit(cache=True, nogil=True)
def _column(
    values: FloatArray, n: int, min_values: int, q: FloatArray, ranks: IntArray, out: FloatArray
) -> None:
    """``out[i]``: the ``q[i]`` quantile of ``values[:n]`` (reordered), NaN left in ``out``
    when ``n`` is below ``min_values``."""
    if n < max(min_values, 1):
        return
    # numpy's "linear" method: the virtual index (n - 1) q lies between two order
    # statistics (the last one for both where it reaches the end).
    for i in range(len(q)):
        below = _below(n, q[i])
        ranks[2 * i] = n - 1 if below < 0 else int(below)
        ranks[2 * i + 1] = n - 1 if below < 0 else int(below) + 1
    start = 0
    for rank in np.sort(ranks):
        if rank < start:  # placed already
            continue
        if rank == start and start > 0:  # next to the last one placed: the rest's smallest
            smallest = start
            for j in range(start + 1, n):
                if values[j] < values[smallest]:
                    smallest = j
            values[start], values[smallest] = values[smallest], values[start]
        else:
            _select(values, start, n, rank)
        start = rank + 1
    for i in range(len(q)):
        a, b = values[ranks[2 * i]], values[ranks[2 * i + 1]]
        t = (n - 1) * q[i] - _below(n, q[i])
        difference = b - a
        out[i] = b - difference * (1.0 - t) if t >= 0.5 else a + difference * t


@njit(cache=True, nogil=True)
def _below(n: int, q: float) -> float:
    """The order statistic below virtual index ``(n - 1) q``; -1 (numpy's "the last") at or
    past the end."""
    virtual = (n - 1) * q
    return -1.0 if virtual >= n - 1 else math.floor(virtual)


@njit(cache=True, nogil=True)
def _select(a: FloatArray, low: int, end: int, k: int) -> None:
    """Reorder ``a[low:end]`` (no NaN) so that ``a[k]`` holds its order statistic, nothing
    larger before it and nothing smaller after it (Hoare's selection with median-of-three
    pivots: ties split evenly, so runs of equal values stay linear)."""
    high = end - 1
    while high > low:
        middle = (low + high) >> 1
        if a[middle] < a[low]:
            a[middle], a[low] = a[low], a[middle]
        if a[high] < a[low]:
            a[high], a[low] = a[low], a[high]
        if a[high] < a[middle]:
            a[high], a[middle] = a[middle], a[high]
        pivot = a[middle]
        i, j = low, high
        while i <= j:
            while a[i] < pivot:
                i += 1
            while a[j] > pivot:
                j -= 1
            if i <= j:
                a[i], a[j] = a[j], a[i]
                i += 1
                j -= 1
        if k <= j:
            high = j
        elif k >= i:
            low = i
        else:
            return

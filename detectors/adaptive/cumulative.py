"""Cumulative series (the size of a table that only grows) are judged on their increments.

A cumulative size trends for ever, so a level model lags it by a whole batch at every point
and a band wide enough for that lag hides a stalled or doubled load. Its increments (what each
load appended) are a stationary series with the load's own cycle: modelled like a row count,
their band is shifted back onto the size by the previous value.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from detectors.adaptive.transform import first_values

FloatMatrix = NDArray[np.float64]
BoolArray = NDArray[np.bool_]


def cumulative_rows(x: FloatMatrix, points: int) -> BoolArray:
    """Rows whose first ``points`` finite values (at least 5) rise strictly at every step:
    an iid series does so with a chance of one in ``points!``.

    >>> cumulative_rows(np.array([[10.0, 12, 13, 15, 18, 19, 21], [10, 12, 11, 15, 18, 19, 21]]),
    ...                 7).tolist()
    [True, False]
    """
    deciding, found = first_values(x, points)
    before = previous_values(deciding)
    with np.errstate(invalid="ignore"):
        falls = ~np.isnan(deciding) & ~np.isnan(before) & (deciding <= before)
    return (found >= min(points, 5)) & ~falls.any(axis=1)


def previous_values(x: FloatMatrix) -> FloatMatrix:
    """Per cell, the row's last finite value before it (NaN before the first).

    >>> previous_values(np.array([[1.0, np.nan, 3.0, 4.0]])).tolist()
    [[nan, 1.0, 1.0, 3.0]]
    """
    finite = np.isfinite(x)
    index = np.where(finite, np.arange(x.shape[1])[None, :], -1)
    last = np.maximum.accumulate(index, axis=1)
    before = np.concatenate([np.full((len(x), 1), -1), last[:, :-1]], axis=1)
    values = np.take_along_axis(x, np.maximum(before, 0), axis=1)
    return np.where(before >= 0, values, np.nan)


def repaired_offsets(
    values: FloatMatrix, offsets: FloatMatrix, anomalous: BoolArray, increments: FloatMatrix
) -> FloatMatrix:
    """The size each increment is measured from: the previous value, or, after an anomalous
    one, the size the forecast expected there if that explains the point better (a table
    truncated for a day and then whole again grew by a normal batch, not by all of it).

    ``increments`` are the forecast increments in value units (NaN where none).

    >>> sizes = np.array([[100.0, 110, 120, 5, 140, 150]])
    >>> flagged = np.array([[False, False, False, True, False, False]])
    >>> repaired_offsets(sizes, previous_values(sizes), flagged, np.full((1, 6), 10.0)).tolist()
    [[nan, 100.0, 110.0, 120.0, 130.0, 140.0]]
    """
    out = offsets.copy()
    actual = np.full(len(values), np.nan)
    expected = np.full(len(values), np.nan)
    flagged = np.zeros(len(values), dtype=bool)
    with np.errstate(invalid="ignore"):
        for t in range(values.shape[1]):
            v, step = values[:, t], increments[:, t]
            better = flagged & (np.abs(v - expected - step) < np.abs(v - actual - step))
            reference = np.where(better, expected, actual)
            out[:, t] = np.where(np.isnan(offsets[:, t]), np.nan, reference)
            finite = np.isfinite(v)
            here = np.where(np.isfinite(reference + step), reference + step, v)
            expected = np.where(finite, here, expected)
            actual = np.where(finite, v, actual)
            flagged = np.where(finite, anomalous[:, t], flagged)
    return out

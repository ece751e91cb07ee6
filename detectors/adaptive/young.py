"""Young series borrow a floor for their scale from the other series judged with them.

A series' scale is the running mean of a handful of errors in its first weeks, and a handful of
errors can be exactly zero: a share of a small group that sits at 0, or whose second week
repeats its first to the row (0.5, 0.4, 0.5), leaves a zero-width band, and the next ordinary
value is "impossible" (p = 0, past any alert budget). That is where a clean table of 1,000
groups raised its false alerts, on days 9 to 19 of a new scan. The other groups of the call
(one metric of a scan) have seen errors of the same kind on the same scale, so their median
scale (rows on the same transform, matched at the same distance from their newest point, as
:mod:`detectors.adaptive.pooling` matches them) floors a young row's scale, with a weight that
fades as the row's own errors grow in number: ``FADE / errors`` of the pooled scale once past
``FADE`` errors, unless every error of the row was zero (``UNMOVED``). The floor only widens:
a row whose own scale is larger keeps it, and a single series, fewer than ``MIN_ROWS`` rows of
a kind, or ``Adaptive(share_tails=False)`` are judged exactly as before.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

FloatMatrix = NDArray[np.float64]

MIN_ROWS = 5
"""Rows of one transform needed for their median scale to say anything."""
MIN_ERRORS = 3
"""A row's scale enters the pool once it rests on this many errors."""
FADE = 7.0
"""Errors after which the floor starts to fade (a week of daily points)."""
SHARE = 0.25
"""A row that has moved keeps at least this share of its peers' median scale: enough that a
fluke of a few exactly repeated values is no zero-width band, little enough that a row much
quieter than its peers is still judged by its own errors."""
UNMOVED = 0.75
"""A row whose every error was zero (a completeness that never moved) has nothing of its own
to say how far a move goes, or where it stands among its peers: its floor is this quantile of
their scales, not their median, and does not fade (where peers' scales differ, the tails of
their mixture are the wide ones')."""


def pooled_floor(
    scale: FloatMatrix,
    count: NDArray[np.int64],
    kinds: NDArray[np.int8],
    newest: NDArray[np.int64],
    needed: NDArray[np.bool_],
) -> FloatMatrix:
    """Per cell, the floor for its scale (0 where there is none): the median positive scale
    of the rows of its transform ``kinds`` at the same distance before their ``newest``
    column, times ``SHARE * min(1, FADE / count)`` (a row that never erred: their ``UNMOVED``
    quantile, unfaded); computed for the ``needed`` cells.

    >>> scale = np.array([[0.0, 0.0], [1.0, 2.0], [1.0, 2.0], [3.0, 2.0], [1.0, 4.0],
    ...                   [2.0, 2.0]])
    >>> floor = pooled_floor(scale, np.full((6, 2), 14), np.zeros(6, np.int8),
    ...                      np.full(6, 1), np.ones((6, 2), bool))
    >>> floor[0].tolist(), floor[1].tolist()
    ([2.0, 2.0], [0.125, 0.25])
    """
    from detectors.adaptive.kernels.peer_floor import faded_floor
    from detectors.adaptive.kernels.quantiles import positive_quantiles

    floor = np.zeros(scale.shape)
    groups, width = scale.shape
    if groups < MIN_ROWS or not needed.any():
        return floor
    columns = np.arange(width)
    aligned = bool((newest == newest[0]).all())
    if aligned:  # a scan's rows end together: columns are aligned
        asked = needed.any(axis=0)
        shift = np.zeros(groups, np.int64)
    else:  # aligned column ``c`` holds each row's cell ``c - shift``
        shift = width - 1 - newest
        source = np.clip(columns[None, :] - shift[:, None], 0, width - 1)
        inside = columns[None, :] >= shift[:, None]
        asked = (np.take_along_axis(needed, source, axis=1) & inside).any(axis=0)
    picked = np.flatnonzero(asked)
    for kind in np.unique(kinds):
        rows = np.flatnonzero(kinds == kind)
        if len(rows) < MIN_ROWS:
            continue
        own_scale = scale if len(rows) == groups else scale[rows]
        own_count = count if len(rows) == groups else count[rows]
        if aligned:  # (a run of columns, as a newest-point check asks: a view, no copy)
            run = len(picked) and picked[-1] - picked[0] + 1 == len(picked)
            at = slice(picked[0], picked[-1] + 1) if run else picked
            taken = (own_scale[:, at], own_count[:, at])
        else:
            source = picked[None, :] - shift[rows, None]
            inside = (source >= 0) & (source < width)
            at = np.clip(source, 0, width - 1)
            taken = (np.where(inside, scale[rows[:, None], at], np.nan), count[rows[:, None], at])
        # Per column, the median and UNMOVED quantile of the usable scales (positive, on
        # MIN_ERRORS errors or more; NaN: fewer than MIN_ROWS of them).
        typical, wide = np.full(width, np.nan), np.full(width, np.nan)
        typical[picked], wide[picked] = positive_quantiles(*taken, MIN_ERRORS, MIN_ROWS,
                                                           (0.5, UNMOVED))  # fmt: skip
        if np.isnan(typical).all():
            continue
        if aligned:
            typical_at, wide_at = typical[None, :], wide[None, :]
        else:  # back from aligned columns to each row's own: cell t sits at aligned t + shift
            back = np.clip(columns[None, :] + shift[rows, None], 0, width - 1)
            typical_at, wide_at = typical[back], wide[back]
        # A row that never erred: their UNMOVED quantile; else their median, faded by count.
        faded_floor(floor, rows, scale, count, typical_at, wide_at, SHARE, FADE)
    return floor

"""Walk-forward verdicts: each point judged as the newest one, on only the points before it.

This is what a scheduled check sees day by day, so a backtest built on it cannot leak the future:
point ``i`` is judged by ``detector.evaluate(h + [x[i]], (len(h), len(h) + 1))`` where ``h`` holds
the points before ``i`` that may serve as history (``baseline``; all by default). Three ways give
that same result: a detector's own ``walk_forward`` method (alert-fatigue controls), one kernel
call over a triangle of prefixes for vectorised detectors (``MatrixDetector.evaluate`` is its
kernel on one row), and otherwise one ``evaluate`` per point.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

import numpy as np
from numpy.typing import ArrayLike, NDArray

from detectors.base import Detector, as_detector, as_values, resolve_interval
from detectors.evaluation import OK, Evaluation, FloatArray
from detectors.vectorised import Cell, MatrixDetector

Mask = NDArray[np.bool_]
MAX_CELLS = 1 << 22  # rows x columns per kernel call: ~32 MB per float matrix


@runtime_checkable
class WalksForward(Protocol):
    """A detector with its own (faster, equivalent) walk-forward evaluation."""

    def walk_forward(
        self, values: FloatArray, start: int, end: int, baseline: Mask | None
    ) -> Evaluation: ...


def walk_forward(
    detector: object,
    values: ArrayLike,
    start: int = 0,
    end: int | None = None,
    *,
    baseline: ArrayLike | None = None,
) -> Evaluation:
    """The verdict each point of ``[start, end)`` gets when it is the newest point.

    ``baseline[j]`` says whether point ``j`` may be history for later points (``False`` for
    points excluded from baselines); the judged point itself is always judged. ``index`` of the
    result holds positions in ``values``.

    Examples
    --------
    >>> from detectors import OnlineNormal, RobustMAD
    >>> series = [10.0, 10.4, 9.7, 10.1, 30.0, 10.2, 9.9]
    >>> [str(s) for s in walk_forward(OnlineNormal(ignore_start_percentage=0), series).status]
    ['insufficient history', 'insufficient history', 'ok', 'ok', 'anomaly', 'ok', 'ok']
    >>> walk_forward(RobustMAD(min_history=3), series, 4, 5).status[0] == "anomaly"
    True
    """
    x = as_values(values)
    start, end = resolve_interval((start, end), len(x))
    mask = None if baseline is None else np.asarray(baseline, dtype=bool)
    if mask is not None and mask.shape != x.shape:
        raise ValueError(f"baseline must have one flag per value ({len(x)}), got {mask.shape}")
    if isinstance(detector, WalksForward):
        return detector.walk_forward(x, start, end, mask)
    resolved = as_detector(detector)
    if isinstance(resolved, MatrixDetector):
        return _triangle(resolved, x, start, end, mask)
    return _one_by_one(resolved, x, start, end, mask)


def _history_sizes(length: int, mask: Mask | None) -> NDArray[np.int64]:
    """For each position, the number of earlier points usable as history."""
    usable = np.ones(length, dtype=bool) if mask is None else mask
    return np.concatenate([[0], np.cumsum(usable, dtype=np.int64)])[:length]


def _one_by_one(
    detector: Detector, x: FloatArray, start: int, end: int, mask: Mask | None
) -> Evaluation:
    parts = []
    for i in range(start, end):
        history = x[:i] if mask is None else x[:i][mask[:i]]
        n = len(history)
        parts.append(detector.evaluate(np.append(history, x[i]), (n, n + 1)))
    return concatenate(detector.name, parts, start)


def _triangle(
    detector: MatrixDetector, x: FloatArray, start: int, end: int, mask: Mask | None
) -> Evaluation:
    """Every judged point as the last cell of its own row: history, then the point."""
    sizes = _history_sizes(len(x), mask)[start:end]
    history = x if mask is None else x[mask]
    rows = max(1, MAX_CELLS // (int(sizes.max(initial=0)) + 1))
    parts = []
    for first in range(0, end - start, rows):
        n = sizes[first : first + rows]
        width = int(n.max()) + 1
        cols = np.arange(width)
        padded = np.full(width, np.nan)
        padded[: min(width, len(history))] = history[:width]
        matrix = np.where(cols[None, :] < n[:, None], padded[None, :], np.nan)
        r = np.arange(len(n))
        matrix[r, n] = x[start + first : start + first + len(n)]
        result = detector.evaluate_matrix(matrix, n + 1, n)
        cells = (r, n)
        codes = result.codes[cells]
        value = matrix[cells]
        lower, upper, aux = result.lower[cells], result.upper[cells], result.aux[cells]
        details = tuple(
            ""
            if codes[k] == OK
            else detector.describe(
                Cell(int(n[k]), int(n[k]) + 1, value[k], lower[k], upper[k], int(codes[k]), aux[k])
            )
            for k in range(len(n))
        )
        index = np.arange(start + first, start + first + len(n), dtype=np.int64)
        parts.append(
            Evaluation(
                detector.name, index, value, lower, upper, codes, result.confidence[cells], details
            )
        )
    return concatenate(detector.name, parts, start)


def concatenate(name: str, parts: list[Evaluation], start: int) -> Evaluation:
    """One evaluation of consecutive points from parts (each re-indexed from ``start`` on)."""
    if not parts:
        empty = np.empty(0)
        return Evaluation(
            name, np.empty(0, np.int64), empty, empty, empty, np.empty(0, np.int8), empty, ()
        )
    count = sum(len(p) for p in parts)

    def joined(field: str) -> NDArray[np.generic]:
        return np.concatenate([getattr(p, field) for p in parts])

    with_p = all(p.p_value is not None for p in parts)

    return Evaluation(
        name,
        np.arange(start, start + count, dtype=np.int64),
        joined("value").astype(np.float64),
        joined("lower").astype(np.float64),
        joined("upper").astype(np.float64),
        joined("codes").astype(np.int8),
        joined("confidence").astype(np.float64),
        tuple(d for p in parts for d in p.detail),
        joined("p_value").astype(np.float64) if with_p else None,
    )

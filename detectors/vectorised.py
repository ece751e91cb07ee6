"""Detectors that evaluate many series at once, as rows of a NaN-padded matrix.

``detect_frame`` uses this to run thousands of groups without a Python loop per group per point;
``evaluate`` on one series runs the same kernel on a one-row matrix, so both paths agree.
"""

from __future__ import annotations

from dataclasses import replace
from typing import NamedTuple

import numpy as np
from numpy.typing import ArrayLike, NDArray

from detectors.base import Detector, Interval, as_values, resolve_interval
from detectors.evaluation import (
    INSUFFICIENT,
    MISSING,
    CodeArray,
    Evaluation,
    FloatArray,
    IntArray,
    band_detail,
    missing_detail,
)

FloatMatrix = NDArray[np.float64]


class MatrixResult(NamedTuple):
    """Per-cell kernel output, each of shape ``(groups, time)``."""

    lower: FloatMatrix
    upper: FloatMatrix
    codes: NDArray[np.int8]
    confidence: FloatMatrix
    aux: FloatMatrix  # the detector's own tested quantity (a change, a ratio), for details
    p_value: FloatMatrix | None = None  # for detectors with calibrated bands


class Cell(NamedTuple):
    """One evaluated point, as ``describe`` sees it."""

    position: int
    length: int
    value: float
    lower: float
    upper: float
    code: int
    aux: float


class MatrixDetector(Detector):
    """Base of vectorised detectors: implement :meth:`evaluate_matrix`."""

    def evaluate_matrix(self, x: FloatMatrix, lengths: IntArray, starts: IntArray) -> MatrixResult:
        """Evaluate each row ``g`` over its first ``lengths[g]`` cells (the rest is NaN padding).

        ``starts[g]`` is where the row's interval begins; only detectors whose history depends
        on the interval (Deequ's OnlineNormal) look at it.
        """
        raise NotImplementedError

    def insufficient_reason(self, cell: Cell) -> str:
        """Why ``cell`` has too little history; detectors with a sharper reason override it."""
        return f"only {cell.position} earlier points."

    def describe(self, cell: Cell) -> str:
        """The ``detail`` of a point that is not fine."""
        if cell.code == MISSING:
            return missing_detail(self.name)
        if cell.code == INSUFFICIENT:
            return f"[{self.name}] Insufficient history: {self.insufficient_reason(cell)}"
        return band_detail(self.name, cell.value, cell.lower, cell.upper)

    def evaluate(self, values: ArrayLike, interval: Interval | None = None) -> Evaluation:
        x = as_values(values)
        start, end = resolve_interval(interval, len(x))
        lengths = np.array([len(x)], dtype=np.int64)
        result = self.evaluate_matrix(x[None, :], lengths, np.array([start], dtype=np.int64))
        evaluation = self.row_evaluation(x, start, end, *(part[0] for part in result[:5]))
        if result.p_value is None:
            return evaluation
        return replace(evaluation, p_value=result.p_value[0][start:end])

    def row_evaluation(
        self,
        x: FloatArray,
        start: int,
        end: int,
        lower: FloatArray,
        upper: FloatArray,
        codes: CodeArray,
        confidence: FloatArray,
        aux: FloatArray,
    ) -> Evaluation:
        """An ``Evaluation`` of ``x[start:end]`` from full-length per-point arrays."""
        window = slice(start, end)
        length = len(x)

        def describe(k: int) -> str:
            i = start + k
            cell = Cell(i, length, x[i], lower[i], upper[i], int(codes[i]), aux[i])
            return self.describe(cell)

        return Evaluation.build(
            self.name,
            start,
            x[window],
            lower[window],
            upper[window],
            codes[window],
            confidence[window],
            describe,
        )

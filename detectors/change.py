"""Limits on how fast a series may change (Deequ's AbsoluteChange and RelativeRateOfChange).

Both report bounds in value units (what the point would have to be to pass), so plots and
alerts show the same band as every other detector; the decision itself is Deequ's, on the
change.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from detectors._params import check_at_least_one, check_int, check_number, check_ordered
from detectors.evaluation import ANOMALY, INSUFFICIENT, MISSING, OK, IntArray, fmt, rule_confidence
from detectors.vectorised import Cell, FloatMatrix, MatrixDetector, MatrixResult


@dataclass(frozen=True)
class _RateOfChange(MatrixDetector):
    max_rate_decrease: float | None = None
    max_rate_increase: float | None = None
    order: int = 1

    min_order: ClassVar[int] = 1

    def __post_init__(self) -> None:
        names = ("max_rate_decrease", "max_rate_increase")
        check_number(names[0], self.max_rate_decrease)
        check_number(names[1], self.max_rate_increase)
        check_at_least_one(names, (self.max_rate_decrease, self.max_rate_increase))
        check_ordered(names, self.max_rate_decrease, self.max_rate_increase)
        check_int("order", self.order, self.min_order)

    @property
    def interval_independent(self) -> bool:
        return True  # each point is compared with the value ``order`` steps before it

    @property
    def _limits(self) -> tuple[float, float]:
        low = -np.inf if self.max_rate_decrease is None else self.max_rate_decrease
        high = np.inf if self.max_rate_increase is None else self.max_rate_increase
        return low, high

    def _change(self, x: FloatMatrix) -> tuple[FloatMatrix, FloatMatrix, FloatMatrix]:
        """The tested change per cell (NaN where it cannot be computed) and the value band."""
        raise NotImplementedError

    def evaluate_matrix(self, x: FloatMatrix, lengths: IntArray, starts: IntArray) -> MatrixResult:
        with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
            change, lower, upper = self._change(x)
        low, high = self._limits
        codes = np.where((change < low) | (change > high), ANOMALY, OK).astype(np.int8)
        codes[np.isnan(change)] = INSUFFICIENT
        codes[np.isnan(x)] = MISSING
        return MatrixResult(lower, upper, codes, rule_confidence(codes), change)

    def insufficient_reason(self, cell: Cell) -> str:
        if cell.position < self.order:
            return f"needs {self.order} earlier points (order={self.order}), has {cell.position}."
        return f"a value within {self.order} steps before index {cell.position} is missing."

    def describe(self, cell: Cell) -> str:
        if cell.code != ANOMALY:
            return super().describe(cell)
        low, high = self._limits
        return (
            f"[{self.name}] Change of {fmt(cell.aux)} is not in bounds [{fmt(low)}, {fmt(high)}]."
            f" Order={self.order}. Value {fmt(cell.value)} expected in"
            f" [{fmt(cell.lower)}, {fmt(cell.upper)}]."
        )


@dataclass(frozen=True)
class AbsoluteChange(_RateOfChange):
    """Flag points whose ``order``-th difference is below ``max_rate_decrease`` or above
    ``max_rate_increase`` (Deequ's AbsoluteChangeStrategy; ``order=0`` tests the values).

    The first ``order`` points have ``insufficient history``; a NaN within ``order`` steps
    back makes the difference unknown, so that point is ``insufficient history`` too.

    Examples
    --------
    >>> detector = AbsoluteChange(max_rate_increase=8, order=2)
    >>> [(a.index, a.value) for a in detector.detect([0, 1, 3, 6, 18, 72])]
    [(4, 18.0), (5, 72.0)]
    """

    min_order: ClassVar[int] = 0

    def _change(self, x: FloatMatrix) -> tuple[FloatMatrix, FloatMatrix, FloatMatrix]:
        diff = x
        for _ in range(self.order):
            diff = diff[:, 1:] - diff[:, :-1]
        change = np.full(x.shape, np.nan)
        change[:, self.order :] = diff
        # The value that would make the change zero; the band is that plus the allowed rates.
        neutral = x - change if self.order else np.zeros(x.shape)
        low, high = self._limits
        return change, neutral + low, neutral + high


@dataclass(frozen=True)
class RelativeRateOfChange(_RateOfChange):
    """Flag points whose ratio ``x[i] / x[i - order]`` is below ``max_rate_decrease`` or above
    ``max_rate_increase`` (Deequ's RelativeRateOfChangeStrategy).

    A change from 0 to anything else is infinite (``x / 0``), as in Deequ; 0 to 0 is no change
    (ratio 1) rather than Deequ's NaN, which could never be flagged either way.

    Examples
    --------
    >>> detector = RelativeRateOfChange(max_rate_increase=8, order=2)
    >>> [a.index for a in detector.detect([0, 1, 3, 6, 18, 72])]
    [2, 5]
    >>> detector.detect([0, 1, 3, 6, 18, 72])[0].detail.split(".")[0]
    '[RelativeRateOfChange] Change of inf is not in bounds [-inf, 8'
    """

    def _change(self, x: FloatMatrix) -> tuple[FloatMatrix, FloatMatrix, FloatMatrix]:
        base = np.full(x.shape, np.nan)
        base[:, self.order :] = x[:, : -self.order]
        ratio = x / base
        ratio[(x == 0) & (base == 0)] = 1.0
        low, high = self._limits
        # Scaling the ratio limits by the base gives the value band; a negative base flips it.
        zero_low, zero_high = (
            (-np.inf if low == -np.inf else 0.0),
            (np.inf if high == np.inf else 0.0),
        )
        lower = np.where(base > 0, base * low, np.where(base < 0, base * high, zero_low))
        upper = np.where(base > 0, base * high, np.where(base < 0, base * low, zero_high))
        unknown = np.isnan(base)
        lower[unknown] = np.nan
        upper[unknown] = np.nan
        return ratio, lower, upper

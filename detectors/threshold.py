"""Fixed bounds on the values (Deequ's SimpleThresholdStrategy)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from detectors._params import check_at_least_one, check_number, check_ordered
from detectors.evaluation import IntArray, judge, rule_confidence
from detectors.vectorised import FloatMatrix, MatrixDetector, MatrixResult


@dataclass(frozen=True)
class SimpleThreshold(MatrixDetector):
    """Flag values outside ``[lower_bound, upper_bound]``; ``None`` leaves that side open.

    Needs no history, so no point is ever ``insufficient history``.

    Examples
    --------
    >>> [a.index for a in SimpleThreshold(upper_bound=1).detect([-1, 2, 3, 0.5])]
    [1, 2]
    >>> SimpleThreshold(lower_bound=0).detect([1.0, -2.0])[0].detail
    '[SimpleThreshold] Value -2.0 is not in bounds [0.0, inf].'
    """

    lower_bound: float | None = None
    upper_bound: float | None = None

    def __post_init__(self) -> None:
        names = ("lower_bound", "upper_bound")
        check_number(names[0], self.lower_bound)
        check_number(names[1], self.upper_bound)
        check_at_least_one(names, (self.lower_bound, self.upper_bound))
        check_ordered(names, self.lower_bound, self.upper_bound)

    @property
    def interval_independent(self) -> bool:
        return True  # a fixed band: each point is judged on its own value

    def evaluate_matrix(self, x: FloatMatrix, lengths: IntArray, starts: IntArray) -> MatrixResult:
        low = -np.inf if self.lower_bound is None else self.lower_bound
        high = np.inf if self.upper_bound is None else self.upper_bound
        lower = np.full(x.shape, low, dtype=np.float64)
        upper = np.full(x.shape, high, dtype=np.float64)
        codes = judge(x, lower, upper, np.ones(x.shape, dtype=bool))
        return MatrixResult(lower, upper, codes, rule_confidence(codes), x)

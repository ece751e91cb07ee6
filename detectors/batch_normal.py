"""Mean and standard deviation of the whole history (Deequ's BatchNormalStrategy)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np
from numpy.typing import ArrayLike

from detectors._params import check_at_least_one, check_bool, check_factor
from detectors.base import Detector, Interval, as_values, resolve_interval
from detectors.evaluation import (
    INSUFFICIENT,
    MISSING,
    Evaluation,
    band_detail,
    judge,
    missing_detail,
    rule_confidence,
)


@dataclass(frozen=True)
class BatchNormal(Detector):
    """Flag interval points more than ``k`` *sample* standard deviations from the mean of the
    points outside the interval (or of all points with ``include_interval=True``).

    Fewer than two finite baseline points is ``insufficient history`` (Deequ throws instead).
    Non-finite values never enter the baseline.

    Examples
    --------
    >>> series = [10.0, 11.0, 9.0, 10.0, 10.0, 25.0]
    >>> [a.index for a in BatchNormal().detect(series, interval=(5, 6))]
    [5]
    >>> [str(s) for s in BatchNormal().evaluate(series).status][:2]  # nothing outside
    ['insufficient history', 'insufficient history']
    """

    lower_deviation_factor: float | None = 3.0
    upper_deviation_factor: float | None = 3.0
    include_interval: bool = False

    min_baseline: ClassVar[int] = 2

    def __post_init__(self) -> None:
        names = ("lower_deviation_factor", "upper_deviation_factor")
        check_factor(names[0], self.lower_deviation_factor)
        check_factor(names[1], self.upper_deviation_factor)
        check_at_least_one(names, (self.lower_deviation_factor, self.upper_deviation_factor))
        check_bool("include_interval", self.include_interval)

    def evaluate(self, values: ArrayLike, interval: Interval | None = None) -> Evaluation:
        x = as_values(values)
        start, end = resolve_interval(interval, len(x))
        baseline = x if self.include_interval else np.concatenate([x[:start], x[end:]])
        baseline = baseline[np.isfinite(baseline)]
        value = x[start:end]
        ready = len(baseline) >= self.min_baseline
        low, high = np.nan, np.nan
        if ready:
            mean, sd = float(baseline.mean()), float(baseline.std(ddof=1))
            lf, uf = self.lower_deviation_factor, self.upper_deviation_factor
            low = -np.inf if lf is None else mean - lf * sd
            high = np.inf if uf is None else mean + uf * sd
        lower = np.full(len(value), low)
        upper = np.full(len(value), high)
        codes = judge(value, lower, upper, np.full(len(value), ready))
        name, used = self.name, len(baseline)

        def describe(k: int) -> str:
            if codes[k] == MISSING:
                return missing_detail(name)
            if codes[k] == INSUFFICIENT:
                return (
                    f"[{name}] Insufficient history: {used} finite baseline values, needs"
                    f" {self.min_baseline}."
                )
            return band_detail(name, value[k], low, high)

        return Evaluation.build(
            name, start, value, lower, upper, codes, rule_confidence(codes), describe
        )

"""Median and median absolute deviation: a band that outliers in the history cannot widen."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from detectors._params import check_at_least_one, check_factor, check_int
from detectors.base import Detector
from detectors.evaluation import FloatArray

# Scales the MAD (and the mean absolute deviation) to a standard deviation for normal data.
MAD_TO_SD = 1.4826
MEAN_AD_TO_SD = 1.2533


@dataclass(frozen=True)
class RobustMAD(Detector):
    """Flag points more than ``k`` robust standard deviations (1.4826 x MAD) from the median of
    the history before them, optionally only its last ``window`` points.

    When more than half the history is one value the MAD is 0; the mean absolute deviation
    then gives the scale, so a mostly constant metric still tolerates the rare wobble it has
    shown before. A truly constant history gives a zero-width band. Default factors 3.5 follow
    Iglewicz and Hoaglin's modified z-score.

    Examples
    --------
    >>> series = [10.0, 10.5, 9.5, 60.0, 10.2, 9.8, 10.1, 30.0]
    >>> [a.index for a in RobustMAD(min_history=3).detect(series)]
    [3, 7]
    """

    lower_deviation_factor: float | None = 3.5
    upper_deviation_factor: float | None = 3.5
    window: int | None = None
    min_history: int = 5

    def __post_init__(self) -> None:
        names = ("lower_deviation_factor", "upper_deviation_factor")
        check_factor(names[0], self.lower_deviation_factor)
        check_factor(names[1], self.upper_deviation_factor)
        check_at_least_one(names, (self.lower_deviation_factor, self.upper_deviation_factor))
        check_int("window", self.window, 1, optional=True)
        check_int("min_history", self.min_history, 1)

    def bounds(self, history: FloatArray) -> tuple[float, float] | None:
        if self.window is not None:
            history = history[-self.window :]
        if len(history) < self.min_history:
            return None
        median = float(np.median(history))
        deviation = np.abs(history - median)
        scale = MAD_TO_SD * float(np.median(deviation))
        if scale == 0.0:
            scale = MEAN_AD_TO_SD * float(deviation.mean())
        lf, uf = self.lower_deviation_factor, self.upper_deviation_factor
        return (
            -np.inf if lf is None else median - lf * scale,
            np.inf if uf is None else median + uf * scale,
        )

"""Running mean and standard deviation (Deequ's OnlineNormalStrategy).

Two implementations of one recursion: a scalar loop for one series (fast without numpy's
per-call overhead) and a kernel over a groups x time matrix for ``detect_frame``. They perform
the same IEEE operations in the same order, so their results are identical, not just close.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

from detectors._params import (
    check_at_least_one,
    check_bool,
    check_factor,
    check_fraction,
    check_int,
)
from detectors.base import Interval, as_values, resolve_interval
from detectors.evaluation import (
    ANOMALY,
    INSUFFICIENT,
    MISSING,
    OK,
    Evaluation,
    IntArray,
    outside,
    rule_confidence,
)
from detectors.student_t import t_widths
from detectors.vectorised import Cell, FloatMatrix, MatrixDetector, MatrixResult

Widths = tuple[list[float] | None, list[float] | None]


@dataclass(frozen=True)
class OnlineNormal(MatrixDetector):
    """Flag points more than ``k`` standard deviations from the running mean.

    The mean and *population* variance are updated point by point (Welford). With
    ``ignore_anomalies`` flagged points are left out of later statistics, and the first
    ``ignore_start_percentage`` of the series is never flagged (it only builds the baseline).

    ``include_current_point=False`` (default) tests each point against the statistics of the
    points before it, which needs at least ``min_baseline`` (2) of them. Every point is
    screened, history included, so the verdict on a point never depends on the interval asked
    for. With ``prediction_interval`` (default) the band is the Student-t prediction interval of
    the next point (see :mod:`detectors.student_t`): ``mean +- q * s * sqrt(1 + 1/n)`` with the
    sample sd ``s`` of the ``n`` baseline points and the t quantile ``q`` of the tail a factor
    ``k`` leaves to a normal value; it tends to ``mean +- k * sd`` as ``n`` grows. Without it the
    band is ``mean +- k *`` population sd, which is too narrow on short baselines: early points
    get flagged, leave the baseline (``ignore_anomalies``) and narrow it further, a cascade of
    false alarms (``bench/detection_quality.py`` and ``docs/backtesting.md`` measure both).

    ``include_current_point=True`` reproduces Deequ exactly: the point is part of its own mean
    and variance (so with factor 3 nothing can fire on 10 points or fewer), the count is the
    position in the series even after anomalies were left out, and points before the interval
    are never screened; ``prediction_interval`` and ``min_baseline`` do not apply. Unlike Deequ,
    the reported bounds are the ones the point was tested against, and ``None`` makes a side
    truly unbounded (Deequ multiplies by ``Double.MaxValue``, which collapses to the mean when
    the deviation is 0).

    NaN values are ``missing``; infinite values are tested but never enter the statistics.

    Examples
    --------
    >>> series = [10.0, 11.0, 9.0, 10.5, 9.5, 10.0, 30.0, 10.2]
    >>> [a.index for a in OnlineNormal().detect(series)]
    [6]
    >>> [a.index for a in OnlineNormal(prediction_interval=False).detect([10, 10.1, 10.3])]
    [2]
    >>> OnlineNormal().detect([10, 10.1, 10.3])  # two points say little about the spread
    []
    >>> OnlineNormal(include_current_point=True).detect(series)  # Deequ: too few points
    []
    """

    lower_deviation_factor: float | None = 3.0
    upper_deviation_factor: float | None = 3.0
    ignore_start_percentage: float = 0.1
    ignore_anomalies: bool = True
    include_current_point: bool = False
    prediction_interval: bool = True
    min_baseline: int = 2

    def __post_init__(self) -> None:
        names = ("lower_deviation_factor", "upper_deviation_factor")
        check_factor(names[0], self.lower_deviation_factor)
        check_factor(names[1], self.upper_deviation_factor)
        check_at_least_one(names, (self.lower_deviation_factor, self.upper_deviation_factor))
        check_fraction("ignore_start_percentage", self.ignore_start_percentage)
        check_bool("ignore_anomalies", self.ignore_anomalies)
        check_bool("include_current_point", self.include_current_point)
        check_bool("prediction_interval", self.prediction_interval)
        check_int("min_baseline", self.min_baseline, 2)

    @property
    def interval_independent(self) -> bool:
        # Deequ's mode never screens the points before the interval, so its baseline moves
        # with the interval's start.
        return not self.include_current_point

    def evaluate(self, values: ArrayLike, interval: Interval | None = None) -> Evaluation:
        x = as_values(values)
        start, end = resolve_interval(interval, len(x))
        lower = np.full(end, np.nan)
        upper = np.full(end, np.nan)
        codes = np.full(end, MISSING, dtype=np.int8)
        skip = len(x) * self.ignore_start_percentage
        state = (0, 0.0, 0.0)  # count, mean, sum of squared deviations
        if self.include_current_point:
            for i, v in enumerate(x[:end].tolist()):
                state, lower[i], upper[i], codes[i] = self._deequ_step(
                    state, v, i >= skip, i >= start
                )
        else:
            tables = self._widths(end + 1)
            widths: Widths = (
                None if tables[0] is None else tables[0].tolist(),
                None if tables[1] is None else tables[1].tolist(),
            )
            for i, v in enumerate(x[:end].tolist()):
                state, lower[i], upper[i], codes[i] = self._step(widths, state, v, i >= skip)
        confidence = rule_confidence(codes)
        return self.row_evaluation(x, start, end, lower, upper, codes, confidence, x[:end])

    def _band(self, mean: float, sd: float) -> tuple[float, float]:
        low = (
            -math.inf
            if self.lower_deviation_factor is None
            else mean - self.lower_deviation_factor * sd
        )
        high = (
            math.inf
            if self.upper_deviation_factor is None
            else mean + self.upper_deviation_factor * sd
        )
        return low, high

    def _widths(self, size: int) -> tuple[FloatMatrix | None, FloatMatrix | None]:
        """Prediction-interval widths by baseline size per side (``None``: no table needed)."""

        def table(factor: float | None) -> FloatMatrix | None:
            if factor is None or not self.prediction_interval:
                return None
            return t_widths(factor, size)

        return table(self.lower_deviation_factor), table(self.upper_deviation_factor)

    def _step(
        self, widths: Widths, state: tuple[int, float, float], v: float, past_start: bool
    ) -> tuple[tuple[int, float, float], float, float, int]:
        n, mean, sn = state
        if n < self.min_baseline:
            low = high = math.nan
        elif self.prediction_interval:
            root = math.sqrt(sn)
            lw, uw = widths
            low = -math.inf if lw is None else mean - (lw[n] * root if sn > 0 else 0.0)
            high = math.inf if uw is None else mean + (uw[n] * root if sn > 0 else 0.0)
        else:
            low, high = self._band(mean, math.sqrt(sn / n))
        ready = past_start and n >= self.min_baseline
        anomaly = ready and bool(outside(v, low, high))
        code = MISSING if v != v else (ANOMALY if anomaly else OK) if ready else INSUFFICIENT
        if math.isfinite(v) and not (anomaly and self.ignore_anomalies):
            n1 = n + 1
            delta = v - mean
            mean = mean + (1.0 / n1) * delta
            state = (n1, mean, sn + delta * (v - mean))
        return state, low, high, code

    def _deequ_step(
        self, state: tuple[int, float, float], v: float, past_start: bool, in_interval: bool
    ) -> tuple[tuple[int, float, float], float, float, int]:
        n, mean, sn = state
        finite = math.isfinite(v)
        if finite:
            n1 = n + 1
            delta = v - mean
            m1 = mean + (1.0 / n1) * delta
            s1 = sn + delta * (v - m1)
            low, high = self._band(m1, math.sqrt(s1 / n1))
        else:
            low, high = self._band(mean, math.sqrt(sn / n) if n > 0 else 0.0)
            if n == 0:
                low = high = math.nan
        anomaly = past_start and in_interval and bool(outside(v, low, high))
        code = MISSING if v != v else (ANOMALY if anomaly else OK) if past_start else INSUFFICIENT
        if finite:
            keep = not (anomaly and self.ignore_anomalies)
            # Deequ counts positions, not retained points: the count grows even for anomalies.
            state = (n1, m1, s1) if keep else (n1, mean, sn)
        return state, low, high, code

    def evaluate_matrix(self, x: FloatMatrix, lengths: IntArray, starts: IntArray) -> MatrixResult:
        xt = np.ascontiguousarray(x.T)  # time-major: each step reads one contiguous row
        steps, groups = xt.shape
        lower = np.full(xt.shape, np.nan)
        upper = np.full(xt.shape, np.nan)
        codes = np.empty(xt.shape, dtype=np.int8)
        skip = lengths * self.ignore_start_percentage
        n = np.zeros(groups)
        mean = np.zeros(groups)
        sn = np.zeros(groups)
        tables = self._widths(steps + 1)
        with np.errstate(invalid="ignore", over="ignore"):
            for t in range(steps):
                v = xt[t]
                past_start = t >= skip
                missing = np.isnan(v)
                finite = np.isfinite(v)
                n1 = n + 1.0
                delta = v - mean
                m1 = mean + (1.0 / n1) * delta
                s1 = sn + delta * (v - m1)
                sd_before = np.sqrt(sn / np.where(n > 0, n, 1.0))
                if self.include_current_point:
                    centre = np.where(finite, m1, mean)
                    sd = np.where(finite, np.sqrt(s1 / n1), sd_before)
                    low, high = self._band_array(centre, sd, finite | (n > 0))
                    ready = past_start
                    anomaly = ready & (t >= starts) & outside(v, low, high)
                else:
                    known = n >= self.min_baseline
                    if self.prediction_interval:
                        low, high = self._t_band_array(mean, sn, n, tables, known)
                    else:
                        low, high = self._band_array(mean, sd_before, known)
                    ready = past_start & known
                    anomaly = ready & outside(v, low, high)
                lower[t] = low
                upper[t] = high
                codes[t] = np.where(missing, MISSING, np.where(ready, anomaly, INSUFFICIENT))
                keep = finite & ~(anomaly & self.ignore_anomalies)
                mean = np.where(keep, m1, mean)
                sn = np.where(keep, s1, sn)
                n = np.where(finite if self.include_current_point else keep, n1, n)
        codes_g = codes.T
        return MatrixResult(lower.T, upper.T, codes_g, rule_confidence(codes_g), x)

    def _band_array(
        self, mean: FloatMatrix, sd: FloatMatrix, known: NDArray[np.bool_]
    ) -> tuple[FloatMatrix, FloatMatrix]:
        """The band per row; NaN where the statistics are not ``known`` yet."""
        lf, uf = self.lower_deviation_factor, self.upper_deviation_factor
        low = np.full(mean.shape, -np.inf) if lf is None else mean - lf * sd
        high = np.full(mean.shape, np.inf) if uf is None else mean + uf * sd
        return np.where(known, low, np.nan), np.where(known, high, np.nan)

    def _t_band_array(
        self,
        mean: FloatMatrix,
        sn: FloatMatrix,
        n: FloatMatrix,
        tables: tuple[FloatMatrix | None, FloatMatrix | None],
        known: NDArray[np.bool_],
    ) -> tuple[FloatMatrix, FloatMatrix]:
        """The prediction-interval band per row, with the operations of :meth:`_step`."""
        root = np.sqrt(sn)
        size = n.astype(np.int64)
        lw, uw = tables
        low = (
            np.full(mean.shape, -np.inf)
            if lw is None
            else mean - np.where(sn > 0, lw[size] * root, 0.0)
        )
        high = (
            np.full(mean.shape, np.inf)
            if uw is None
            else mean + np.where(sn > 0, uw[size] * root, 0.0)
        )
        return np.where(known, low, np.nan), np.where(known, high, np.nan)

    def insufficient_reason(self, cell: Cell) -> str:
        few = f"fewer than {self.min_baseline} earlier values to estimate a spread."
        if not self.include_current_point and cell.position < self.min_baseline:
            return few
        if cell.position < cell.length * self.ignore_start_percentage:
            return (
                f"index {cell.position} is within the first {self.ignore_start_percentage:.0%}"
                f" of the series (ignore_start_percentage={self.ignore_start_percentage})."
            )
        return few

"""Additive Holt-Winters (Deequ's HoltWinters strategy): level, trend and a seasonal cycle."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import ArrayLike

from detectors._params import check_int, check_number
from detectors.base import Detector, Interval, as_values, resolve_interval
from detectors.errors import InvalidParameterError
from detectors.evaluation import (
    INSUFFICIENT,
    MISSING,
    Evaluation,
    fmt,
    judge,
    missing_detail,
    rule_confidence,
)

if TYPE_CHECKING:
    from detectors.evaluation import FloatArray

# Deequ's band: 1.96 standard deviations of the absolute one-step residuals.
DEEQU_Z = 1.96
START = (0.3, 0.1, 0.1)  # Deequ's initial alpha, beta, gamma
FORECASTS = ("one_step", "from_start")


def one_step_forecasts(
    series: list[float],
    period: int,
    alpha: float,
    beta: float,
    gamma: float,
    band: float = math.inf,
    screen_from: int = 0,
) -> list[float]:
    """Forecasts ``f[0..n]`` of additive Holt-Winters (fpp2's form), initialised from the first
    two periods as Deequ does. A NaN observation moves the state as if the forecast came true,
    and so does one from ``screen_from`` on that is farther than ``band`` from its forecast.
    """
    first, second = series[:period], series[period : 2 * period]
    level = float(np.nanmean(first))
    trend = (float(np.nanmean(second)) - level) / period
    season = [0.0 if math.isnan(v) else v - level for v in first]
    out = []
    f = level + trend + season[0]
    for t, observed in enumerate(series):
        out.append(f)
        y = (
            f
            if math.isnan(observed) or (t >= screen_from and abs(observed - f) > band)
            else observed
        )
        new_level = alpha * (y - season[t]) + (1 - alpha) * (level + trend)
        season.append(gamma * (y - level - trend) + (1 - gamma) * season[t])
        trend = beta * (new_level - level) + (1 - beta) * trend
        level = new_level
        f = level + trend + season[t + 1]
    out.append(f)
    return out


def _squared_error(params: np.ndarray, series: list[float], period: int) -> float:
    alpha, beta, gamma = params.tolist()
    f = one_step_forecasts(series, period, alpha, beta, gamma)
    return sum((y - p) ** 2 for y, p in zip(series, f, strict=False) if not math.isnan(y))


@dataclass(frozen=True)
class HoltWinters(Detector):
    """Flag points outside a band around the Holt-Winters one-step forecast; smoothing
    parameters in [0, 1] are fitted by L-BFGS-B on the squared one-step errors of the history
    before the interval (as Deequ).

    The band's half-width comes from the one-step residuals of that history. By default it is
    Deequ's: 1.96 standard deviations of the *absolute* residuals. That is not a 95% band: for
    normal residuals it is about 1.2 residual standard deviations, so about one clean point in
    five is flagged (23 false alerts per 100 checks on the benchmark's clean weekly series,
    ``docs/backtesting.md``). ``deviation_factor=k`` makes it ``k`` standard deviations of the
    residuals (their root mean square), like ``OnlineNormal``'s factors: on the same series
    ``3`` raises 3.8 false alerts per 100 checks and ``4`` 2.0, for 98% and 93% of the
    incidents (Deequ's band: 100%).

    Needs two full periods (``2 * period`` points) of history; earlier points of the interval
    have ``insufficient history``. Values of any finite magnitude are judged: beyond
    ``SAFE_MAGNITUDE`` the fit runs on the values divided by a power of two (squared errors of
    values near 1e154 overflow floats), and the band is scaled back.

    `forecast` says how the points of a longer interval are forecast (a one-point interval, how
    checks and scans judge the newest point, is the same either way, and is Deequ's):

    * ``"one_step"`` (default): each interval point from the state updated with the observed
      points before it (parameters fixed), so forecasts do not drift over a long interval. An
      interval point flagged as anomalous updates the state as if its forecast had come true,
      so one spike does not drag the next forecasts along.
    * ``"from_start"``: every interval point from the history before the interval alone (an
      h-step-ahead forecast, no interval value is used), as Deequ does. With it, Deequ's own
      test cases give Deequ's results (``tests/detectors/test_holt_winters.py``): for example
      7 anomalies in the last year of its monthly milk series, where ``"one_step"`` finds 3.

    Examples
    --------
    >>> week = [10.0, 12.0, 14.0, 13.0, 11.0, 5.0, 4.0]
    >>> noise = [0.3, -0.2, 0.1, 0.4, -0.3, 0.2, -0.1, 0.0, 0.2, -0.4]
    >>> history = [w + noise[i % 10] for i, w in enumerate(week * 4)]
    >>> series = history + [13.0, 12.0]  # a Monday at Tuesday's level, then a normal Tuesday
    >>> [a.index for a in HoltWinters(period=7).detect(series, interval=(28, 30))]
    [28]
    >>> [a.index for a in HoltWinters(period=7, deviation_factor=3).detect(series, (28, 30))]
    [28]
    >>> [a.index for a in HoltWinters(7, forecast="from_start").detect(series, (28, 30))]
    [28]
    """

    period: int
    deviation_factor: float | None = None
    forecast: str = "one_step"

    def __post_init__(self) -> None:
        check_int("period", self.period, 2)
        if self.forecast not in FORECASTS:
            raise InvalidParameterError(
                "forecast", f"must be one of {list(FORECASTS)}", self.forecast
            )
        factor = check_number("deviation_factor", self.deviation_factor)
        if factor is not None and not 0.0 < factor < math.inf:
            raise InvalidParameterError(
                "deviation_factor",
                "must be a finite number > 0, or None (Deequ's band)",
                self.deviation_factor,
            )

    def _half_width(self, residuals: FloatArray) -> float:
        """The band's half-width from the one-step residuals of the history (NaN skipped)."""
        if self.deviation_factor is None:
            return DEEQU_Z * float(np.nanstd(np.abs(residuals), ddof=1))
        return self.deviation_factor * math.sqrt(float(np.nanmean(np.square(residuals))))

    def evaluate(self, values: ArrayLike, interval: Interval | None = None) -> Evaluation:
        x = as_values(values)
        start, end = resolve_interval(interval, len(x))
        value = x[start:end]
        lower = np.full(len(value), np.nan)
        upper = np.full(len(value), np.nan)
        centre = np.full(len(value), np.nan)
        needed = 2 * self.period
        train_end = max(start, needed)
        finite = np.isfinite(x)
        usable = int(finite[:train_end].sum())
        # The initial state needs a value in each of the first two periods.
        seeded = finite[: self.period].any() and finite[self.period : needed].any()
        failure = ""
        if end > train_end and usable >= needed and seeded:
            scale = _scale(x[:end][finite[:end]])
            try:
                band = self._band(np.where(finite[:end], x[:end] / scale, np.nan), train_end)
            except (OverflowError, FloatingPointError) as exc:  # not seen once values are scaled
                band, failure = None, str(exc)
            if band is not None and not np.isfinite(band).all():
                band, failure = None, "a forecast or the band is not a finite number"
            if band is not None:
                tested = slice(train_end - start, end - start)
                # A power of two: scaling back is exact.
                centre[tested], width = band[:-1] * scale, band[-1] * scale
                lower[tested] = centre[tested] - width
                upper[tested] = centre[tested] + width
        codes = judge(value, lower, upper, ~np.isnan(centre))
        name = self.name

        def describe(k: int) -> str:
            if codes[k] == MISSING:
                return missing_detail(name)
            if codes[k] == INSUFFICIENT and failure:
                return (
                    f"[{name}] No forecast for index {start + k}: fitting the history failed "
                    f"({failure}); its values reach {fmt(float(np.abs(x[finite]).max()))} in "
                    "magnitude. Check the history for wrong values, or use another detector."
                )
            if codes[k] == INSUFFICIENT:
                return (
                    f"[{name}] Insufficient history: needs two full periods ({needed} finite"
                    f" points) before index {start + k}, has {int(finite[: start + k].sum())}."
                )
            return (
                f"[{name}] Forecasted {fmt(centre[k])} for observed value {fmt(value[k])},"
                f" not in bounds [{fmt(lower[k])}, {fmt(upper[k])}]."
            )

        return Evaluation.build(
            name, start, value, lower, upper, codes, rule_confidence(codes), describe
        )

    def _band(self, scaled: FloatArray, train_end: int) -> FloatArray:
        """The forecasts of ``scaled[train_end:]`` and, last, the band's half-width."""
        from scipy.optimize import minimize  # lazily: importing scipy.optimize is slow

        clean = scaled.tolist()
        training = clean[:train_end]
        fit = minimize(
            _squared_error,
            np.array(START),
            args=(training, self.period),
            method="L-BFGS-B",
            bounds=[(0.0, 1.0)] * 3,
        )
        alpha, beta, gamma = fit.x.tolist()
        fitted = one_step_forecasts(training, self.period, alpha, beta, gamma)
        residuals = np.array(training) - fitted[:train_end]
        width = self._half_width(residuals)
        if self.forecast == "from_start":
            # Interval values unseen: the recursion runs on its own forecasts (Deequ).
            clean = [*training, *[math.nan] * (len(clean) - train_end)]
        screened = one_step_forecasts(clean, self.period, alpha, beta, gamma, width, train_end)
        return np.array([*screened[train_end : len(clean)], width], dtype=np.float64)


SAFE_MAGNITUDE = (1e-100, 1e100)
"""Values beyond these magnitudes are fitted scaled (their squared errors would overflow or
underflow float arithmetic); the forecasts and the band are scaled back."""


def _scale(finite: FloatArray) -> float:
    """A power of two to divide the values by so that the largest is near 1, or 1 when their
    magnitude is safe (ordinary values are fitted exactly as they are)."""
    largest = float(np.abs(finite).max()) if len(finite) else 0.0
    if largest == 0.0 or SAFE_MAGNITUDE[0] <= largest <= SAFE_MAGNITUDE[1]:
        return 1.0
    return math.ldexp(1.0, math.frexp(largest)[1] - 1)  # largest / scale in [1, 2)

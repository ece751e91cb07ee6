"""Seasonal ARIMA one-step-ahead prediction intervals (statsmodels SARIMAX).

The future work of Schelter et al., PVLDB 2018, §8.
"""

from __future__ import annotations

import functools
import math
import warnings
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass
from statistics import NormalDist
from typing import Any, ClassVar

import numpy as np
from numpy.typing import ArrayLike

from detectors._params import check_int, check_int_tuple, check_open_fraction
from detectors.base import Detector, Interval, as_values, resolve_interval
from detectors.errors import InvalidParameterError
from detectors.evaluation import (
    ANOMALY,
    INSUFFICIENT,
    MISSING,
    Evaluation,
    FloatArray,
    fmt,
    judge,
    missing_detail,
)
from detectors.seasonality import infer_period


@functools.cache
def _blas_threads() -> Any:
    """A controller of the BLAS thread pools, or None without threadpoolctl."""
    try:
        from threadpoolctl import ThreadpoolController
    except ImportError:
        return None
    return ThreadpoolController()


def single_threaded_blas() -> AbstractContextManager[object]:
    """OpenBLAS threads cost far more than they save on SARIMAX's tiny matrices (a fit took
    4-7x longer with 2 threads on 2 cores), so fits run with one when threadpoolctl is
    installed."""
    controller = _blas_threads()
    return nullcontext() if controller is None else controller.limit(limits=1, user_api="blas")


class _FallbackError(Exception):
    """The model cannot be trusted for this series; the message says why."""


@dataclass(frozen=True)
class SeasonalArima(Detector):
    """Flag points outside the one-step-ahead ``1 - alpha`` prediction interval of a seasonal
    ARIMA model fitted (once) on the history before the interval.

    The model's state is extended through the interval without refitting, so each point is
    predicted from the points before it. The default is the "airline" model
    ``(0, 1, 1) x (0, 1, 1, period)``, robust for level shifts and trends. ``period`` is taken
    from ``seasonal_order[3]``, else ``period``, else inferred from the history
    (:func:`~detectors.seasonality.infer_period`); without one the model has no seasonal part.
    Only the last ``max_history`` points are fitted, which keeps a fit around 40 ms.

    It never fails a check: with fewer than 8 finite history points the result is
    ``insufficient history``; a history too short for the period drops the seasonal part; a
    constant history, a fit that fails or does not converge, or non-finite predictions fall
    back to mean +- z * sd of the history. ``detail`` says which happened, on every point.

    ``confidence`` is the two-sided normal probability mass within the point's deviation.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> week = np.array([10.0, 12.0, 14.0, 13.0, 11.0, 5.0, 4.0])
    >>> series = np.tile(week, 10) + rng.normal(0, 0.3, 70)
    >>> series[-1] += 4
    >>> detector = SeasonalArima(seasonal_order=(0, 1, 1, 7))
    >>> [a.index for a in detector.detect(series, interval=(69, 70))]
    [69]
    >>> str(detector.evaluate(series, interval=(68, 69)).status[0])
    'ok'
    """

    order: tuple[int, ...] = (0, 1, 1)
    seasonal_order: tuple[int, ...] = (0, 1, 1)
    alpha: float = 0.01
    period: int | None = None
    max_history: int | None = 200

    min_history: ClassVar[int] = 8

    def __post_init__(self) -> None:
        object.__setattr__(self, "order", check_int_tuple("order", self.order, (3,)))
        seasonal = check_int_tuple("seasonal_order", self.seasonal_order, (3, 4))
        object.__setattr__(self, "seasonal_order", seasonal)
        check_open_fraction("alpha", self.alpha)
        check_int("period", self.period, 2, optional=True)
        check_int("max_history", self.max_history, self.min_history, optional=True)
        if len(seasonal) == 4 and self.period is not None and seasonal[3] != self.period:
            raise InvalidParameterError(
                "period",
                f"must match seasonal_order[3] ({seasonal[3]}) when both are given",
                self.period,
            )

    def evaluate(self, values: ArrayLike, interval: Interval | None = None) -> Evaluation:
        x = as_values(values)
        start, end = resolve_interval(interval, len(x))
        first = 0 if self.max_history is None else max(0, start - self.max_history)
        history = np.where(np.isfinite(x[first:start]), x[first:start], np.nan)
        value = x[start:end]
        centre = np.full(len(value), np.nan)
        se = np.full(len(value), np.nan)
        finite = history[~np.isnan(history)]
        note = label = ""
        if len(finite) >= self.min_history and len(value):
            future = np.where(np.isfinite(value), value, np.nan)
            try:
                centre, se, label, note = self._forecast(history, finite, future)
            except _FallbackError as reason:
                centre[:] = finite.mean()
                se[:] = finite.std(ddof=1)
                label, note = (
                    "a normal band of the history",
                    f" Fell back to mean +- z * sd: {reason}.",
                )
        z = NormalDist().inv_cdf(1 - self.alpha / 2)
        lower, upper = centre - z * se, centre + z * se
        codes = judge(value, lower, upper, ~np.isnan(centre))
        with np.errstate(divide="ignore", invalid="ignore"):
            deviation = np.abs(value - centre) / se
        # P(|N(0, 1)| < deviation): how unusual the point is under the model.
        confidence = np.array(
            [math.erf(d / math.sqrt(2)) for d in np.nan_to_num(deviation).tolist()]
        )
        confidence[codes > ANOMALY] = np.nan
        name, level = self.name, f"{(1 - self.alpha) * 100:g}%"

        def describe(k: int) -> str:
            if codes[k] == MISSING:
                return missing_detail(name) + note
            if codes[k] == INSUFFICIENT:
                return (
                    f"[{name}] Insufficient history: {len(finite)} finite points before index"
                    f" {start}, needs {self.min_history}."
                )
            verdict = "outside" if codes[k] else "inside"
            return (
                f"[{name}] Value {fmt(value[k])} is {verdict} the {level} one-step prediction"
                f" interval [{fmt(lower[k])}, {fmt(upper[k])}] (forecast {fmt(centre[k])})"
                f" of {label}.{note}"
            )

        return Evaluation.build(
            name, start, value, lower, upper, codes, confidence, describe, describe_ok=bool(note)
        )

    def _orders(self, finite: FloatArray) -> tuple[tuple[int, int, int, int], str]:
        """The seasonal order to fit, and a note when the seasonal part had to go."""
        seasonal = self.seasonal_order
        if not any(seasonal[:3]):
            return (0, 0, 0, 0), ""
        period = seasonal[3] if len(seasonal) == 4 else self.period or infer_period(finite)
        if period is None:
            return (0, 0, 0, 0), ""
        _, d, _ = self.order
        needed = d + (seasonal[1] + 2) * period
        if len(finite) < needed:
            note = (
                f" History of {len(finite)} points is too short for period {period}"
                f" (needs {needed}): fitted without seasonality."
            )
            return (0, 0, 0, 0), note
        return (seasonal[0], seasonal[1], seasonal[2], period), ""

    def _forecast(
        self, history: FloatArray, finite: FloatArray, future: FloatArray
    ) -> tuple[FloatArray, FloatArray, str, str]:
        """One-step-ahead means and standard errors for ``future``, the model's label and a
        note; raises ``_FallbackError`` when the model cannot be trusted."""
        from statsmodels.tools.sm_exceptions import ConvergenceWarning
        from statsmodels.tsa.statespace.sarimax import SARIMAX

        if np.ptp(finite) == 0:
            raise _FallbackError("the history is constant")
        seasonal, note = self._orders(finite)
        order = tuple(self.order)
        label = f"SARIMA{order}x{seasonal}".replace(" ", "")
        try:
            with warnings.catch_warnings(), single_threaded_blas():
                warnings.simplefilter("ignore")
                warnings.simplefilter("error", ConvergenceWarning)
                # Concentrating the scale out makes the fit about twice as fast; the plain
                # model then filters with the fitted scale, because extending a concentrated
                # model re-estimates the scale from the new points alone.
                fitted = SARIMAX(
                    history, order=order, seasonal_order=seasonal, concentrate_scale=True
                ).fit(disp=False)
                if not fitted.mle_retvals.get("converged", True):
                    raise _FallbackError("SARIMAX did not converge")
                params = np.r_[fitted.params, fitted.scale]
                filtered = SARIMAX(history, order=order, seasonal_order=seasonal).filter(params)
                prediction = filtered.extend(future).get_prediction()
                centre = np.asarray(prediction.predicted_mean, dtype=np.float64)
                se = np.asarray(prediction.se_mean, dtype=np.float64)
        except _FallbackError:
            raise
        except ConvergenceWarning as warning:
            raise _FallbackError(f"SARIMAX did not converge ({warning})") from warning
        except Exception as error:  # any numerical failure must become a fallback, not a crash
            raise _FallbackError(f"SARIMAX failed ({type(error).__name__}: {error})") from error
        if not (np.isfinite(centre).all() and np.isfinite(se).all()):
            raise _FallbackError("SARIMAX gave non-finite predictions")
        return centre, se, label, note

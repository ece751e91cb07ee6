"""Guess the period of a series from its autocorrelation."""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from detectors.base import as_values
from detectors.evaluation import FloatArray

MIN_POINTS = 8
# Below this autocorrelation a "period" is as likely noise as a cycle.
MIN_AUTOCORRELATION = 0.3
# A random walk's detrended autocorrelation has chance bumps; a real cycle also shows in the
# differenced series, which a random walk's does not.
MIN_DIFFERENCED_AUTOCORRELATION = 0.1
NEAR_BEST = 0.8


def _acf(x: FloatArray, max_lag: int) -> FloatArray | None:
    centred = x - x.mean()
    energy = float(centred @ centred)
    if energy == 0.0:
        return None
    full = np.correlate(centred, centred, mode="full")
    return full[len(x) - 1 : len(x) + max_lag + 1] / energy


def infer_period(values: ArrayLike) -> int | None:
    """The shortest clearly seasonal lag (>= 2, seen at least three times), or ``None``.

    A lag qualifies when it is a local peak of the autocorrelation of the linearly detrended
    series, at least 0.3 there and positively autocorrelated in the differenced series. Among
    qualifying lags within 80% of the best, the shortest wins: multiples of the period peak
    about as high and noise decides which is highest. NaN and infinite values are dropped.

    Examples
    --------
    >>> week = [10.0, 12.0, 14.0, 13.0, 11.0, 5.0, 4.0]
    >>> infer_period(week * 8)
    7
    >>> infer_period([1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0]) is None
    True
    """
    x = as_values(values)
    x = x[np.isfinite(x)]
    max_lag = len(x) // 3
    if len(x) < MIN_POINTS or max_lag < 2:
        return None
    t = np.arange(len(x), dtype=np.float64)
    with np.errstate(over="ignore", invalid="ignore"):  # extreme values: no period, no noise
        detrended = x - np.polyval(np.polyfit(t, x, 1), t)
        acf = _acf(detrended, max_lag)
        differenced = _acf(np.diff(x), max_lag)
    if acf is None or differenced is None or not np.isfinite(acf).all():
        return None
    lags = np.arange(2, max_lag + 1)
    after = np.minimum(lags + 1, max_lag)
    qualifies = (
        (acf[lags] > acf[lags - 1])
        & (acf[lags] >= acf[after])
        & (differenced[lags] >= MIN_DIFFERENCED_AUTOCORRELATION)
    )
    peaks = lags[qualifies]
    if len(peaks) == 0 or acf[peaks].max() < MIN_AUTOCORRELATION:
        return None
    return int(peaks[acf[peaks] >= NEAR_BEST * acf[peaks].max()][0])

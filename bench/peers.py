"""The peers' anomaly rules, ported from their public documentation and code defaults (the rules,
not their code), as detectors the backtest can replay walk-forward.

* ``ZScore``: Elementary's anomaly tests (``elementary-data/dbt-data-reliability``,
  ``get_anomaly_scores_query``): the training average and sample standard deviation over the
  training period (14 days, ``training_period``/``days_back``) ordered by bucket, *rows between
  unbounded preceding and current row*, so the judged day is part of its own training set;
  anomalous when ``|value - avg| / stddev > anomaly_sensitivity`` (3); a zero deviation scores
  0; at least ``min_training_set_size`` (7) values. ``include_current=False`` is the plain
  rolling z-score of the 14 days before.
* ``DQOpsPercentile``: DQOps' ``percentile/anomaly_stationary_percentile_moving_average_30_days``
  rule (``dqops/dqo``, ``home/rules``): the previous readouts of a 30-day window (at least 10);
  when all are positive they become signed multiples of their median (``x / m - 1`` above it,
  ``1 - m / x`` below); the readouts above the median (of the multiples) give the upper
  bound, those below the lower: ``median + t_5.ppf(1 - tail) * tstd`` (Student-t with 5
  degrees of freedom, ``tail = anomaly_percent / 100 / 2``), mapped back to values. A constant
  history makes the band one value. Warning at ``anomaly_percent`` 1.0, fatal at 0.1.
* ``SodaProphet``: Soda's anomaly detection v2 (``sodadata/soda-core``,
  ``anomaly_detection_v2/models/prophet_model.py`` and ``ProphetDefaultHyperparameters``):
  Prophet with multiplicative seasonality, ``seasonality_prior_scale=0.01``,
  ``changepoint_prior_scale=0.001``, ``interval_width=0.999``, 1000 uncertainty samples, seed
  0, fitted on up to 1000 points before the judged one (more than 4 needed); the band is widened
  to at least ``yhat * (1 +- 0.001)`` (``min_confidence_interval_ratio``), rounded outwards for
  integer metrics; a value outside it is a warning, beyond a further 10% of the band's width
  (``warning_ratio``) a failure.

Deequ's exact ``OnlineNormal`` and the rolling median/MAD are the product's own
``OnlineNormal(include_current_point=True)`` and ``RobustMAD(window=...)``.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field, replace
from functools import lru_cache
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats

from detectors import Evaluation
from detectors.base import Detector, as_values, resolve_interval
from detectors.evaluation import FloatArray, band_detail, judge, rule_confidence


class _WalkingRule(Detector):
    """A rule that judges one point on the history before it (and, for some, on the point
    itself); ``walk_forward`` is the backtest's path, ``evaluate`` the same per interval."""

    def band(self, history: FloatArray, value: float, at: int) -> tuple[float, float] | None:
        raise NotImplementedError

    def walk_forward(self, values: FloatArray, start: int, end: int, baseline: Any) -> Evaluation:
        usable = np.isfinite(values) if baseline is None else np.isfinite(values) & baseline
        size = end - start
        lower, upper = np.full(size, np.nan), np.full(size, np.nan)
        ready = np.zeros(size, dtype=bool)
        for k, i in enumerate(range(start, end)):
            found = self.band(values[:i][usable[:i]], float(values[i]), i)
            if found is not None:
                lower[k], upper[k] = found
                ready[k] = True
        # A NaN bound (a one-sided sample too small for a deviation) does not flag.
        lower, upper = (
            np.where(np.isnan(lower) & ready, -np.inf, lower),
            np.where(np.isnan(upper) & ready, np.inf, upper),
        )
        value = values[start:end]
        codes = judge(value, lower, upper, ready)
        name = self.name
        return Evaluation.build(
            name,
            start,
            value,
            lower,
            upper,
            codes,
            rule_confidence(codes),
            lambda k: band_detail(name, value[k], lower[k], upper[k]),
        )

    def evaluate(self, values: Any, interval: Any = None) -> Evaluation:
        x = as_values(values)
        start, end = resolve_interval(interval, len(x))
        return self.walk_forward(x, start, end, None)


@dataclass(frozen=True)
class ZScore(_WalkingRule):
    """Elementary's z-score test (``include_current=True``) or a plain rolling z-score.

    >>> series = [10.0, 11, 9, 10, 11, 10, 9, 10, 11, 10, 9, 10, 30]
    >>> [a.index for a in ZScore().detect(series)]
    [12]
    >>> [a.index for a in ZScore().detect(series[:9] + [30.0])]  # z of n points <= (n-1)/sqrt(n)
    []
    >>> [a.index for a in ZScore(include_current=False).detect(series[:9] + [30.0])]
    [9]
    """

    sensitivity: float = 3.0
    window: int = 14
    include_current: bool = True
    min_training_set_size: int = 7

    def band(self, history: FloatArray, value: float, at: int) -> tuple[float, float] | None:
        recent = history[-(self.window - 1) :] if self.include_current else history[-self.window :]
        sample = np.append(recent, value) if self.include_current else recent
        if len(sample) < self.min_training_set_size or not np.isfinite(value):
            return None
        mean, sd = float(sample.mean()), float(sample.std(ddof=1))
        if sd == 0.0:
            return (-np.inf, np.inf) if self.include_current else (mean, mean)
        return mean - self.sensitivity * sd, mean + self.sensitivity * sd


@dataclass(frozen=True)
class DQOpsPercentile(_WalkingRule):
    """DQOps' stationary percentile rule over a moving window.

    >>> series = [100.0, 102, 98, 101, 99, 103, 97, 100, 102, 99, 101, 160]
    >>> [a.index for a in DQOpsPercentile().detect(series)]
    [11]
    """

    anomaly_percent: float = 1.0
    window: int = 30
    min_readouts: int = 10
    degrees_of_freedom: float = 5.0

    def band(self, history: FloatArray, value: float, at: int) -> tuple[float, float] | None:
        readouts = history[-self.window :]
        if len(readouts) < self.min_readouts:
            return None
        median = float(np.median(readouts))
        if float(np.std(readouts)) == 0.0:
            return median, median
        tail = self.anomaly_percent / 100.0 / 2.0
        if np.all(readouts > 0):
            multiples = np.where(
                readouts >= median, readouts / median - 1.0, 1.0 - median / readouts
            )
            high, low = self._halves(multiples, 0.0, tail)
            return median * -1.0 / (low - 1.0), (high + 1.0) * median
        return self._halves(readouts, median, tail)[::-1]

    def _halves(self, values: FloatArray, centre: float, tail: float) -> tuple[float, float]:
        """(upper, lower) bounds from the values above and below ``centre``."""
        t = _t_quantile(1.0 - tail, self.degrees_of_freedom)
        out = []
        for part, sign in ((values[values >= centre], 1.0), (values[values <= centre], -1.0)):
            middle = float(np.median(part))
            sd = float(np.std(part, ddof=1)) if len(part) > 1 else np.nan
            out.append(middle if sd == 0.0 else middle + sign * t * sd)
        return out[0], out[1]


@lru_cache(maxsize=256)
def _t_quantile(p: float, df: float) -> float:
    return float(stats.t.ppf(p, df))


_LOG_QUIET = False


def _quiet() -> None:
    global _LOG_QUIET
    if not _LOG_QUIET:
        for name in ("cmdstanpy", "prophet", "prophet.plot"):
            logging.getLogger(name).setLevel(logging.ERROR)
        _LOG_QUIET = True


_FITS: dict[tuple[bytes, int], tuple[float, FloatArray]] = {}


@dataclass(frozen=True)
class SodaProphet(_WalkingRule):
    """Soda's Prophet anomaly detection; ``level`` ``"warn"`` or ``"fail"``. One fit per judged
    point, shared by every width and level (the predictive samples are drawn once, seed 0)."""

    interval_width: float = 0.999
    level: str = "warn"
    times: Any = field(default=None, compare=False, repr=False)

    MIN_POINTS = 4
    WINDOW = 1000

    def at_times(self, times: Any) -> SodaProphet:
        return replace(self, times=pd.DatetimeIndex(times))

    def band(self, history: FloatArray, value: float, at: int) -> tuple[float, float] | None:
        if len(history) <= self.MIN_POINTS or self.times is None:
            return None
        yhat, samples = self._fit(history[-self.WINDOW :], at)
        tail = 100 * (1 - self.interval_width) / 2
        lower, upper = np.percentile(samples, [tail, 100 - tail])
        lower, upper = min(lower, yhat * (1 - 0.001)), max(upper, yhat * (1 + 0.001))
        if np.all(np.mod(history, 1.0) == 0) and float(value).is_integer():
            lower, upper = np.floor(lower), np.ceil(upper)
        if self.level == "fail":
            buffer = (upper - lower) * 0.1
            lower, upper = lower - buffer, upper + buffer
        return float(lower), float(upper)

    def _fit(self, history: FloatArray, at: int) -> tuple[float, FloatArray]:
        key = (history.tobytes(), at)
        if key not in _FITS:
            if len(_FITS) > 50_000:
                _FITS.clear()
            _FITS[key] = _prophet(self.times[at - len(history) : at + 1], history)
        return _FITS[key]


def _prophet(times: pd.DatetimeIndex, history: FloatArray) -> tuple[float, FloatArray]:
    """Soda's model fitted on ``history`` (at ``times[:-1]``): the forecast of ``times[-1]`` and
    its 1000 predictive samples."""
    from prophet import Prophet

    _quiet()

    days = times.tz_convert(None) if times.tz is not None else times
    frame = pd.DataFrame({"ds": days[:-1], "y": history})
    model = Prophet(
        seasonality_mode="multiplicative",
        seasonality_prior_scale=0.01,
        changepoint_prior_scale=0.001,
        interval_width=0.999,
        uncertainty_samples=1000,
    )
    np.random.seed(0)
    model.fit(frame)
    future = pd.DataFrame({"ds": days[-1:]})
    samples = model.predictive_samples(future)["yhat"][0]
    model.uncertainty_samples = 0
    yhat = float(model.predict(future)["yhat"].iloc[0])
    return yhat, np.asarray(samples, dtype=np.float64)

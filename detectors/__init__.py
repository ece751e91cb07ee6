"""Anomaly detectors on metric histories: pure numpy/pandas/statsmodels, no Spark, no DuckDB.

The core is Deequ's index-based contract, ``detector.detect(values, interval=(start, end))``;
on top sit a time-aware layer (:func:`detect_series`, :func:`is_newest_anomalous`) and
per-group detection over a long frame (:func:`detect_frame`), vectorised across groups for
the detectors that allow it. ``evaluate`` gives every point's verdict and expected band;
:func:`walk_forward` the verdict each point got when it was the newest (what a backtest replays),
and :class:`AlertFatigue` turns any detector's anomalies into fewer alerts.

Missing and infinite values, everywhere: a NaN value is ``missing`` (never flagged) and left
out of every statistic and fit; a point whose change needs a NaN neighbour has ``insufficient
history``. An infinite value is tested against the band (so flagged unless that side is
unbounded) but never learned from. The time-aware layer and ``detect_frame`` drop missing
values before indexing, so a change is measured against the previous value present.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from detectors.lazy_exports import lazy_exports

if TYPE_CHECKING:
    from detectors.adaptive import Adaptive
    from detectors.anomaly import Anomaly, Status
    from detectors.arima import SeasonalArima
    from detectors.base import (
        Detector,
        Interval,
        SupportsDetect,
        TimeAware,
        as_detector,
        for_times,
    )
    from detectors.batch_normal import BatchNormal
    from detectors.budget import AlertBudget, BudgetOutcome
    from detectors.change import AbsoluteChange, RelativeRateOfChange
    from detectors.compose import AllOf, AnyOf, KOfLastN
    from detectors.errors import (
        DetectorError,
        DetectorLoadError,
        InvalidParameterError,
        InvalidTimeError,
    )
    from detectors.evaluation import Evaluation
    from detectors.fatigue import AlertFatigue
    from detectors.forward import walk_forward
    from detectors.frame import detect_frame
    from detectors.holidays import Holidays
    from detectors.holt_winters import HoltWinters
    from detectors.online_normal import OnlineNormal
    from detectors.registry import detector_factory, load_detector
    from detectors.robust import RobustMAD
    from detectors.seasonality import infer_period
    from detectors.series import Verdict, detect_series, is_newest_anomalous
    from detectors.spark import detect_frame_spark
    from detectors.threshold import SimpleThreshold
    from detectors.vectorised import Cell, MatrixDetector, MatrixResult
else:
    __getattr__, __dir__ = lazy_exports(__name__)

__all__ = [
    "AbsoluteChange",
    "Adaptive",
    "AlertBudget",
    "AlertFatigue",
    "AllOf",
    "Anomaly",
    "AnyOf",
    "BatchNormal",
    "BudgetOutcome",
    "Cell",
    "Detector",
    "DetectorError",
    "DetectorLoadError",
    "Evaluation",
    "Holidays",
    "HoltWinters",
    "Interval",
    "InvalidParameterError",
    "InvalidTimeError",
    "KOfLastN",
    "MatrixDetector",
    "MatrixResult",
    "OnlineNormal",
    "RelativeRateOfChange",
    "RobustMAD",
    "SeasonalArima",
    "SimpleThreshold",
    "Status",
    "SupportsDetect",
    "TimeAware",
    "Verdict",
    "as_detector",
    "detect_frame",
    "detect_frame_spark",
    "detect_series",
    "detector_factory",
    "for_times",
    "infer_period",
    "is_newest_anomalous",
    "load_detector",
    "walk_forward",
]

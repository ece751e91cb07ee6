"""One-sided judging: any detector's band, but only values above it are anomalies."""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from detectors import Detector
from detectors.base import Interval, as_detector
from detectors.evaluation import ANOMALY, OK, Evaluation


class UpperOnly(Detector):
    """Judges with `detector` and keeps only the anomalies above its band: for freshness, data
    fresher than usual is good news. The band shown has no lower edge.

    Examples
    --------
    >>> from detectors import SimpleThreshold
    >>> judged = UpperOnly(SimpleThreshold(1.0, 2.0)).evaluate([0.5, 1.5, 3.0])
    >>> [str(s) for s in judged.status], judged.lower.tolist()
    (['ok', 'ok', 'anomaly'], [-inf, -inf, -inf])
    """

    def __init__(self, detector: object) -> None:
        self.detector = as_detector(detector)

    @property
    def name(self) -> str:
        return self.detector.name

    @property
    def interval_independent(self) -> bool:
        return self.detector.interval_independent

    def evaluate(self, values: ArrayLike, interval: Interval | None = None) -> Evaluation:
        judged = self.detector.evaluate(values, interval)
        with np.errstate(invalid="ignore"):
            low = (judged.codes == ANOMALY) & ~(judged.value > judged.upper)
            below = ~(judged.value >= judged.lower)  # a value under the band is no evidence
        changes: dict[str, Any] = {
            "codes": np.where(low, OK, judged.codes).astype(np.int8),
            "lower": np.where(np.isnan(judged.lower), np.nan, -math.inf),
            "confidence": np.where(low, 0.0, judged.confidence),
            "detail": tuple("" if flip else d for flip, d in zip(low, judged.detail, strict=True)),
        }
        p_values = getattr(judged, "p_value", None)  # calibrated detectors give one per point
        if p_values is not None:
            # A point under the band, or flagged inside it (a stale value), is no evidence of
            # a rise: it must not rank among the run's p-values either.
            changes["p_value"] = np.where((below | low) & ~np.isnan(p_values), 1.0, p_values)
        return replace(judged, **changes)

    def __repr__(self) -> str:
        return f"UpperOnly({self.detector!r})"

"""``Adaptive``: forecast, calibrate on the series' own errors, flag at a false-alarm rate."""

from __future__ import annotations

from detectors.adaptive.detector import Adaptive

__all__ = ["Adaptive"]

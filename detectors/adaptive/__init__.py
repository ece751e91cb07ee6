"""``Adaptive``: forecast, calibrate on the series' own errors, flag at a false-alarm rate."""

from __future__ import annotations

from typing import TYPE_CHECKING

from detectors.lazy_exports import lazy_exports

if TYPE_CHECKING:
    from detectors.adaptive.detector import Adaptive
else:
    __getattr__, __dir__ = lazy_exports(__name__)

__all__ = ["Adaptive"]

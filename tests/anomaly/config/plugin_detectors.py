"""User detectors named by import path in the config tests (``tests.anomaly.config.
plugin_detectors:Marking``): building one leaves a marker file, so a test sees whether
validating a config called it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from detectors import Anomaly


class Marking:
    """A detector (it has ``detect``) whose construction touches `marker`."""

    def __init__(self, marker: str, window: int = 7) -> None:
        if window < 1:
            raise ValueError(f"window must be at least 1, got {window}")
        Path(marker).touch()
        self.window = window

    def detect(self, values: Any, interval: tuple[int, int] | None = None) -> list[Anomaly]:
        return []


class NotADetector:
    """A class without ``detect`` whose construction touches `marker`."""

    def __init__(self, marker: str) -> None:
        Path(marker).touch()

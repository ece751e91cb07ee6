"""Streaming: metrics per event-time window on Structured Streaming DataFrames, exactly once.

Importing this package does not start Spark; starting a query does (see docs/streaming.md).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from detectors.lazy_exports import lazy_exports

if TYPE_CHECKING:
    from anomaly.streaming.accuracy_stream import StreamingAccuracy
    from anomaly.streaming.errors import StreamError, StreamStateError
    from anomaly.streaming.judging import LATE_ROWS, WINDOW_TAG, WindowResult
    from anomaly.streaming.metrics_stream import StreamingMetrics
    from anomaly.streaming.report import BatchReport
    from anomaly.streaming.stream import STREAM_TAG
    from anomaly.streaming.windows import Window
else:
    __getattr__, __dir__ = lazy_exports(__name__)

__all__ = [
    "LATE_ROWS",
    "STREAM_TAG",
    "WINDOW_TAG",
    "BatchReport",
    "StreamError",
    "StreamStateError",
    "StreamingAccuracy",
    "StreamingMetrics",
    "Window",
    "WindowResult",
]

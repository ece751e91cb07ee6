"""When a streaming query runs its micro-batches: now and then stop, or every interval."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from anomaly.config.durations import parse_duration
from anomaly.errors import ConfigurationError

AVAILABLE_NOW = "available_now"
Trigger = str | float | timedelta
"""``"available_now"`` (process what is there, in as many batches as the source's limits
allow, then stop) or a processing-time interval (``"30s"``, seconds, a timedelta)."""


def trigger_options(trigger: Trigger) -> dict[str, Any]:
    """Keyword arguments for ``DataStreamWriter.trigger``.

    >>> trigger_options("available_now"), trigger_options("1m30s")
    ({'availableNow': True}, {'processingTime': '90000 milliseconds'})
    >>> trigger_options("sometimes")
    Traceback (most recent call last):
    ...
    anomaly.errors.ConfigurationError: trigger: write available_now or an interval such as 30s ...
    """
    if trigger == AVAILABLE_NOW:
        return {"availableNow": True}
    try:
        interval = parse_duration(trigger)
    except ValueError as error:
        raise ConfigurationError(
            f"trigger: write {AVAILABLE_NOW} or an interval such as 30s ({error})"
        ) from None
    return {"processingTime": f"{round(interval.total_seconds() * 1000)} milliseconds"}

"""Durations in config files: ``90s``, ``15m``, ``1h30m``, ``1d``, or a number of seconds."""

from __future__ import annotations

import re
from datetime import timedelta
from typing import Annotated, Any

from pydantic import BeforeValidator

UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604800}
PART = re.compile(r"(\d+(?:\.\d+)?)([smhdw])")


def parse_duration(value: Any) -> timedelta:
    """A positive duration from text such as ``1h30m`` or from seconds.

    >>> parse_duration("1h30m"), parse_duration(45)
    (datetime.timedelta(seconds=5400), datetime.timedelta(seconds=45))
    >>> parse_duration("soon")
    Traceback (most recent call last):
    ...
    ValueError: invalid duration 'soon': write e.g. 90s, 15m, 1h30m, 1d, 2w or a number of seconds
    """
    text = value.replace(" ", "") if isinstance(value, str) else None
    if isinstance(value, timedelta):
        seconds = value.total_seconds()
    elif isinstance(value, int | float) and not isinstance(value, bool):
        seconds = float(value)
    elif text and re.fullmatch(r"\d+(?:\.\d+)?", text):
        seconds = float(text)
    elif text and re.fullmatch(r"(?:\d+(?:\.\d+)?[smhdw])+", text):
        seconds = sum(float(n) * UNITS[unit] for n, unit in PART.findall(text))
    else:
        raise ValueError(
            f"invalid duration {value!r}: write e.g. 90s, 15m, 1h30m, 1d, 2w or a number of seconds"
        )
    if seconds <= 0:
        raise ValueError(f"a duration must be positive, got {value!r}")
    return timedelta(seconds=seconds)


def format_duration(value: timedelta) -> str:
    """The shortest text for a duration.

    >>> format_duration(timedelta(seconds=5400)), format_duration(timedelta(seconds=2.5))
    ('1h30m', '2.5s')
    """
    seconds = value.total_seconds()
    parts = []
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60)):
        count, seconds = divmod(seconds, size)
        if count:
            parts.append(f"{int(count)}{unit}")
    if seconds or not parts:
        parts.append(f"{seconds:g}s")
    return "".join(parts)


Duration = Annotated[timedelta, BeforeValidator(parse_duration)]
"""A config field holding a duration."""

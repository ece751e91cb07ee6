"""Tumbling event-time windows in epoch milliseconds, aligned to the epoch (UTC), as Spark's
``window(time, "1 hour")`` aligns them."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from anomaly.config.durations import format_duration, parse_duration
from anomaly.errors import ConfigurationError

MS = 1000
Duration = timedelta | str | float
"""A duration as users give one: a timedelta, text such as ``"1h30m"``, or seconds."""


def millis(length: Duration, what: str, zero: bool = False) -> int:
    """A positive duration (``timedelta``, ``"1h"``, seconds) in whole milliseconds; with
    `zero`, zero is allowed too (a watermark without delay).

    >>> millis("1h30m", "window"), millis(timedelta(seconds=2), "watermark")
    (5400000, 2000)
    >>> millis("0s", "watermark", zero=True)
    0
    >>> millis("0s", "window")
    Traceback (most recent call last):
    ...
    anomaly.errors.ConfigurationError: window: a duration must be positive, got '0s'
    """
    if zero and _is_zero(length):
        return 0
    try:
        value = parse_duration(length)
    except ValueError as error:
        raise ConfigurationError(f"{what}: {error}") from None
    ms = round(value.total_seconds() * MS)
    if ms < 1:
        raise ConfigurationError(f"{what}: must be at least 1 ms, got {length!r}")
    return ms


def _is_zero(value: object) -> bool:
    if isinstance(value, timedelta):
        return value == timedelta(0)
    if isinstance(value, int | float) and not isinstance(value, bool):
        return value == 0
    return isinstance(value, str) and re.fullmatch(r"0+(\.0*)?[smhdw]?", value.strip()) is not None


@dataclass(frozen=True, order=True)
class Window:
    """The window ``[start, start + length)``, both in epoch milliseconds.

    Examples
    --------
    >>> w = Window.of(1714557600000 + 5 * 60_000, 3_600_000)
    >>> w.start_time.isoformat(), w.end_time.isoformat()
    ('2024-05-01T10:00:00+00:00', '2024-05-01T11:00:00+00:00')
    >>> w.label
    '2024-05-01T10:00:00Z/1h'
    """

    start: int
    length: int

    @classmethod
    def of(cls, event_ms: int, length: int) -> Window:
        """The window that holds the instant `event_ms`."""
        return cls(event_ms - event_ms % length, length)

    @property
    def end(self) -> int:
        """The first millisecond after the window."""
        return self.start + self.length

    @property
    def start_time(self) -> datetime:
        """The start as a UTC datetime (the time of the window's run in the repository)."""
        return to_datetime(self.start)

    @property
    def end_time(self) -> datetime:
        """The end as a UTC datetime."""
        return to_datetime(self.end)

    @property
    def label(self) -> str:
        """``<start ISO>Z/<length>``: the ``window`` tag of the window's run."""
        start = self.start_time.strftime("%Y-%m-%dT%H:%M:%S")
        fraction = f".{self.start % MS:03d}" if self.start % MS else ""
        return f"{start}{fraction}Z/{format_duration(timedelta(milliseconds=self.length))}"

    def following(self) -> Window:
        """The next window."""
        return Window(self.end, self.length)


def to_datetime(epoch_ms: int) -> datetime:
    """A UTC datetime from epoch milliseconds.

    >>> to_datetime(0).isoformat()
    '1970-01-01T00:00:00+00:00'
    """
    return datetime.fromtimestamp(epoch_ms / MS, tz=UTC)


def to_millis(moment: datetime) -> int:
    """Epoch milliseconds of an aware datetime (naive means UTC).

    >>> to_millis(datetime(1970, 1, 1, 0, 0, 1, tzinfo=UTC))
    1000
    """
    aware = moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)
    return round(aware.timestamp() * MS)

"""Partitions of time: the UTC day or hour a scan measures, and parsing times given by users."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from anomaly.errors import ConfigurationError

LENGTHS = {"day": timedelta(days=1), "hour": timedelta(hours=1)}


def parse_time(text: str) -> datetime:
    """A UTC datetime from ISO text (``2026-03-31``, ``2026-03-31T06:00``, with an offset or
    ``Z``; without one it is UTC), ``now``, ``today`` or ``yesterday`` (UTC midnights).

    >>> parse_time("2026-03-31")
    datetime.datetime(2026, 3, 31, 0, 0, tzinfo=datetime.timezone.utc)
    >>> parse_time("2026-03-31T08:00+02:00").isoformat()
    '2026-03-31T06:00:00+00:00'
    """
    word = text.strip().lower()
    if word in ("now", "today", "yesterday"):
        now = datetime.now(UTC)
        if word == "now":
            return now
        return period_start(now, "day") - LENGTHS["day"] * (word == "yesterday")
    try:
        value = datetime.fromisoformat(text.strip().replace("Z", "+00:00"))
    except ValueError:
        raise ConfigurationError(
            f"invalid time {text!r}: use ISO 8601 (2026-03-31, 2026-03-31T06:00:00Z), now, "
            "today or yesterday"
        ) from None
    return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


def period_start(moment: datetime, partition: str) -> datetime:
    """The start of the UTC day or hour containing `moment`.

    >>> period_start(datetime(2026, 3, 31, 6, 30, tzinfo=UTC), "day").isoformat()
    '2026-03-31T00:00:00+00:00'
    """
    moment = moment.astimezone(UTC)
    if partition == "hour":
        return moment.replace(minute=0, second=0, microsecond=0)
    return moment.replace(hour=0, minute=0, second=0, microsecond=0)


def latest_complete(moment: datetime, partition: str) -> datetime:
    """The start of the last partition that ended at or before `moment` (what a scheduled
    scan measures: at 06:00 the daily scan measures yesterday).

    >>> latest_complete(datetime(2026, 4, 1, 6, 0, tzinfo=UTC), "day").date().isoformat()
    '2026-03-31'
    """
    return period_start(moment, partition) - LENGTHS[partition]


def label(start: datetime, partition: str | None) -> str:
    """``2026-03-31`` for a day, ``2026-03-31 06:00`` for an hour, ISO time otherwise.

    >>> label(datetime(2026, 3, 31, tzinfo=UTC), "day")
    '2026-03-31'
    """
    start = start.astimezone(UTC)
    if partition == "day":
        return start.strftime("%Y-%m-%d")
    if partition == "hour":
        return start.strftime("%Y-%m-%d %H:00")
    return start.strftime("%Y-%m-%d %H:%M:%S")

"""When a scan runs under ``anomaly serve``: a cron expression or a fixed interval."""

from __future__ import annotations

from datetime import timedelta
from typing import TYPE_CHECKING
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from pydantic import model_validator

from anomaly.config.durations import Duration, format_duration
from anomaly.config.model import ConfigModel
from anomaly.config.problems import custom_error

if TYPE_CHECKING:
    from apscheduler.triggers.base import BaseTrigger


class ScheduleSpec(ConfigModel):
    """``{cron: "0 6 * * *", timezone: Europe/Berlin}`` or ``{interval: 15m}``.

    ``misfire_grace`` is how late a run may still start (after a busy or stopped process);
    missed runs of one scan are coalesced into one.

    Examples
    --------
    >>> ScheduleSpec.model_validate({"cron": "0 6 * * *"}).describe()
    'cron 0 6 * * * (UTC)'
    >>> ScheduleSpec.model_validate({"interval": "1h30m"}).describe()
    'every 1h30m'
    """

    cron: str | None = None
    interval: Duration | None = None
    timezone: str = "UTC"
    misfire_grace: Duration = timedelta(minutes=10)

    @model_validator(mode="after")
    def _one_trigger(self) -> ScheduleSpec:
        if (self.cron is None) == (self.interval is None):
            raise custom_error("a schedule needs exactly one of 'cron' or 'interval'")
        try:
            ZoneInfo(self.timezone)
        except (ZoneInfoNotFoundError, ValueError):
            raise custom_error(
                f"unknown timezone {self.timezone!r}: use an IANA name such as UTC or "
                "Europe/Berlin",
                key="timezone",
            ) from None
        if self.cron is not None:
            try:
                self.trigger()
            except ValueError as error:
                raise custom_error(
                    f"invalid cron expression {self.cron!r}: {error} (five fields: minute hour "
                    "day-of-month month day-of-week, e.g. '0 6 * * *')",
                    key="cron",
                ) from None
        return self

    def trigger(self) -> BaseTrigger:
        """The APScheduler trigger."""
        from apscheduler.triggers.cron import CronTrigger
        from apscheduler.triggers.interval import IntervalTrigger

        zone = ZoneInfo(self.timezone)
        if self.cron is not None:
            return CronTrigger.from_crontab(self.cron, timezone=zone)
        assert self.interval is not None
        return IntervalTrigger(seconds=self.interval.total_seconds(), timezone=zone)

    def describe(self) -> str:
        """``cron 0 6 * * * (UTC)`` or ``every 15m``."""
        if self.cron is not None:
            return f"cron {self.cron} ({self.timezone})"
        assert self.interval is not None
        return f"every {format_duration(self.interval)}"

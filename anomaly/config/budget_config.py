"""``alert_budget`` in the config: how many false alerts a scan may send, and how often a
series is judged (which turns a weekly budget into a per-check p-value threshold)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from pydantic import model_validator

from anomaly.config.model import ConfigModel
from anomaly.config.periods import LENGTHS
from anomaly.config.problems import custom_error
from anomaly.config.schedule import ScheduleSpec
from detectors import AlertBudget

WEEK = timedelta(days=7)
MAX_RUNS_COUNTED = 10_080  # a run a minute for a week: beyond it the exact count hardly matters


class AlertBudgetSpec(ConfigModel):
    """``{false_alerts_per_week: 1}`` or ``{fdr: 0.05}`` over all the series of a scan.

    Examples
    --------
    >>> AlertBudgetSpec.model_validate({"false_alerts_per_week": 2}).budget.rule
    '2 false alerts a week'
    >>> AlertBudgetSpec.model_validate({"fdr": 0.05, "false_alerts_per_week": 1})
    Traceback (most recent call last):
    ...
    pydantic_core._pydantic_core.ValidationError: 1 validation error for AlertBudgetSpec
      an alert budget needs exactly one of 'false_alerts_per_week' (a number > 0) or 'fdr' ...
    """

    false_alerts_per_week: float | None = None
    fdr: float | None = None

    @model_validator(mode="after")
    def _one(self) -> AlertBudgetSpec:
        if (self.false_alerts_per_week is None) == (self.fdr is None):
            raise custom_error(
                "an alert budget needs exactly one of 'false_alerts_per_week' (a number > 0) "
                "or 'fdr' (between 0 and 1)"
            )
        if self.false_alerts_per_week is not None and self.false_alerts_per_week <= 0:
            raise custom_error(
                f"false_alerts_per_week must be > 0, got {self.false_alerts_per_week}",
                key="false_alerts_per_week",
            )
        if self.fdr is not None and not 0 < self.fdr < 1:
            raise custom_error(f"fdr must be between 0 and 1, got {self.fdr}", key="fdr")
        return self

    @property
    def budget(self) -> AlertBudget:
        return AlertBudget(self.false_alerts_per_week, self.fdr)


def checks_per_week(partition: str | None, schedule: ScheduleSpec | None) -> float:
    """How many times a week a scan judges each series: one per partition for sources with a
    time column (7 for days, 168 for hours), else its schedule's runs in a week, else daily.

    >>> checks_per_week("hour", None), checks_per_week(None, None)
    (168.0, 7.0)
    >>> checks_per_week(None, ScheduleSpec.model_validate({"interval": "15m"}))
    672.0
    >>> checks_per_week(None, ScheduleSpec.model_validate({"cron": "0 6 * * 1-5"}))
    5.0
    """
    if partition is not None:
        return WEEK / LENGTHS[partition]
    if schedule is None:
        return 7.0
    if schedule.interval is not None:
        return WEEK / schedule.interval
    trigger = schedule.trigger()
    start = datetime(2026, 1, 5, tzinfo=UTC)  # a Monday: a whole week of any weekly pattern
    runs, fire = 0, trigger.get_next_fire_time(None, start)
    while fire is not None and fire < start + WEEK and runs < MAX_RUNS_COUNTED:
        runs += 1
        fire = trigger.get_next_fire_time(fire, fire + timedelta(microseconds=1))
    return float(max(runs, 1))

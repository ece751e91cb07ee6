"""Check levels and statuses."""

from __future__ import annotations

from enum import StrEnum


class CheckLevel(StrEnum):
    """How bad a failing check is: a WARNING lets a pipeline go on, an ERROR halts it."""

    WARNING = "warning"
    ERROR = "error"


class CheckStatus(StrEnum):
    """Outcome of a check or a whole verification run, ordered SUCCESS < WARNING < ERROR."""

    SUCCESS = "success"
    WARNING = "warning"
    ERROR = "error"

    @property
    def severity(self) -> int:
        """0, 1, 2 for SUCCESS, WARNING, ERROR."""
        return [CheckStatus.SUCCESS, CheckStatus.WARNING, CheckStatus.ERROR].index(self)

    @classmethod
    def worst(cls, statuses: list[CheckStatus]) -> CheckStatus:
        """The most severe status (SUCCESS for none)."""
        return max(statuses, key=lambda s: s.severity, default=cls.SUCCESS)

    @classmethod
    def of_level(cls, level: CheckLevel) -> CheckStatus:
        """The status a failing check of `level` has."""
        return cls.ERROR if level is CheckLevel.ERROR else cls.WARNING


class ConstraintStatus(StrEnum):
    """Outcome of one constraint (for one group)."""

    SUCCESS = "success"
    FAILURE = "failure"
    INSUFFICIENT_HISTORY = "insufficient history"
    HELD_BACK = "held back"
    """An anomaly the suite's alert budget did not admit: reported, does not fail the check."""

"""Check: a named group of constraints with a level (seed 001, Listing 1)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import datetime
from typing import Any, Self

from anomaly.analyzers.base import Analyzer
from anomaly.checks.anomaly_constraint import AnomalyConstraint
from anomaly.checks.completeness_constraints import CompletenessConstraints
from anomaly.checks.consistency_constraints import ConsistencyConstraints
from anomaly.checks.constraint import Constraint
from anomaly.checks.levels import CheckLevel
from anomaly.checks.statistics_constraints import StatisticsConstraints
from anomaly.errors import ConfigurationError


class Check(CompletenessConstraints, ConsistencyConstraints, StatisticsConstraints):
    """Constraints verified together; failing ones give the check's `level` as its status.

    With `group_by`, every constraint is evaluated per group value (one outcome per group) and
    the check fails if any group fails. ``on="delta"`` evaluates the check on the new data alone
    when the suite aggregates it with stored states (seed 000, Listing 1).

    Examples
    --------
    >>> from anomaly.checks.assertions import at_least
    >>> check = (Check(CheckLevel.ERROR, "orders are sane")
    ...          .is_complete("id", "title").is_unique("id")
    ...          .has_completeness("email", at_least(0.9)))
    >>> [c.predicate for c in check.constraints]  # doctest: +NORMALIZE_WHITESPACE
    ['Completeness(id) == 1.0', 'Completeness(title) == 1.0', 'Uniqueness(id) == 1.0',
     'Completeness(email) >= 0.9']
    """

    def __init__(
        self,
        level: CheckLevel | str,
        description: str,
        group_by: Iterable[str] = (),
        on: str = "all",
    ) -> None:
        super().__init__()
        try:
            self.level = CheckLevel(level)
        except ValueError:
            allowed = [lv.value for lv in CheckLevel]
            raise ConfigurationError(f"level must be one of {allowed}, got {level!r}") from None
        self.description = description
        self.group_by = (group_by,) if isinstance(group_by, str) else tuple(group_by)
        if on not in ("all", "delta"):
            raise ConfigurationError(f"on must be 'all' or 'delta', got {on!r}")
        self.on = on

    def __repr__(self) -> str:
        size = len(self.constraints)
        return f"Check({self.level.name}, {self.description!r}, {size} constraints)"

    def has_no_anomalies(
        self,
        analyzer: Analyzer[Any],
        detector: Any = None,
        tags: Mapping[str, str] | None = None,
        after: datetime | int | None = None,
        before: datetime | int | None = None,
        min_history: int = 1,
        fail_on_insufficient_history: bool = False,
        hint: str | None = None,
    ) -> Self:
        """The new value of `analyzer`'s metric is no anomaly for `detector` (default: the
        calibrated :class:`~detectors.Adaptive`, as in scans) on stored history.

        Needs a repository (``VerificationSuite.use_repository``). Too little history is the
        outcome ``insufficient history``, a failure only with `fail_on_insufficient_history`.
        """
        constraint = AnomalyConstraint(
            analyzer, detector, tags, after, before, min_history, fail_on_insufficient_history, hint
        )
        return self.add_constraint(constraint)

    @property
    def analyzers(self) -> list[Analyzer[Any]]:
        """Every analyzer the check needs, without duplicates."""
        return list(dict.fromkeys(c.analyzer for c in self.constraints))

    @property
    def metric_constraints(self) -> list[Constraint]:
        """The constraints evaluated from this run's metrics alone."""
        return [c for c in self.constraints if isinstance(c, Constraint)]

    @property
    def anomaly_constraints(self) -> list[AnomalyConstraint]:
        """The constraints that need stored history."""
        return [c for c in self.constraints if isinstance(c, AnomalyConstraint)]

"""Constraints of the completeness dimension (Schelter et al., PVLDB 2018, Table 1)."""

from __future__ import annotations

from typing import Self

from anomaly.analyzers import Completeness
from anomaly.checks.assertions import IS_ONE, AssertionFn
from anomaly.checks.builder import ConstraintBuilder


class CompletenessConstraints(ConstraintBuilder):
    """is_complete, has_completeness."""

    def is_complete(self, *columns: str, where: str | None = None, hint: str | None = None) -> Self:
        """No missing values in each of `columns`."""
        for column in columns:
            self._metric(f"is_complete({column})", Completeness(column, where), IS_ONE, hint)
        return self

    def has_completeness(
        self, column: str, assertion: AssertionFn, where: str | None = None, hint: str | None = None
    ) -> Self:
        """The non-null fraction of `column` satisfies `assertion`."""
        return self._metric(
            f"has_completeness({column})", Completeness(column, where), assertion, hint
        )

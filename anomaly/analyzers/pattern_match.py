"""PatternMatch: the fraction of rows whose string value matches a (Java) regex."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

from anomaly.analyzers.base import ScanShareableAnalyzer
from anomaly.analyzers.columns import col
from anomaly.analyzers.state import MatchesState

if TYPE_CHECKING:
    from pyspark.sql import Column
    from pyspark.sql.types import StructType


@dataclass(frozen=True)
class PatternMatch(ScanShareableAnalyzer[MatchesState]):
    """Fraction of rows where `column` matches `pattern`; nulls do not match (as Deequ).

    Examples
    --------
    >>> a = PatternMatch("email", r"^.+@.+$")
    >>> a.metric_id, a.metric(MatchesState(1, 2)).value
    ('PatternMatch(email, ^.+@.+$)', 0.5)
    """

    column: str
    pattern: str
    where: str | None = None
    metric_name: ClassVar[str] = "PatternMatch"

    @property
    def columns(self) -> tuple[str, ...]:
        return (self.column,)

    def id_arguments(self) -> list[str]:
        return [self.column, self.pattern]

    def check_schema(self, schema: StructType) -> str | None:
        problem = super().check_schema(schema)
        if problem is None and (kind := self.column_type(schema, self.column)) != "string":
            return (
                f"{self.metric_id}: column {self.column!r} has type {kind}; "
                "a pattern needs a string column"
            )
        return problem

    def aggregations(self, schema: StructType) -> list[Column]:
        from pyspark.sql import functions as F

        hit = F.when(col(schema, self.column).rlike(self.pattern), 1).otherwise(0)
        return [F.sum(self.filtered(hit)), F.count(self.filtered(F.lit(1)))]

    def state_from_row(self, values: Sequence[Any]) -> MatchesState:
        return MatchesState(int(values[0] or 0), int(values[1] or 0))

    def empty_state(self) -> MatchesState:
        return MatchesState.identity()

    def compute_metric(self, state: MatchesState) -> float:
        if state.rows == 0:
            raise self.nothing_to_measure()
        return state.matches / state.rows

"""PatternMatch: the fraction of rows whose string value matches a (Java) regex."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

from anomaly.analyzers.columns import col
from anomaly.analyzers.row_share import RowShareAnalyzer

if TYPE_CHECKING:
    from pyspark.sql import Column
    from pyspark.sql.types import StructType


@dataclass(frozen=True)
class PatternMatch(RowShareAnalyzer):
    """Fraction of rows where `column` matches `pattern`; nulls do not match (as Deequ).

    Examples
    --------
    >>> a = PatternMatch("email", r"^.+@.+$")
    >>> from anomaly.analyzers.state import MatchesState
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

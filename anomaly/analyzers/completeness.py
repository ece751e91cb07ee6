"""Completeness: the fraction of rows where a column is not null."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

from anomaly.analyzers.columns import col
from anomaly.analyzers.row_share import RowShareAnalyzer

if TYPE_CHECKING:
    from pyspark.sql import Column
    from pyspark.sql.types import StructType


@dataclass(frozen=True)
class Completeness(RowShareAnalyzer):
    """Fraction of non-null values in `column` (NaN counts as a value, as in Spark).

    Examples
    --------
    >>> a = Completeness("title")
    >>> from anomaly.analyzers.state import MatchesState
    >>> a.metric_id, a.metric(MatchesState(matches=3, rows=4)).value
    ('Completeness(title)', 0.75)
    """

    column: str
    where: str | None = None
    metric_name: ClassVar[str] = "Completeness"

    @property
    def columns(self) -> tuple[str, ...]:
        return (self.column,)

    def aggregations(self, schema: StructType) -> list[Column]:
        from pyspark.sql import functions as F

        return [F.count(self.filtered(col(schema, self.column))), F.count(self.filtered(F.lit(1)))]

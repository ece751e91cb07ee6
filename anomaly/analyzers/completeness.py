"""Completeness: the fraction of rows where a column is not null."""

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
class Completeness(ScanShareableAnalyzer[MatchesState]):
    """Fraction of non-null values in `column` (NaN counts as a value, as in Spark).

    Examples
    --------
    >>> a = Completeness("title")
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

    def state_from_row(self, values: Sequence[Any]) -> MatchesState:
        return MatchesState(int(values[0] or 0), int(values[1] or 0))

    def empty_state(self) -> MatchesState:
        return MatchesState.identity()

    def compute_metric(self, state: MatchesState) -> float:
        if state.rows == 0:
            raise self.nothing_to_measure()
        return state.matches / state.rows

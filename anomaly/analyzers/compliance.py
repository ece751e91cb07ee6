"""Compliance: the fraction of rows satisfying a SQL predicate."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

from anomaly.analyzers.base import ScanShareableAnalyzer
from anomaly.analyzers.state import MatchesState

if TYPE_CHECKING:
    from pyspark.sql import Column
    from pyspark.sql.types import StructType


@dataclass(frozen=True)
class Compliance(ScanShareableAnalyzer[MatchesState]):
    """Fraction of rows where `predicate` (Spark SQL) is true; null counts as not satisfied.

    Examples
    --------
    >>> a = Compliance("positive price", "price > 0")
    >>> a.metric_id, a.instance
    ('Compliance(positive price: price > 0)', 'positive price')
    """

    name: str
    predicate: str
    where: str | None = None
    metric_name: ClassVar[str] = "Compliance"

    @property
    def columns(self) -> tuple[str, ...]:
        return ()

    @property
    def entity(self) -> str:
        return "Column"

    @property
    def instance(self) -> str:
        return self.name

    def id_arguments(self) -> list[str]:
        return [f"{self.name}: {self.predicate}"]

    def check_schema(self, schema: StructType) -> str | None:
        return None  # the runner validates `predicate` against the data frame itself

    def expressions(self) -> list[str]:
        return [self.predicate, *super().expressions()]

    def aggregations(self, schema: StructType) -> list[Column]:
        from pyspark.sql import functions as F

        hit = F.when(F.expr(self.predicate), 1).otherwise(0)
        return [F.sum(self.filtered(hit)), F.count(self.filtered(F.lit(1)))]

    def state_from_row(self, values: Sequence[Any]) -> MatchesState:
        return MatchesState(int(values[0] or 0), int(values[1] or 0))

    def empty_state(self) -> MatchesState:
        return MatchesState.identity()

    def compute_metric(self, state: MatchesState) -> float:
        if state.rows == 0:
            raise self.nothing_to_measure()
        return state.matches / state.rows

"""StandardDeviation (population) of a numeric column, from mergeable moments."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

from anomaly.analyzers.numeric_column import NumericColumnAnalyzer
from anomaly.analyzers.state import PooledState

if TYPE_CHECKING:
    from pyspark.sql import Column
    from pyspark.sql.types import StructType


@dataclass(frozen=True)
class MomentsState(PooledState):
    """Count, mean and sum of squared deviations (M2); merged with Chan et al.'s update."""

    kind: ClassVar[str] = "moments"
    n: int
    avg: float
    m2: float

    def pooled(self, other: MomentsState) -> MomentsState:
        n = self.n + other.n
        delta = other.avg - self.avg
        avg = self.avg + delta * other.n / n
        m2 = self.m2 + other.m2 + delta * delta * self.n * other.n / n
        return MomentsState(n, avg, m2)


@dataclass(frozen=True)
class StandardDeviation(NumericColumnAnalyzer[MomentsState]):
    """Population standard deviation of the non-null values of `column` (as Deequ).

    Examples
    --------
    >>> s = MomentsState(2, 1.0, 2.0).merge(MomentsState(2, 3.0, 2.0))
    >>> round(StandardDeviation("x").metric(s).value, 6)
    1.414214
    """

    column: str
    where: str | None = None
    metric_name: ClassVar[str] = "StandardDeviation"

    def aggregations(self, schema: StructType) -> list[Column]:
        from pyspark.sql import functions as F

        value = self.numbers(schema)
        return [F.count(value), F.avg(value), F.var_pop(value)]

    def state_from_row(self, values: Sequence[Any]) -> MomentsState:
        n = int(values[0] or 0)
        if n == 0:
            return MomentsState.identity()
        return MomentsState(n, float(values[1]), float(values[2]) * n)

    def empty_state(self) -> MomentsState:
        return MomentsState.identity()

    def compute_metric(self, state: MomentsState) -> float:
        if state.n == 0:
            raise self.nothing_to_measure("non-null values")
        return math.sqrt(max(state.m2, 0.0) / state.n)

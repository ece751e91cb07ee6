"""Pearson correlation of two numeric columns, from mergeable co-moments."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

from anomaly.analyzers.base import ScanShareableAnalyzer
from anomaly.analyzers.numbers import number
from anomaly.analyzers.state import PooledState
from anomaly.errors import MetricComputationError

if TYPE_CHECKING:
    from pyspark.sql import Column
    from pyspark.sql.types import StructType


@dataclass(frozen=True)
class CorrelationState(PooledState):
    """Count, means, co-moment and both second moments of the rows where both are non-null."""

    kind: ClassVar[str] = "correlation"
    n: int
    x_avg: float
    y_avg: float
    ck: float
    x_mk: float
    y_mk: float

    def pooled(self, other: CorrelationState) -> CorrelationState:
        n = self.n + other.n
        dx, dy = other.x_avg - self.x_avg, other.y_avg - self.y_avg
        weight = self.n * other.n / n
        return CorrelationState(
            n,
            self.x_avg + dx * other.n / n,
            self.y_avg + dy * other.n / n,
            self.ck + other.ck + dx * dy * weight,
            self.x_mk + other.x_mk + dx * dx * weight,
            self.y_mk + other.y_mk + dy * dy * weight,
        )


@dataclass(frozen=True)
class Correlation(ScanShareableAnalyzer[CorrelationState]):
    """Pearson correlation of `first` and `second` over rows where both are non-null.

    Examples
    --------
    >>> Correlation("a", "b").metric(CorrelationState(3, 2.0, 4.0, 4.0, 2.0, 8.0)).value
    1.0
    """

    first: str
    second: str
    where: str | None = None
    metric_name: ClassVar[str] = "Correlation"
    reads_numbers: ClassVar[bool] = True

    @property
    def columns(self) -> tuple[str, ...]:
        return (self.first, self.second)

    def check_schema(self, schema: StructType) -> str | None:
        return self.require_numeric(schema)

    def aggregations(self, schema: StructType) -> list[Column]:
        from pyspark.sql import functions as F

        x, y = number(schema, self.first), number(schema, self.second)
        both = x.isNotNull() & y.isNotNull()
        cond = both & self.condition() if self.where else both
        x, y = F.when(cond, x), F.when(cond, y)
        return [F.count(x), F.avg(x), F.avg(y), F.covar_pop(x, y), F.var_pop(x), F.var_pop(y)]

    def state_from_row(self, values: Sequence[Any]) -> CorrelationState:
        n = int(values[0] or 0)
        if n == 0:
            return CorrelationState.identity()
        x_avg, y_avg, cov, x_var, y_var = (float(v) for v in values[1:6])
        return CorrelationState(n, x_avg, y_avg, cov * n, x_var * n, y_var * n)

    def empty_state(self) -> CorrelationState:
        return CorrelationState.identity()

    def compute_metric(self, state: CorrelationState) -> float:
        if state.n == 0:
            raise self.nothing_to_measure("rows where both columns are non-null")
        if state.x_mk <= 0 or state.y_mk <= 0:
            constant = self.first if state.x_mk <= 0 else self.second
            raise MetricComputationError(
                f"{self.metric_id}: column {constant!r} is constant over {state.n} rows; "
                "correlation needs variation in both columns"
            )
        value = state.ck / math.sqrt(state.x_mk * state.y_mk)
        # NaN in the data propagates (as in Spark's corr); min/max would turn NaN into 1.0.
        return value if math.isnan(value) else max(-1.0, min(1.0, value))

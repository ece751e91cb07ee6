"""Mean of a numeric column, and the sum-and-count analyzers it shares with Sum."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

from anomaly.analyzers.numeric_column import NumericColumnAnalyzer
from anomaly.analyzers.state import SummedState

if TYPE_CHECKING:
    from pyspark.sql import Column
    from pyspark.sql.types import StructType


@dataclass(frozen=True)
class MeanState(SummedState):
    """Sum and count of the non-null values."""

    kind: ClassVar[str] = "mean"
    total: float
    count: int


class SumAndCount(NumericColumnAnalyzer[MeanState]):
    """An analyzer whose state is the sum and count of a column's non-null numbers (Mean, Sum);
    subclasses say which metric they make of it."""

    def aggregations(self, schema: StructType) -> list[Column]:
        from pyspark.sql import functions as F

        value = self.numbers(schema)
        return [F.sum(value), F.count(value)]

    def state_from_row(self, values: Sequence[Any]) -> MeanState:
        return MeanState(float(values[0] or 0.0), int(values[1] or 0))

    def empty_state(self) -> MeanState:
        return MeanState.identity()


@dataclass(frozen=True)
class Mean(SumAndCount):
    """Mean of the non-null values of `column` (NaN propagates, as in Spark).

    Examples
    --------
    >>> Mean("price").metric(MeanState(10.0, 4)).value
    2.5
    >>> Mean("price").metric(MeanState.identity()).error
    'Mean(price): no non-null values; the metric needs at least one'
    """

    column: str
    where: str | None = None
    metric_name: ClassVar[str] = "Mean"

    def compute_metric(self, state: MeanState) -> float:
        if state.count == 0:
            raise self.nothing_to_measure("non-null values")
        return state.total / state.count

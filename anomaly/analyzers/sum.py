"""Sum of a numeric column."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

from anomaly.analyzers.base import ScanShareableAnalyzer
from anomaly.analyzers.mean import MeanState
from anomaly.analyzers.numbers import number

if TYPE_CHECKING:
    from pyspark.sql import Column
    from pyspark.sql.types import StructType


@dataclass(frozen=True)
class Sum(ScanShareableAnalyzer[MeanState]):
    """Sum of the non-null values of `column`; fails when there are none (as Deequ).

    The state keeps the count too, so "no values" stays distinguishable from a sum of 0.

    Examples
    --------
    >>> Sum("amount").metric(MeanState(10.0, 4)).value
    10.0
    """

    column: str
    where: str | None = None
    metric_name: ClassVar[str] = "Sum"
    reads_numbers: ClassVar[bool] = True

    @property
    def columns(self) -> tuple[str, ...]:
        return (self.column,)

    def check_schema(self, schema: StructType) -> str | None:
        return self.require_numeric(schema)

    def aggregations(self, schema: StructType) -> list[Column]:
        from pyspark.sql import functions as F

        value = self.filtered(number(schema, self.column))
        return [F.sum(value), F.count(value)]

    def state_from_row(self, values: Sequence[Any]) -> MeanState:
        return MeanState(float(values[0] or 0.0), int(values[1] or 0))

    def empty_state(self) -> MeanState:
        return MeanState.identity()

    def compute_metric(self, state: MeanState) -> float:
        if state.count == 0:
            raise self.nothing_to_measure("non-null values")
        return state.total

"""Minimum and Maximum of a numeric column."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

from anomaly.analyzers.base import finite_or_none
from anomaly.analyzers.numeric_column import NumericColumnAnalyzer
from anomaly.analyzers.state import State, check_same_kind

if TYPE_CHECKING:
    from pyspark.sql import Column
    from pyspark.sql.types import StructType


@dataclass(frozen=True)
class MinState(State):
    """The smallest value seen; None is the identity (no values)."""

    kind: ClassVar[str] = "min"
    value: float | None

    @classmethod
    def identity(cls) -> MinState:
        return cls(None)

    def merge(self, other: MinState) -> MinState:
        check_same_kind(self, other)
        values = [v for v in (self.value, other.value) if v is not None]
        return MinState(min(values, key=spark_order) if values else None)


@dataclass(frozen=True)
class MaxState(State):
    """The largest value seen; None is the identity (no values)."""

    kind: ClassVar[str] = "max"
    value: float | None

    @classmethod
    def identity(cls) -> MaxState:
        return cls(None)

    def merge(self, other: MaxState) -> MaxState:
        check_same_kind(self, other)
        values = [v for v in (self.value, other.value) if v is not None]
        return MaxState(max(values, key=spark_order) if values else None)


def spark_order(value: float) -> tuple[bool, float]:
    """Spark's ordering of doubles: NaN is larger than every other value, +inf included."""
    nan = math.isnan(value)
    return (nan, 0.0 if nan else value)


class _Extreme(NumericColumnAnalyzer[Any]):
    def compute_metric(self, state: Any) -> float:
        if state.value is None:
            raise self.nothing_to_measure("non-null values")
        return float(state.value)


@dataclass(frozen=True)
class Minimum(_Extreme):
    """Smallest non-null value of `column`.

    >>> Minimum("price").metric(MinState(3.0).merge(MinState(1.0))).value
    1.0
    """

    column: str
    where: str | None = None
    metric_name: ClassVar[str] = "Minimum"

    def aggregations(self, schema: StructType) -> list[Column]:
        from pyspark.sql import functions as F

        return [F.min(self.numbers(schema))]

    def state_from_row(self, values: Sequence[Any]) -> MinState:
        return MinState(finite_or_none(values[0]))

    def empty_state(self) -> MinState:
        return MinState.identity()


@dataclass(frozen=True)
class Maximum(_Extreme):
    """Largest non-null value of `column`.

    >>> Maximum("price").metric(MaxState(3.0).merge(MaxState.identity())).value
    3.0
    """

    column: str
    where: str | None = None
    metric_name: ClassVar[str] = "Maximum"

    def aggregations(self, schema: StructType) -> list[Column]:
        from pyspark.sql import functions as F

        return [F.max(self.numbers(schema))]

    def state_from_row(self, values: Sequence[Any]) -> MaxState:
        return MaxState(finite_or_none(values[0]))

    def empty_state(self) -> MaxState:
        return MaxState.identity()

"""MutualInformation between two columns, from their joint frequencies."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from anomaly.analyzers.frequency import (
    COUNT,
    FrequencyAnalyzer,
    FrequencyState,
    FrequencySummary,
    value_column,
)

if TYPE_CHECKING:
    from pyspark.sql import Column


@dataclass(frozen=True)
class MutualInformation(FrequencyAnalyzer):
    """Mutual information (nats) of `first` and `second`: sum p(a,b) ln(p(a,b) / (p(a) p(b))).

    Null is treated as a value of its own; rows where both are null are left out.

    Examples
    --------
    >>> import pyarrow as pa
    >>> table = pa.table({"_c0": [1, 2], "_c1": ["x", "y"], "_cnt": [5, 5]})
    >>> round(MutualInformation("a", "b").metric(FrequencyState(table)).value, 6)
    0.693147
    """

    first: str
    second: str
    where: str | None = None
    metric_name: ClassVar[str] = "MutualInformation"

    @property
    def columns(self) -> tuple[str, ...]:
        return (self.first, self.second)

    def window_columns(self, groups: Sequence[str]) -> dict[str, Column]:
        from pyspark.sql import Window
        from pyspark.sql import functions as F

        def total(*by: str) -> Column:
            return F.sum(COUNT).over(Window.partitionBy(*groups, *by))

        return {
            "_mi_a": total(value_column(0)),
            "_mi_b": total(value_column(1)),
            "_mi_n": total(),
        }

    def aggregations(self) -> list[Column]:
        from pyspark.sql import functions as F

        cnt, n = F.col(COUNT), F.col("_mi_n")
        return [F.sum(cnt / n * F.log(cnt * n / (F.col("_mi_a") * F.col("_mi_b"))))]

    def extra_from_state(self, state: FrequencyState) -> Sequence[Any]:
        if state.table is None:
            return (0.0,)
        frame = state.table.to_pandas()
        cnt = frame[COUNT].astype(float)
        # Null must be a value of its own here, as it is in Spark's window partitions.
        by_a = frame.groupby(value_column(0), dropna=False)[COUNT].transform("sum")
        by_b = frame.groupby(value_column(1), dropna=False)[COUNT].transform("sum")
        n = cnt.sum()
        return (float((cnt / n * np.log(cnt * n / (by_a * by_b))).sum()),)

    def metric_from_summary(self, summary: FrequencySummary, extra: Sequence[Any]) -> float:
        self.checked_rows(summary)
        return float(extra[0])

"""MutualInformation between two columns, from their joint frequencies."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from anomaly.analyzers import frequency

if TYPE_CHECKING:
    from pyspark.sql import Column


@dataclass(frozen=True)
class MutualInformation(frequency.FrequencyAnalyzer):
    """Mutual information (nats) of `first` and `second`: sum p(a,b) ln(p(a,b) / (p(a) p(b))).

    Null is treated as a value of its own; rows where both are null are left out.

    Examples
    --------
    >>> import pyarrow as pa
    >>> table = pa.table({"_c0": [1, 2], "_c1": ["x", "y"], "_cnt": [5, 5]})
    >>> round(MutualInformation("a", "b").metric(frequency.FrequencyState(table)).value, 6)
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
            return F.sum(frequency.COUNT).over(Window.partitionBy(*groups, *by))

        return {
            "_mi_a": total(frequency.value_column(0)),
            "_mi_b": total(frequency.value_column(1)),
            "_mi_n": total(),
        }

    def aggregations(self) -> list[Column]:
        from pyspark.sql import functions as F

        cnt, n = F.col(frequency.COUNT), F.col("_mi_n")
        return [F.sum(cnt / n * F.log(cnt * n / (F.col("_mi_a") * F.col("_mi_b"))))]

    def extra_from_state(self, state: frequency.FrequencyState) -> Sequence[Any]:
        if state.table is None:
            return (0.0,)
        table = state.table
        cnt = table.column(frequency.COUNT).to_numpy().astype(float)
        # Null and NaN must each be a value of their own, as in Spark's window partitions (pandas
        # would fold NaN into null); Arrow's dictionary encoding keeps them apart.
        by_a = _marginal(table.column(frequency.value_column(0)), cnt)
        by_b = _marginal(table.column(frequency.value_column(1)), cnt)
        n = cnt.sum()
        return (float((cnt / n * np.log(cnt * n / (by_a * by_b))).sum()),)

    def metric_from_summary(
        self, summary: frequency.FrequencySummary, extra: Sequence[Any]
    ) -> float:
        self.checked_rows(summary)
        return float(extra[0])


def _marginal(column: pa.ChunkedArray, counts: np.ndarray) -> np.ndarray:
    """Per row, the summed counts of all rows with the same value (null and NaN are values)."""
    codes = pc.dictionary_encode(column.combine_chunks(), null_encoding="encode").indices
    index = codes.to_numpy(zero_copy_only=False)
    return np.bincount(index, weights=counts)[index]

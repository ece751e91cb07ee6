"""Histogram: counts and ratios of a column's most frequent values (nulls included)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

from anomaly.analyzers.frequency import (
    COUNT,
    FrequencyAnalyzer,
    FrequencyState,
    FrequencySummary,
    value_column,
)
from anomaly.errors import ConfigurationError

if TYPE_CHECKING:
    from pyspark.sql import Column

NULL_VALUE = "NullValue"


@dataclass(frozen=True)
class Histogram(FrequencyAnalyzer):
    """Value distribution of `column`: ``bins`` plus ``abs.<v>`` / ``ratio.<v>`` per value.

    Only the `max_bins` most frequent values get detail records (ties broken by value), as
    Deequ's ``maxDetailBins``; nulls count as the value ``NullValue``.

    Examples
    --------
    >>> import pyarrow as pa
    >>> state = FrequencyState(pa.table({"_c0": ["DE", None], "_cnt": [3, 1]}))
    >>> Histogram("country").metric(state).value
    {'bins': 2.0, 'abs.DE': 3.0, 'ratio.DE': 0.75, 'abs.NullValue': 1.0, 'ratio.NullValue': 0.25}
    """

    column: str
    where: str | None = None
    max_bins: int = 1000
    metric_name: ClassVar[str] = "Histogram"
    keep_nulls: ClassVar[bool] = True

    def __post_init__(self) -> None:
        if self.max_bins < 1:
            raise ConfigurationError(f"max_bins must be at least 1, got {self.max_bins}")

    @property
    def columns(self) -> tuple[str, ...]:
        return (self.column,)

    def id_arguments(self) -> list[str]:
        if self.max_bins == 1000:
            return [self.column]
        return [self.column, f"max_bins={self.max_bins}"]

    def window_columns(self, groups: Sequence[str]) -> dict[str, Column]:
        from pyspark.sql import Window
        from pyspark.sql import functions as F

        text = F.coalesce(F.col(value_column(0)).cast("string"), F.lit(NULL_VALUE))
        order = [F.col(COUNT).desc(), text.asc()]
        return {
            "_hist_value": text,
            "_hist_rank": F.row_number().over(Window.partitionBy(*groups).orderBy(*order)),
        }

    def aggregations(self) -> list[Column]:
        from pyspark.sql import functions as F

        top = F.col("_hist_rank") <= self.max_bins
        return [F.collect_list(F.when(top, F.struct("_hist_value", COUNT)))]

    def extra_from_state(self, state: FrequencyState) -> Sequence[Any]:
        if state.table is None:
            return ([],)
        raw = state.table.column(value_column(0)).to_pylist()
        values = [NULL_VALUE if v is None else _as_text(v) for v in raw]
        counts = state.table.column(COUNT).to_pylist()
        pairs = sorted(zip(values, counts, strict=True), key=lambda p: (-p[1], p[0]))
        return (pairs[: self.max_bins],)

    def metric_from_summary(
        self, summary: FrequencySummary, extra: Sequence[Any]
    ) -> dict[str, float]:
        rows = self.checked_rows(summary)
        pairs = sorted(((str(v), int(c)) for v, c in extra[0]), key=lambda p: (-p[1], p[0]))
        value = {"bins": float(summary.distinct)}
        for text, count in pairs:
            value[f"abs.{text}"] = float(count)
            value[f"ratio.{text}"] = count / rows
        return value


def _as_text(value: Any) -> str:
    # Match Spark's cast to string for the common scalar types.
    if isinstance(value, bool):
        return str(value).lower()
    return str(value)

"""Histogram: counts and ratios of a column's most frequent values (nulls included)."""

from __future__ import annotations

import datetime
import math
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np
import pyarrow as pa

from anomaly.analyzers import frequency
from anomaly.errors import ConfigurationError

if TYPE_CHECKING:
    from pyspark.sql import Column

NULL_VALUE = "NullValue"


@dataclass(frozen=True)
class Histogram(frequency.FrequencyAnalyzer):
    """Value distribution of `column`: ``bins`` plus ``abs.<v>`` / ``ratio.<v>`` per value.

    Only the `max_bins` most frequent values get detail records (ties broken by value), as
    Deequ's ``maxDetailBins``; nulls count as the value ``NullValue``.

    Examples
    --------
    >>> import pyarrow as pa
    >>> state = frequency.FrequencyState(pa.table({"_c0": ["DE", None], "_cnt": [3, 1]}))
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

        text = F.coalesce(F.col(frequency.value_column(0)).cast("string"), F.lit(NULL_VALUE))
        order = [F.col(frequency.COUNT).desc(), text.asc()]
        return {
            "_hist_value": text,
            "_hist_rank": F.row_number().over(Window.partitionBy(*groups).orderBy(*order)),
        }

    def aggregations(self) -> list[Column]:
        from pyspark.sql import functions as F

        top = F.col("_hist_rank") <= self.max_bins
        return [F.collect_list(F.when(top, F.struct("_hist_value", frequency.COUNT)))]

    def extra_from_state(self, state: frequency.FrequencyState) -> Sequence[Any]:
        if state.table is None:
            return ([],)
        column = state.table.column(frequency.value_column(0))
        raw = column.to_pylist()
        if pa.types.is_float32(column.type):  # Spark prints the float's own shortest digits
            raw = [None if v is None else float(str(np.float32(v))) for v in raw]
        values = [NULL_VALUE if v is None else _as_text(v) for v in raw]
        counts = state.table.column(frequency.COUNT).to_pylist()
        pairs = sorted(zip(values, counts, strict=True), key=lambda p: (-p[1], p[0]))
        return (pairs[: self.max_bins],)

    def metric_from_summary(
        self, summary: frequency.FrequencySummary, extra: Sequence[Any]
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
    if isinstance(value, float):
        return _java_double_text(value)
    if isinstance(value, datetime.datetime):
        # Arrow gives the session time zone's aware datetime; Spark prints its wall clock time,
        # without the offset and without trailing zeros of the fraction.
        text = value.strftime("%Y-%m-%d %H:%M:%S")
        return f"{text}.{value.microsecond:06d}".rstrip("0") if value.microsecond else text
    return str(value)


def _java_double_text(value: float) -> str:
    """Java's ``Double.toString`` (Spark's cast to string): ``NaN``, ``1.0E7``, ``1.5E-4``.

    >>> [_java_double_text(v) for v in (0.5, 1e7, 1.5e-4, 123456789.0, float("nan"), -1e21)]
    ['0.5', '1.0E7', '1.5E-4', '1.23456789E8', 'NaN', '-1.0E21']
    """
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "Infinity" if value > 0 else "-Infinity"
    if value == 0 or 1e-3 <= abs(value) < 1e7:
        return repr(value)  # plain notation, shortest digits, as Java in this range
    sign, digits, exponent = Decimal(repr(value)).as_tuple()
    assert isinstance(exponent, int)
    text = "".join(map(str, digits)).rstrip("0") or "0"
    power = exponent + len(digits) - 1
    return f"{'-' if sign else ''}{text[0]}.{text[1:] or '0'}E{power}"

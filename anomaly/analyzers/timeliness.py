"""Timeliness: Apache Griffin's latency of records, from event time to arrival (or processing)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

from anomaly.analyzers.base import ScanShareableAnalyzer, finite_or_none
from anomaly.analyzers.columns import col, field_type
from anomaly.analyzers.partly_judged import PartlyJudgedMetric
from anomaly.analyzers.sketch_state import KLL_K, KllState, _SketchState
from anomaly.analyzers.slot import Slot, SlotAnalyzer, SlotValues
from anomaly.analyzers.state import check_same_kind
from anomaly.errors import ConfigurationError

if TYPE_CHECKING:
    from collections.abc import Mapping

    from pyspark.sql import Column
    from pyspark.sql.types import StructType

    from anomaly.metrics import Metric

TIME_TYPES = ("timestamp", "timestamp_ntz", "date")


@dataclass(frozen=True)
class LatencyState(_SketchState):
    """Latencies in seconds: how many, their sum, how many exceeded the threshold, the largest,
    and a KLL sketch of all of them (for percentiles)."""

    kind: ClassVar[str] = "latency"
    count: int
    total: float
    late: int
    maximum: float | None
    sketch: bytes | None

    @classmethod
    def identity(cls) -> LatencyState:
        return cls(0, 0.0, 0, None, None)

    def merge(self, other: LatencyState) -> LatencyState:
        check_same_kind(self, other)
        highest = [v for v in (self.maximum, other.maximum) if v is not None]
        sketch = KllState(self.sketch).merge(KllState(other.sketch)).sketch
        return LatencyState(
            count=self.count + other.count,
            total=self.total + other.total,
            late=self.late + other.late,
            maximum=max(highest) if highest else None,
            sketch=sketch,
        )

    @staticmethod
    def read(sketch: bytes) -> object:
        return KllState.read(sketch)

    def quantile(self, q: float) -> float:
        """The approximate `q` quantile of the latencies (KLL rank error about 1.3%)."""
        return KllState(self.sketch).quantile(q)


@dataclass(frozen=True)
class Timeliness(ScanShareableAnalyzer[LatencyState], SlotAnalyzer[LatencyState]):
    """Latency of records in seconds, from `event_column` to `arrival_column` (Apache Griffin's
    timeliness): mean, percentiles, maximum and, with a `threshold` (seconds), the share of
    records later than it.

    The maximum is stored as context, not judged (one record's delay moves it on any day).
    Without `arrival_column` the latency runs to the processing time (when the run reads the
    record, Spark's ``current_timestamp()``). Records without either time are left out; both
    columns must be timestamps or dates (dates count from midnight UTC).

    Examples
    --------
    >>> a = Timeliness("event_time", "loaded_at", threshold=3600)
    >>> a.metric_id
    'Timeliness(event_time, loaded_at, threshold: 3600s)'
    >>> a.metric(LatencyState(4, 8000.0, 1, 5000.0, None)).value
    {'mean': 2000.0, 'max': 5000.0, 'late_share': 0.25}
    """

    event_column: str
    arrival_column: str | None = None
    threshold: float | None = None
    quantiles: tuple[float, ...] = (0.5, 0.95)
    where: str | None = None
    metric_name: ClassVar[str] = "Timeliness"

    def __post_init__(self) -> None:
        if self.threshold is not None and not (
            math.isfinite(self.threshold) and self.threshold >= 0
        ):
            raise ConfigurationError(
                f"threshold must be a number of seconds >= 0, got {self.threshold!r}"
            )
        for q in self.quantiles:
            if not 0.0 <= q <= 1.0:
                raise ConfigurationError(f"quantiles must be in [0, 1], got {q!r}")
        object.__setattr__(self, "quantiles", tuple(sorted({float(q) for q in self.quantiles})))

    @property
    def columns(self) -> tuple[str, ...]:
        return (self.event_column, *([self.arrival_column] if self.arrival_column else []))

    @property
    def entity(self) -> str:
        return "Column" if self.arrival_column is None else "Multicolumn"

    def id_arguments(self) -> list[str]:
        arguments = list(self.columns)
        if self.threshold is not None:
            arguments.append(f"threshold: {self.threshold:g}s")
        if self.quantiles != (0.5, 0.95):
            arguments.append(f"quantiles: {', '.join(f'{q:g}' for q in self.quantiles)}")
        return arguments

    def check_schema(self, schema: StructType) -> str | None:
        missing = super().check_schema(schema)
        if missing:
            return missing
        for column in self.columns:
            kind = field_type(schema, column).simpleString()
            if kind not in TIME_TYPES:
                return (
                    f"{self.metric_id}: column {column!r} has type {kind}; Timeliness needs "
                    f"timestamps or dates ({', '.join(TIME_TYPES)})"
                )
        return None

    def latency(self, schema: StructType) -> Column:
        """Seconds from the event to the arrival (or processing) of each record."""
        from pyspark.sql import functions as F

        def seconds(column: Column) -> Column:
            return F.unix_micros(column.cast("timestamp")) / 1e6

        arrival = col(schema, self.arrival_column) if self.arrival_column else F.current_timestamp()
        return self.filtered(seconds(arrival) - seconds(col(schema, self.event_column)))

    def aggregations(self, schema: StructType) -> list[Column]:
        from pyspark.sql import functions as F

        latency = self.latency(schema)
        late = F.lit(None) if self.threshold is None else F.when(latency > self.threshold, 1)
        return [
            F.count(latency),
            F.sum(latency),
            F.count(late),
            F.max(latency),
            F.kll_sketch_agg_double(latency, KLL_K),
        ]

    def state_from_row(self, values: Sequence[Any]) -> LatencyState:
        count, total, late, highest, sketch = values[:5]
        return LatencyState(
            count=int(count or 0),
            total=float(total or 0.0),
            late=int(late or 0),
            maximum=finite_or_none(highest),
            sketch=bytes(sketch) if sketch is not None else None,
        )

    def slot(self, schema: StructType) -> Slot | None:
        latency = self.latency(schema)
        late = None if self.threshold is None else latency > self.threshold
        return Slot(number=latency, flag=late)

    def state_from_slot(self, values: SlotValues, schema: StructType) -> LatencyState:
        return LatencyState(
            values.numbers, values.total, values.flagged, values.maximum, values.quantiles
        )

    def empty_state(self) -> LatencyState:
        return LatencyState.identity()

    def metric(self, state: LatencyState, group: Mapping[str, str | None] | None = None) -> Metric:
        return PartlyJudgedMetric.of(super().metric(state, group), frozenset({"max"}))

    def compute_metric(self, state: LatencyState) -> dict[str, float]:
        if state.count == 0:
            raise self.nothing_to_measure("records with both times")
        value = {"mean": state.total / state.count, "max": float(state.maximum or 0.0)}
        if state.sketch is not None:
            value.update({f"p{q * 100:g}": state.quantile(q) for q in self.quantiles})
        if self.threshold is not None:
            value["late_share"] = state.late / state.count
        return value

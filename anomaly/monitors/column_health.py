"""ColumnHealth: the health metrics of one column, by its type, from one slot of the shared pass."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

from anomaly.analyzers.columns import col, field_type
from anomaly.analyzers.partly_judged import PartlyJudgedMetric
from anomaly.analyzers.sketch_state import HllState, KllState
from anomaly.analyzers.slot import Slot, SlotAnalyzer, SlotValues
from anomaly.monitors.health_state import ColumnHealthState, merge_top

if TYPE_CHECKING:
    from collections.abc import Mapping

    from pyspark.sql import Column
    from pyspark.sql.types import DataType, StructType

    from anomaly.metrics import Metric

QUANTILES = {"p25": 0.25, "p50": 0.5, "p75": 0.75}
TOP_SHARES = 5
"""Low-cardinality columns report the share of their most frequent values, this many."""
CONTEXT = frozenset(
    {"minimum", "maximum", "p25", "p75", "min_length", "max_length", "min_size", "max_size",
     "earliest", "latest"}
)  # fmt: skip
"""Measures stored as context, not judged: a sample's extremes (and quartiles, beside the
median, mean and spread) move from run to run when nothing changed; a time column's range
follows the partition."""
INTEGRAL = ("tinyint", "smallint", "int", "bigint")


def category(kind: DataType) -> str:
    """What a column of Spark type `kind` is measured as: ``numeric``, ``fractional`` (numbers
    that can be NaN or infinite), ``string``, ``boolean``, ``time`` (dates and timestamps),
    ``sized`` (binary, arrays, maps: by length) or ``other`` (completeness only).

    >>> from pyspark.sql.types import DoubleType, ArrayType, LongType
    >>> category(DoubleType()), category(ArrayType(LongType())), category(LongType())
    ('fractional', 'sized', 'numeric')
    """
    name = kind.simpleString()
    if name in ("float", "double"):
        return "fractional"
    if name in INTEGRAL or name.startswith("decimal"):
        return "numeric"
    if name.startswith(("string", "varchar", "char")):
        return "string"
    if name == "boolean":
        return "boolean"
    if name in ("date", "timestamp", "timestamp_ntz"):
        return "time"
    if name == "binary" or name.startswith(("array<", "map<")):
        return "sized"
    return "other"


@dataclass(frozen=True)
class ColumnHealth(SlotAnalyzer[ColumnHealthState]):
    """Health of `column`, one record per measure (``ColumnHealth(price)[completeness]``):

    - every column: ``completeness`` (share of non-null rows) and ``distinct_ratio``
      (distinct values per non-null value, estimated: within about 2%, so at times above 1);
    - numbers: ``minimum``, ``maximum``, ``mean``, ``stddev``, ``p25``/``p50``/``p75``,
      ``zero_share``, ``negative_share`` (of non-null values), and for floats
      ``non_finite_share`` (NaN and infinities, left out of the other statistics);
    - text: ``min_length``, ``max_length``, ``mean_length``, ``empty_share`` and, with at most
      20 distinct values, ``share:<value>`` of the five most frequent;
    - booleans: ``true_share``; dates and timestamps: ``earliest``, ``latest`` (epoch seconds);
    - binary, arrays and maps: ``min_size``, ``max_size``, ``mean_size``, ``empty_share``.

    Extremes, quartiles and time ranges are stored as context and not judged (`CONTEXT`). A
    group without rows has nothing to profile: no records (not failures).

    Examples
    --------
    >>> a = ColumnHealth("status")
    >>> state = ColumnHealthState("string", rows=4, present=3, numbers=3, minimum=2.0,
    ...                           maximum=6.0, total=10.0, top=(("ok", 2), ("refund", 1)))
    >>> value = a.metric(state).value
    >>> value["completeness"], value["share:ok"], round(value["mean_length"], 3)
    (0.75, 0.6666666666666666, 3.333)
    """

    column: str
    where: str | None = None
    metric_name: ClassVar[str] = "ColumnHealth"

    @property
    def columns(self) -> tuple[str, ...]:
        return (self.column,)

    def slot(self, schema: StructType) -> Slot | None:
        from pyspark.sql import functions as F

        kind = field_type(schema, self.column)
        measured = category(kind)
        value = col(schema, self.column)
        key: Column = value
        if "map<" in kind.simpleString() or measured == "other":
            key = F.to_json(F.struct(value)) if measured != "other" else F.lit(0)
            key = F.when(value.isNotNull(), key)
        number: Column | None = None
        text: Column | None = None
        if measured in ("numeric", "fractional", "boolean"):
            number = value.cast("double")
            if measured == "fractional":
                number = F.when(~F.isnan(number) & (F.abs(number) != math.inf), number)
        elif measured == "string":
            number, text = F.length(value).cast("double"), value
        elif measured == "time":
            number = F.unix_micros(value.cast("timestamp")) / 1e6
        elif measured == "sized":
            sized = F.length(value) if kind.simpleString() == "binary" else F.size(value)
            number = F.when(value.isNotNull(), sized).cast("double")
        return Slot(
            self.filtered(key),
            None if number is None else self.filtered(number),
            None if text is None else self.filtered(text),
            None if self.where is None else F.expr(self.where),
        )

    def state_from_slot(self, values: SlotValues, schema: StructType) -> ColumnHealthState:
        # The category travels in the state: a metric needs it and sees only the state.
        return ColumnHealthState(
            category(field_type(schema, self.column)),
            values.flagged if self.where else values.rows,
            values.present,
            values.distinct,
            values.numbers,
            values.minimum,
            values.maximum,
            values.total,
            (values.variance or 0.0) * values.numbers,
            values.quantiles,
            values.zeros,
            values.negatives,
            None if values.top is None else merge_top(values.top, ()),
        )

    def empty_state(self) -> ColumnHealthState:
        return ColumnHealthState.identity()

    def metric(
        self, state: ColumnHealthState, group: Mapping[str, str | None] | None = None
    ) -> Metric:
        return PartlyJudgedMetric.of(super().metric(state, group), CONTEXT)

    def compute_metric(self, state: ColumnHealthState) -> dict[str, float]:
        if state.rows == 0:
            return {}  # nothing to profile: the volume monitor reports the empty run
        value = {"completeness": state.present / state.rows}
        if state.present:
            value["distinct_ratio"] = HllState(state.distinct).estimate() / state.present
            value.update(_by_category(state))
        return value


def _by_category(state: ColumnHealthState) -> dict[str, float]:
    """The measures of a column with values, by what kind of column it is."""
    kind, present = state.category, state.present
    value: dict[str, float] = {}
    numbers = state.numbers
    if kind in ("numeric", "fractional") and numbers:
        value.update(
            minimum=float(state.minimum or 0.0), maximum=float(state.maximum or 0.0),
            mean=state.total / numbers, stddev=math.sqrt(max(state.m2, 0.0) / numbers),
            zero_share=state.zeros / present, negative_share=state.negatives / present,
        )  # fmt: skip
        sketch = KllState(state.quantiles)
        if sketch.count:
            value.update({name: sketch.quantile(q) for name, q in QUANTILES.items()})
    if kind == "fractional":
        value["non_finite_share"] = (present - numbers) / present
    if kind == "string" and numbers:
        value.update(_lengths(state, "length"), empty_share=state.zeros / present)
        if state.top:
            value.update({f"share:{v}": n / present for v, n in state.top[:TOP_SHARES]})
    if kind == "boolean" and numbers:
        value["true_share"] = state.total / numbers
    if kind == "time" and numbers:
        value.update(earliest=float(state.minimum or 0.0), latest=float(state.maximum or 0.0))
    if kind == "sized" and numbers:
        value.update(_lengths(state, "size"), empty_share=state.zeros / present)
    return value


def _lengths(state: ColumnHealthState, what: str) -> dict[str, float]:
    return {
        f"min_{what}": float(state.minimum or 0.0),
        f"max_{what}": float(state.maximum or 0.0),
        f"mean_{what}": state.total / state.numbers,
    }

"""Analyzer base classes: identity (metric id), preconditions, state -> metric.

As in Schelter et al., ICDE 2019, §III.
"""

from __future__ import annotations

import hashlib
import math
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, ClassVar, Generic, TypeVar

from anomaly.analyzers.columns import field_type, missing_column
from anomaly.analyzers.numbers import parse_checks, parse_failure
from anomaly.analyzers.state import State
from anomaly.errors import MetricComputationError
from anomaly.metrics import Metric, MetricValue

if TYPE_CHECKING:
    from pyspark.sql import Column, DataFrame
    from pyspark.sql.types import StructType

S = TypeVar("S", bound=State)

INTEGRAL_TYPES = ("tinyint", "smallint", "int", "bigint")
NUMERIC_TYPES = (*INTEGRAL_TYPES, "float", "double")


def is_numeric(kind: str) -> bool:
    """Whether a Spark simple type name is numeric."""
    return kind in NUMERIC_TYPES or kind.startswith("decimal")


class Analyzer(ABC, Generic[S]):
    """A declarative description of one metric; subclasses are frozen dataclasses.

    Equal analyzers have equal `metric_id` s in every process: the id is built from fields only.
    """

    metric_name: ClassVar[str]
    where: str | None

    @property
    @abstractmethod
    def columns(self) -> tuple[str, ...]:
        """Columns the analyzer reads (empty for dataset-level metrics), as the user wrote them.

        How a name is resolved (literal column first, then a struct field path): see
        `anomaly.analyzers.columns`.
        """

    @property
    def entity(self) -> str:
        """``Dataset``, ``Column`` or ``Multicolumn``, as Deequ names them."""
        return {0: "Dataset", 1: "Column"}.get(len(self.columns), "Multicolumn")

    @property
    def instance(self) -> str:
        """``*`` for the dataset, else the column name(s) joined by commas."""
        return ",".join(self.columns) or "*"

    def id_arguments(self) -> list[str]:
        """The arguments shown in the metric id; the columns unless a subclass adds more."""
        return list(self.columns)

    @property
    def metric_id(self) -> str:
        """Stable, human-readable identity, e.g. ``Mean(price) where: country = 'DE'``."""
        text = f"{self.metric_name}({', '.join(self.id_arguments())})"
        return f"{text} where: {self.where}" if self.where else text

    def __str__(self) -> str:
        return self.metric_id

    def check_schema(self, schema: StructType) -> str | None:
        """Why the analyzer cannot run on `schema`, or None. Missing columns by default."""
        missing = missing_column(schema, self.columns)
        if missing is None:
            return None
        # A dotted name may be meant as a struct field path: say that it is neither.
        how = " (neither as a column nor as a struct field path)" if "." in missing else ""
        return (
            f"{self.metric_id}: column {missing!r} does not exist{how}; "
            f"available columns: {sorted(set(schema.names))}"
        )

    def expressions(self, schema: StructType) -> list[str]:
        """SQL expressions the analyzer evaluates; the runner validates them before any job."""
        return [self.where] if self.where else []

    def column_type(self, schema: StructType, column: str) -> str:
        """The Spark simple type name of `column` (``double``, ``string``...)."""
        return field_type(schema, column).simpleString()

    def require_numeric(self, schema: StructType) -> str | None:
        """Precondition shared by analyzers that need numbers: numeric columns, or text that
        holds numbers (checked when the data is read, see `anomaly.analyzers.numbers`)."""
        missing = Analyzer.check_schema(self, schema)
        if missing:
            return missing
        for column in self.columns:
            kind = self.column_type(schema, column)
            if not is_numeric(kind) and kind != "string":
                return (
                    f"{self.metric_id}: column {column!r} has type {kind}; {self.metric_name} "
                    f"needs a numeric column ({', '.join(NUMERIC_TYPES)}, decimal) or text "
                    "holding numbers"
                )
        return None

    @abstractmethod
    def empty_state(self) -> S:
        """The identity state for this analyzer."""

    @abstractmethod
    def compute_metric(self, state: S) -> MetricValue:
        """The metric value; raises `MetricComputationError` when it is undefined for `state`."""

    def metric(self, state: S, group: Mapping[str, str | None] | None = None) -> Metric:
        """The metric of `state` as a value or a failure (errors as values)."""
        try:
            value = self.compute_metric(state)
        except MetricComputationError as failure:
            return self.failure(str(failure), group)
        return Metric(
            self.entity, self.instance, self.metric_name, self.metric_id, value, None, group or {}
        )

    def failure(self, message: str, group: Mapping[str, str | None] | None = None) -> Metric:
        """A failed metric of this analyzer."""
        return Metric(
            self.entity, self.instance, self.metric_name, self.metric_id, None, message, group or {}
        )

    def condition(self) -> Column:
        """The where filter as a Spark column (true when there is none)."""
        from pyspark.sql import functions as F

        return F.expr(self.where) if self.where else F.lit(True)

    def filtered(self, column: Column) -> Column:
        """`column` where the filter holds, else null (aggregates skip nulls)."""
        from pyspark.sql import functions as F

        return F.when(self.condition(), column) if self.where else column

    def nothing_to_measure(self, what: str = "rows") -> MetricComputationError:
        """The failure for an empty state, naming the filter so the user can see why."""
        scope = f" matching where: {self.where}" if self.where else ""
        return MetricComputationError(
            f"{self.metric_id}: no {what}{scope}; the metric needs at least one"
        )


class ScanShareableAnalyzer(Analyzer[S]):
    """An analyzer whose state comes from aggregate expressions that share one scan."""

    reads_numbers: ClassVar[bool] = False
    """Whether the analyzer reads its columns as numbers (text columns with ``try_cast``)."""

    @abstractmethod
    def aggregations(self, schema: StructType) -> list[Column]:
        """Spark aggregate expressions; their results are handed to `state_from_row`."""

    @abstractmethod
    def state_from_row(self, values: Sequence[Any]) -> S:
        """The state from this analyzer's slice of the aggregation row."""

    def parse_checks(self, schema: StructType) -> list[Column]:
        """Aggregates that find text values that are no numbers, for analyzers that read text
        columns as numbers (`reads_numbers`); handed to `parse_failure`."""
        if not self.reads_numbers:
            return []
        return parse_checks(schema, self.columns, self.filtered)

    def parse_failure(self, schema: StructType, values: Sequence[Any]) -> str | None:
        """Why the metric fails when `values` of `parse_checks` found text that is no number."""
        if not self.reads_numbers:
            return None
        return parse_failure(schema, self.columns, values)

    def projections(self, schema: StructType) -> dict[str, Column]:
        """Columns computed once per row before the shared aggregation, by name, for an
        expensive expression several of the analyzer's aggregates use: Spark evaluates an
        expression again in every aggregate that holds it. None by default.

        A name must stand for one expression across all analyzers: derive it from what the
        expression depends on (see `projection_name`)."""
        return {}


def projection_name(kind: str, *parts: str) -> str:
    """A column name for a projection of `kind` over `parts` that no user column has.

    >>> projection_name("type", "price")
    '__anomaly_type_683b531f41ec88a2'
    """
    digest = hashlib.sha256("\x00".join(parts).encode()).hexdigest()[:16]
    return f"__anomaly_{kind}_{digest}"


def finite_or_none(value: Any) -> float | None:
    """A float from a Spark aggregate, None for null (the state of no values)."""
    return None if value is None else float(value)


def ratio(numerator: float, denominator: float) -> float:
    """Division that keeps NaN for 0/0 explicit instead of raising."""
    return numerator / denominator if denominator else math.nan


class DataFrameAnalyzer(Analyzer[S]):
    """An analyzer that needs its own Spark work (a model, a join): Algorithm 1, line 10.

    The runner calls `compute_states` once per run; it must not raise for data problems but
    return an error message instead, so the run's other metrics survive.
    """

    @abstractmethod
    def compute_states(
        self, df: DataFrame, groups: Sequence[str]
    ) -> dict[tuple[Any, ...], S | str]:
        """Group key (``()`` when not grouped) -> state, or a message saying why it failed."""

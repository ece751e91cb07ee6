"""Executing analyzers on Spark with the fewest passes (Schelter et al., ICDE 2019, Algorithm 1).

All scan-shareable analyzers run in one aggregation; frequency analyzers run once per
(columns, where, nulls) set, all their metrics from one aggregation over that frequency table.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import pyarrow as pa

from anomaly.analyzers.base import ScanShareableAnalyzer
from anomaly.analyzers.columns import col
from anomaly.analyzers.frequency import (
    COUNT,
    FrequencyAnalyzer,
    FrequencyState,
    FrequencySummary,
    value_column,
)
from anomaly.errors import job_error_message
from anomaly.metrics import GroupKey, MetricValue, group_key

if TYPE_CHECKING:
    from pyspark.sql import Column, DataFrame

    from anomaly.analyzers.state import State

Outcome = dict[tuple[Any, GroupKey], "State | MetricValue | str"]
"""(analyzer, group) -> a state, a metric value, or an error message."""


def group_column(i: int) -> str:
    """Positional name of the i-th group_by column inside frequency tables."""
    return f"_g{i}"


def shared_scan(
    df: DataFrame, analyzers: Sequence[ScanShareableAnalyzer[Any]], groups: Sequence[str]
) -> Outcome:
    """States of all `analyzers` from ONE aggregation; isolates failures if that job fails."""
    if not analyzers:
        return {}
    try:
        return _aggregate(df, analyzers, groups)
    except Exception as error:  # a runtime error (bad regex, overflow) must not sink every metric
        if len(analyzers) == 1:
            return {(analyzers[0], ()): job_error_message(error)}
    outcome: Outcome = {}
    for analyzer in analyzers:
        outcome.update(shared_scan(df, [analyzer], groups))
    return outcome


def _aggregate(
    df: DataFrame, analyzers: Sequence[ScanShareableAnalyzer[Any]], groups: Sequence[str]
) -> Outcome:
    schema = df.schema
    expressions = [a.aggregations(schema) for a in analyzers]
    # Analyzers reading text as numbers also count the values that are no numbers.
    checks = [a.parse_checks(schema) for a in analyzers]
    flat = [e for exprs, more in zip(expressions, checks, strict=True) for e in (*exprs, *more)]
    keys = [col(schema, g) for g in groups]  # a group name is resolved as analyzers' columns are
    projected = {name: c for a in analyzers for name, c in a.projections(schema).items()}
    data = df.withColumns(projected) if projected else df
    rows = data.groupBy(*keys).agg(*flat).collect() if groups else [data.agg(*flat).collect()[0]]
    outcome: Outcome = {}
    width = len(groups)
    for row in rows:
        key, values, offset = group_key(row[:width]), row[width:], 0
        for analyzer, exprs, more in zip(analyzers, expressions, checks, strict=True):
            own = values[offset : offset + len(exprs)]
            parsed = values[offset + len(exprs) : offset + len(exprs) + len(more)]
            offset += len(exprs) + len(more)
            failure = analyzer.parse_failure(schema, parsed)
            outcome[(analyzer, key)] = failure or analyzer.state_from_row(own)
    return outcome


@dataclass(frozen=True)
class FrequencySet:
    """Analyzers that share one frequency table: same columns, filter and null handling."""

    columns: tuple[str, ...]
    where: str | None
    keep_nulls: bool

    @classmethod
    def of(cls, analyzer: FrequencyAnalyzer) -> FrequencySet:
        return cls(analyzer.columns, analyzer.where, analyzer.keep_nulls)

    def table(self, df: DataFrame, groups: Sequence[str]) -> DataFrame:
        """Value-tuple counts per group: columns ``_g*``, ``_c*``, ``_cnt``."""
        from pyspark.sql import functions as F

        schema = df.schema
        data = df.where(F.expr(self.where)) if self.where else df
        if not self.keep_nulls:
            any_value = F.lit(False)
            for column in self.columns:
                any_value = any_value | col(schema, column).isNotNull()
            data = data.where(any_value)
        keys = [col(schema, g).alias(group_column(i)) for i, g in enumerate(groups)]
        keys += [col(schema, c).alias(value_column(i)) for i, c in enumerate(self.columns)]
        return data.groupBy(*keys).agg(F.count(F.lit(1)).alias(COUNT))


def frequency_metrics(
    df: DataFrame, fset: FrequencySet, analyzers: Sequence[FrequencyAnalyzer], groups: Sequence[str]
) -> Outcome:
    """Metrics of every analyzer of `fset` from one aggregation over its frequency table."""
    from pyspark.sql import functions as F

    keys = [group_column(i) for i in range(len(groups))]
    windows: dict[str, Column] = {}
    for analyzer in analyzers:
        windows.update(analyzer.window_columns(keys))
    extras = [analyzer.aggregations() for analyzer in analyzers]
    flat = [*FrequencySummary.aggregations(), *(e for exprs in extras for e in exprs)]
    try:
        table = fset.table(df, groups)
        table = table.withColumns(windows) if windows else table
        rows = table.groupBy(*[F.col(k) for k in keys]).agg(*flat).collect()
    except Exception as error:
        return {(a, ()): job_error_message(error) for a in analyzers}
    outcome: Outcome = {}
    for row in rows:
        key, values = group_key(row[: len(keys)]), row[len(keys) :]
        summary, offset = FrequencySummary.from_row(values), 4
        for analyzer, exprs in zip(analyzers, extras, strict=True):
            extra = values[offset : offset + len(exprs)]
            offset += len(exprs)
            outcome[(analyzer, key)] = _metric_value(analyzer, summary, extra)
    return outcome


def _metric_value(analyzer: FrequencyAnalyzer, summary: FrequencySummary, extra: Any) -> Any:
    from anomaly.errors import MetricComputationError

    try:
        return analyzer.metric_from_summary(summary, extra)
    except MetricComputationError as failure:
        return str(failure)


def frequency_states(
    df: DataFrame, fset: FrequencySet, analyzers: Sequence[FrequencyAnalyzer], groups: Sequence[str]
) -> Outcome:
    """One `FrequencyState` per group, collected as Arrow (when states must be kept)."""
    try:
        table = fset.table(df, groups).toArrow()
    except Exception as error:
        return {(a, ()): job_error_message(error) for a in analyzers}
    keys = [group_column(i) for i in range(len(groups))]
    values = [c for c in table.column_names if c not in keys]
    outcome: Outcome = {}
    for key, part in _split(table, keys):
        state = FrequencyState(part.select(values))
        for analyzer in analyzers:
            outcome[(analyzer, key)] = state
    return outcome


def _split(table: pa.Table, keys: list[str]) -> list[tuple[GroupKey, pa.Table]]:
    if not keys:
        return [((), table)]
    # Python values (not pandas') so group keys equal those of the shared scan's Spark rows.
    columns = [table.column(k).to_pylist() for k in keys]
    indices: dict[GroupKey, list[int]] = {}
    for i, key in enumerate(map(group_key, zip(*columns, strict=True))):
        indices.setdefault(key, []).append(i)
    return [(key, table.take(pa.array(index))) for key, index in indices.items()]

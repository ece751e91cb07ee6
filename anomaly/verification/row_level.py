"""Row-level results: which rows satisfy which row-level constraint of a verification run.

A constraint has a row-level verdict when its metric is a share of rows: completeness,
compliance (``satisfies``, ``is_contained_in``, ``is_in_range``, ``is_non_negative``...),
pattern, uniqueness and data type. The verdict of a row is true or false; null means the row does
not count for the metric (outside the constraint's ``where``, a null key for uniqueness, a null
value for the type), so the share of true verdicts among non-null ones is the metric.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from anomaly.analyzers import Completeness, Compliance, DataType, PatternMatch, Uniqueness
from anomaly.analyzers.base import projection_name
from anomaly.analyzers.columns import col, quote
from anomaly.analyzers.data_type import value_type
from anomaly.checks import Check, Constraint
from anomaly.checks.consistency_constraints import (
    NUMBER_TYPES,
    dominant_type,
    dominant_type_ratio,
)
from anomaly.engine.context import AnalyzerContext
from anomaly.errors import AnalysisError, spark_error_message
from anomaly.metrics import GroupKey
from anomaly.verification.duplicates import unique_verdict

if TYPE_CHECKING:
    from pyspark.sql import Column, DataFrame
    from pyspark.sql.types import StructType

ROW_LEVEL = (Completeness, Compliance, PatternMatch, Uniqueness, DataType)


@dataclass(frozen=True)
class RowRule:
    """One row-level constraint of one check, and the name of its verdict column."""

    name: str
    check: Check
    constraint: Constraint

    @property
    def every_row(self) -> bool:
        """Whether the constraint needs every row to pass (its assertion accepts a share of 1
        but nothing below): only then is a failing row a violation by itself."""
        try:
            below = math.nextafter(1.0, 0.0)
            return bool(self.constraint.assertion(1.0)) and not self.constraint.assertion(below)
        except Exception:  # an assertion that cannot judge a plain share is not a row rule
            return False

    def verdict(
        self, data: DataFrame, schema: StructType, metrics: Sequence[AnalyzerContext]
    ) -> tuple[DataFrame, Column]:
        """The boolean verdict column (null where the row does not count) over `data` (the
        input, with what earlier rules joined to it; `schema` is the input's).

        A constraint whose metric is 1 in the run (in every group) has no failing row: its
        verdict is true wherever a row counts, and nothing is evaluated per row, so the passing
        constraints of a run cost nothing here. The run must have been on the same data.
        """
        from pyspark.sql import functions as F

        analyzer = self.constraint.analyzer
        problem = analyzer.check_schema(schema)
        if problem:
            raise AnalysisError(f"row_level: {self.name} cannot be judged per row: {problem}")
        context = _context(metrics, self.check)
        if self._held(context):
            verdict = F.when(self._counted(schema), F.lit(True))
        elif isinstance(analyzer, Completeness):
            verdict = col(schema, analyzer.column).isNotNull()
        elif isinstance(analyzer, Compliance):
            verdict = F.coalesce(F.expr(analyzer.sql(schema)), F.lit(False))
        elif isinstance(analyzer, PatternMatch):
            verdict = F.coalesce(col(schema, analyzer.column).rlike(analyzer.pattern), F.lit(False))
        elif isinstance(analyzer, Uniqueness):
            counted = self._counted(schema)
            if analyzer.where:
                counted = counted & F.coalesce(F.expr(analyzer.where), F.lit(False))
            keys = [*self.check.group_by, *analyzer.columns]
            data, verdict = unique_verdict(data, keys, counted, self.marker)
        else:
            verdict = self._typed(schema, context)
        return data, F.when(F.expr(analyzer.where), verdict) if analyzer.where else verdict

    @property
    def marker(self) -> str:
        """A helper column the verdict may need (dropped once the verdicts are computed)."""
        return projection_name("row", self.check.description, self.name)

    def _held(self, context: AnalyzerContext) -> bool:
        """Whether the run measured a share of 1 (no failing row) in every group."""
        metrics = list(context.for_analyzer(self.constraint.analyzer).values())
        try:
            return bool(metrics) and all(
                m.succeeded and m.value is not None and self.constraint.pick(m.value) == 1.0
                for m in metrics
            )
        except (KeyError, ValueError):  # no values to type: nothing held
            return False

    def _counted(self, schema: StructType) -> Column:
        """Rows the metric counts (before `where`): a key with a value for uniqueness, a value
        for the type, every row otherwise."""
        from pyspark.sql import functions as F

        analyzer = self.constraint.analyzer
        if isinstance(analyzer, Uniqueness | DataType):
            counted = F.lit(False)
            for column in analyzer.columns:
                counted = counted | col(schema, column).isNotNull()
            return counted
        return F.lit(True)

    def _typed(self, schema: StructType, context: AnalyzerContext) -> Column:
        """The row's value has the type most values of its group have (integers count as
        decimals in a column of decimals, as in `dominant_type`)."""
        from pyspark.sql import functions as F

        analyzer = self.constraint.analyzer
        dominant: dict[GroupKey, str] = {}
        for group, metric in context.for_analyzer(analyzer).items():
            if metric.succeeded and isinstance(metric.value, Mapping):
                dominant[group] = dominant_type(metric.value)[0]
        kind = value_type(schema, analyzer.columns[0])
        expected: Column = F.lit(None).cast("string")
        for group, name in dominant.items():
            same = F.lit(True)
            for column, value in zip(self.check.group_by, group, strict=True):
                same = same & col(schema, column).eqNullSafe(F.lit(value))
            expected = F.when(same, F.lit(name)).otherwise(expected)
        accepted = F.when(expected == "Fractional", F.array(*map(F.lit, NUMBER_TYPES)))
        accepted = accepted.otherwise(F.array(expected))
        return F.when(kind != "Unknown", F.array_contains(accepted, kind))


def _context(metrics: Sequence[AnalyzerContext], check: Check) -> AnalyzerContext:
    for context in metrics:
        if context.group_columns == check.group_by:
            return (context.delta or context) if check.on == "delta" else context
    raise AnalysisError(f"row_level: no metrics of check {check.description!r} in the result")


def row_rules(checks: Sequence[Check], reserved: Sequence[str] = ()) -> list[RowRule]:
    """The row-level constraints of `checks`, each with a unique verdict column name: the
    constraint's name, with ``[check description]`` when two checks share it."""
    found = [
        (check, c)
        for check in checks
        for c in check.metric_constraints
        if isinstance(c.analyzer, ROW_LEVEL)
        and (not isinstance(c.analyzer, DataType) or c.pick is dominant_type_ratio)
    ]
    counts: dict[str, int] = {}
    for _, constraint in found:
        counts[constraint.name] = counts.get(constraint.name, 0) + 1
    rules: list[RowRule] = []
    taken = set(reserved)
    for check, constraint in found:
        name = constraint.name
        if counts[name] > 1:
            name = f"{name} [{check.description}]"
        base, n = name, 2
        while name in taken:
            if base in reserved:
                raise AnalysisError(
                    f"row_level: the verdict column {base!r} would replace a column of the "
                    "data; rename that column or the check"
                )
            name, n = f"{base} #{n}", n + 1
        taken.add(name)
        rules.append(RowRule(name, check, constraint))
    return rules


def with_verdicts(
    df: DataFrame, rules: Sequence[RowRule], metrics: Sequence[AnalyzerContext]
) -> DataFrame:
    """`df` plus one boolean column per rule, in one projection (after one small job per
    uniqueness rule that has duplicates, see `unique_verdict`)."""
    schema, data = df.schema, df
    verdicts: dict[str, Column] = {}
    try:
        for rule in rules:
            data, verdicts[rule.name] = rule.verdict(data, schema, metrics)
        markers = [c for c in data.columns if c not in df.columns]
        return data.withColumns(verdicts).drop(*markers)
    except AnalysisError:
        raise
    except Exception as error:  # a predicate or filter that does not resolve on this data
        raise AnalysisError(f"row_level: {spark_error_message(error)}") from error


def select_rules(rules: Sequence[RowRule], names: Sequence[str] | None) -> list[RowRule]:
    """The rules a split decides on: `names`, or those that need every row to pass."""
    if names is None:
        return [rule for rule in rules if rule.every_row]
    by_name = {rule.name: rule for rule in rules}
    unknown = [n for n in names if n not in by_name]
    if unknown:
        raise AnalysisError(
            f"split: {unknown} are not row-level constraints of this result; "
            f"row-level constraints: {sorted(by_name)}"
        )
    return [by_name[n] for n in names]


def failed_names(rules: Sequence[RowRule]) -> Column:
    """An array with the names of the rules whose verdict is false (empty when none)."""
    from pyspark.sql import functions as F

    if not rules:
        return F.array().cast("array<string>")
    flagged = [F.when(~F.col(quote(r.name)), F.lit(r.name)) for r in rules]
    return F.array_compact(F.array(*flagged))

"""VerificationResult: the statuses and one report row per constraint and group."""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import pandas as pd

from anomaly.analyzers.columns import quote
from anomaly.checks import Check, CheckLevel, CheckStatus, ConstraintResult
from anomaly.engine.context import AnalyzerContext
from anomaly.errors import AnalysisError, VerificationFailed
from anomaly.verification.row_level import failed_names, row_rules, select_rules, with_verdicts
from detectors import BudgetOutcome

if TYPE_CHECKING:
    from pyspark.sql import DataFrame

ROW_COLUMNS = [
    "check",
    "level",
    "constraint",
    "predicate",
    "status",
    "message",
    "value",
    "lower",
    "upper",
    "metric_id",
    "detector",
    "history_length",
]


@dataclass(frozen=True)
class CheckResult:
    """The outcome of one check: its status and its constraint rows."""

    check: Check
    status: CheckStatus
    rows: list[ConstraintResult]


@dataclass(frozen=True)
class VerificationResult:
    """The outcome of a verification run.

    `status` is the worst check status. `rows` has one `ConstraintResult` per constraint (and
    per group for grouped checks). `metrics` are the computed metrics, one context per
    ``group_by`` set (merged with stored states when the suite aggregates).
    """

    status: CheckStatus
    check_results: list[CheckResult]
    metrics: list[AnalyzerContext]
    ingested: bool | None = None
    """With ``validate_partition``/``save_states_with``: whether the new states were stored."""
    budget: BudgetOutcome | None = None
    """With ``with_alert_budget``: what the budget did (threshold, alerts held back)."""

    @property
    def rows(self) -> list[ConstraintResult]:
        """Every constraint row of every check."""
        return [row for result in self.check_results for row in result.rows]

    def to_pandas(self) -> pd.DataFrame:
        """One row per constraint and group: check, level, constraint, predicate, status, message,
        value, lower, upper, metric_id, detector, history_length, then the group columns."""
        group_columns = list(dict.fromkeys(k for row in self.rows for k in row.group))
        records = []
        for row in self.rows:
            record: dict[str, Any] = {c: getattr(row, c) for c in ROW_COLUMNS}
            record["level"] = row.level.value
            record["status"] = row.status.value
            record.update({g: row.group.get(g) for g in group_columns})
            records.append(record)
        return pd.DataFrame(records, columns=[*ROW_COLUMNS, *group_columns])

    def to_json(self, indent: int | None = 2) -> str:
        """The report as JSON: overall status, per-check statuses and every row."""
        rows = self.to_pandas().astype(object)
        payload = {
            "status": self.status.value,
            "checks": [
                {
                    "check": r.check.description,
                    "level": r.check.level.value,
                    "status": r.status.value,
                }
                for r in self.check_results
            ],
            "rows": [
                {k: _json_value(v) for k, v in row.items()} for row in rows.to_dict("records")
            ],
        }
        return json.dumps(payload, indent=indent)

    def row_level(self, df: DataFrame) -> DataFrame:
        """`df` plus one boolean column per row-level constraint, computed in one pass.

        Row-level constraints: completeness, compliance (``satisfies``, ``satisfies_if``,
        ``is_contained_in``, ``is_in_range``, ``is_non_negative``, ``is_positive``,
        ``is_less_than``), ``has_pattern``, uniqueness (``is_unique``, ``has_uniqueness``,
        a count over the key per group) and type (``has_consistent_type``). A column is named
        after its constraint (``is_complete(id)``; ``... [check]`` when checks share a name).
        Null means the row does not count for that constraint's metric: outside its ``where``,
        a null key, a null value for the type. `df` is the data the suite ran on.
        """
        rules = row_rules(self.checks, reserved=df.columns)
        return with_verdicts(df, rules, self.metrics)

    def flag(
        self,
        df: DataFrame,
        constraints: Sequence[str] | None = None,
        column: str = "failed_constraints",
    ) -> DataFrame:
        """`df` plus `column`: an array naming the deciding row-level constraints each row
        violates (empty when none). One pass; write it once, partitioned by whether `column`
        is empty, to keep good and quarantined rows apart without a second pass.

        Deciding by default: the row-level constraints every row must pass (``is_complete``,
        ``is_unique``, ``satisfies`` with its default assertion...); a constraint that allows
        a share of failing rows (``has_completeness(c, at_least(0.9))``) decides only when
        named in `constraints` (verdict column names, as `row_level` names them).
        """
        from pyspark.sql import functions as F

        if column in df.columns:
            raise AnalysisError(f"flag: the data already has a column {column!r}; pass column=")
        rules = select_rules(row_rules(self.checks, reserved=df.columns), constraints)
        flagged = with_verdicts(df, rules, self.metrics).withColumn(column, failed_names(rules))
        return flagged.select(*(F.col(quote(c)) for c in [*df.columns, column]))

    def split(
        self,
        df: DataFrame,
        constraints: Sequence[str] | None = None,
        column: str = "failed_constraints",
    ) -> tuple[DataFrame, DataFrame]:
        """``(passed, failed)``: the rows of `df` that violate none of the deciding row-level
        constraints, with `df`'s columns, and the rows that violate one, plus `column` naming
        the constraints (see `flag`). The two add up to `df`; each is a pass over it.
        """
        from pyspark.sql import functions as F

        flagged = self.flag(df, constraints, column)
        passed = flagged.where(F.size(column) == 0).drop(column)
        return passed, flagged.where(F.size(column) > 0)

    @property
    def checks(self) -> list[Check]:
        """The checks of the run, in order."""
        return [r.check for r in self.check_results]

    def raise_for_status(self, level: CheckLevel | str = CheckLevel.ERROR) -> None:
        """Raise `VerificationFailed` when the status is at least `level` (halts a pipeline)."""
        threshold = CheckStatus.of_level(CheckLevel(level))
        if self.status.severity >= threshold.severity:
            failing = [r for r in self.rows if r.failed]
            lines = [
                f"- {r.check}: {r.constraint}{f' {dict(r.group)}' if r.group else ''}: {r.message}"
                for r in failing
            ]
            raise VerificationFailed(
                f"verification {self.status.value}: {len(failing)} constraint(s) failed\n"
                + "\n".join(lines)
            )


def _json_value(value: Any) -> Any:
    if isinstance(value, float) and math.isnan(value):
        return None
    return value

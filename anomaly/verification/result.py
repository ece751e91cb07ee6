"""VerificationResult: the statuses and one report row per constraint and group."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import Any

import pandas as pd

from anomaly.checks import Check, CheckLevel, CheckStatus, ConstraintResult
from anomaly.context import AnalyzerContext
from anomaly.errors import VerificationFailed
from detectors import BudgetOutcome

ROW_COLUMNS = [
    "check", "level", "constraint", "predicate", "status", "message", "value", "lower", "upper",
    "metric_id", "detector", "history_length",
]  # fmt: skip


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
                {"check": r.check.description, "level": r.check.level.value,
                 "status": r.status.value}
                for r in self.check_results
            ],
            "rows": [
                {k: _json_value(v) for k, v in row.items()} for row in rows.to_dict("records")
            ],
        }  # fmt: skip
        return json.dumps(payload, indent=indent)

    def raise_for_status(self, level: CheckLevel | str = CheckLevel.ERROR) -> None:
        """Raise `VerificationFailed` when the status is at least `level` (halts a pipeline)."""
        threshold = CheckStatus.of_level(CheckLevel(level))
        if self.status.severity >= threshold.severity:
            failing = [r for r in self.rows if r.failed]
            lines = [f"- {r.check}: {r.constraint} {dict(r.group) or ''} {r.message}"
                     for r in failing]  # fmt: skip
            raise VerificationFailed(
                f"verification {self.status.value}: {len(failing)} constraint(s) failed\n"
                + "\n".join(lines)
            )


def _json_value(value: Any) -> Any:
    if isinstance(value, float) and math.isnan(value):
        return None
    return value

"""A suite's alert budget: which anomaly rows of a run still fail their checks."""

from __future__ import annotations

from dataclasses import replace

from anomaly.checks import CheckStatus, ConstraintResult, ConstraintStatus
from anomaly.verification.result import CheckResult
from detectors import AlertBudget, BudgetOutcome


def apply_budget(
    results: list[CheckResult], budget: AlertBudget, checks_per_week: float
) -> tuple[list[CheckResult], BudgetOutcome]:
    """``results`` with the anomaly rows the budget does not admit turned ``held back`` (they
    no longer fail their check) and check statuses recomputed.

    Every ``has_no_anomalies`` row judged this run (success or failure, every group) counts as
    one series checked.
    """
    judged = [
        (i, j, row)
        for i, result in enumerate(results)
        for j, row in enumerate(result.rows)
        if row.detector is not None
        and row.history_length is not None
        and row.status in (ConstraintStatus.SUCCESS, ConstraintStatus.FAILURE)
    ]
    keep, outcome = budget.apply(
        [row.p_value for _, _, row in judged],
        [row.status is ConstraintStatus.FAILURE for _, _, row in judged],
        checks_per_week,
    )
    rows = [list(result.rows) for result in results]
    for (i, j, row), kept in zip(judged, keep.tolist(), strict=True):
        if row.status is ConstraintStatus.FAILURE and not kept:
            rows[i][j] = _held(row, outcome)
    updated = []
    for result, new_rows in zip(results, rows, strict=True):
        failed = any(r.failed for r in new_rows)
        status = CheckStatus.of_level(result.check.level) if failed else CheckStatus.SUCCESS
        updated.append(CheckResult(result.check, status, new_rows))
    return updated, outcome


def _held(row: ConstraintResult, outcome: BudgetOutcome) -> ConstraintResult:
    why = (
        f"Held back by the alert budget (p = {row.p_value:.2g}; {outcome.rule} admits "
        f"p < {outcome.threshold:.2g})"
    )
    return replace(row, status=ConstraintStatus.HELD_BACK, message=f"{why}: {row.message}")

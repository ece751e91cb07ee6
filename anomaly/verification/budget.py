"""A suite's alert budget: which anomaly rows of a run still fail their checks."""

from __future__ import annotations

from dataclasses import replace

from anomaly.checks import CheckStatus, ConstraintStatus
from anomaly.judging.budget import HELD_BACK, held_back, held_reason
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
        if row.verdict is not None
        and row.history_length is not None
        and row.status in (ConstraintStatus.SUCCESS, ConstraintStatus.FAILURE)
    ]
    held, outcome = held_back(
        [row.p_value for _, _, row in judged],
        [row.status is ConstraintStatus.FAILURE for _, _, row in judged],
        budget,
        checks_per_week,
    )
    rows = [list(result.rows) for result in results]
    for (i, j, row), flag in zip(judged, held, strict=True):
        if flag:
            message = held_reason(row.p_value, outcome, row.message)
            verdict = row.verdict and replace(row.verdict, status=HELD_BACK, detail=message)
            rows[i][j] = replace(
                row, status=ConstraintStatus.HELD_BACK, message=message, verdict=verdict
            )
    updated = []
    for result, new_rows in zip(results, rows, strict=True):
        failed = any(r.failed for r in new_rows)
        status = CheckStatus.of_level(result.check.level) if failed else CheckStatus.SUCCESS
        updated.append(CheckResult(result.check, status, new_rows))
    return updated, outcome

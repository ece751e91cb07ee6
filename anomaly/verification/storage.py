"""Storing a verification run: metrics, constraint outcomes and anomaly verdicts, atomically."""

from __future__ import annotations

from typing import TYPE_CHECKING

from anomaly.checks import ConstraintResult, ConstraintStatus
from repository import AnomalyVerdict, CheckOutcome

if TYPE_CHECKING:
    from anomaly.verification.result import VerificationResult
    from repository import MetricsRepository, ResultKey

VERDICT_STATUS = {
    ConstraintStatus.SUCCESS: "normal",
    ConstraintStatus.FAILURE: "anomaly",
    ConstraintStatus.INSUFFICIENT_HISTORY: "insufficient_history",
    ConstraintStatus.HELD_BACK: "held_back",
}


def save_run(repository: MetricsRepository, key: ResultKey, result: VerificationResult) -> None:
    """One transaction: the run's metrics (replacing the key's points), outcomes and verdicts."""
    records = [record for context in result.metrics for record in context]
    outcomes = [_outcome(row) for row in result.rows]
    verdicts = [_verdict(row) for row in result.rows if row.detector is not None]
    repository.save(key, records, outcomes=outcomes, verdicts=verdicts)


def _outcome(row: ConstraintResult) -> CheckOutcome:
    return CheckOutcome(
        row.check, row.constraint, row.status.value, level=row.level.value, message=row.message,
        metric_id=row.metric_id, value=row.value, lower=row.lower, upper=row.upper,
        group=dict(row.group),
    )  # fmt: skip


def _verdict(row: ConstraintResult) -> AnomalyVerdict:
    # A failure without history length is an error before detection (e.g. a failed metric).
    status = VERDICT_STATUS[row.status] if row.history_length is not None else "error"
    return AnomalyVerdict(
        row.metric_id, status, row.detector or "", value=row.value, lower=row.lower,
        upper=row.upper, score=row.score, detail=row.message, history_length=row.history_length,
        group=dict(row.group), p_value=row.p_value,
    )  # fmt: skip

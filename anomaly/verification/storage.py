"""Storing a verification run: metrics, constraint outcomes and anomaly verdicts, atomically."""

from __future__ import annotations

from typing import TYPE_CHECKING

from anomaly.checks import ConstraintResult
from repository import CheckOutcome

if TYPE_CHECKING:
    from anomaly.verification.result import VerificationResult
    from repository import MetricsRepository, ResultKey


def save_run(repository: MetricsRepository, key: ResultKey, result: VerificationResult) -> None:
    """One transaction: the run's metrics (replacing the key's points), outcomes and verdicts."""
    records = [record for context in result.metrics for record in context]
    outcomes = [_outcome(row) for row in result.rows]
    verdicts = [row.verdict for row in result.rows if row.verdict is not None]
    repository.save(key, records, outcomes=outcomes, verdicts=verdicts)


def _outcome(row: ConstraintResult) -> CheckOutcome:
    return CheckOutcome(
        check=row.check,
        constraint=row.constraint,
        status=row.status.value,
        level=row.level.value,
        message=row.message,
        metric_id=row.metric_id,
        value=row.value,
        lower=row.lower,
        upper=row.upper,
        group=dict(row.group),
    )

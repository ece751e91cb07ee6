"""An alert budget over one run's judged series: which anomalies it does not admit.

Scans, stream windows and ``VerificationSuite`` runs apply budgets the same way: every series
judged this run (anomalous or not) counts as one check; the budget turns its p-value into
"alerted" or "held back" (stored, never alerted).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from detectors import AlertBudget, BudgetOutcome
from repository import AnomalyVerdict

HELD_BACK = "held_back"
"""The status of an anomaly an alert budget did not alert on (stored, never alerted)."""


def held_back(
    p_values: Sequence[float | None],
    anomalous: Sequence[bool],
    budget: AlertBudget,
    checks_per_week: float,
) -> tuple[list[bool], BudgetOutcome]:
    """For each judged series (its p-value, whether it was an anomaly): whether the budget
    holds it back (only anomalies are), and the budget's outcome for the run."""
    keep, outcome = budget.apply(list(p_values), list(anomalous), checks_per_week)
    held = [bad and not kept for bad, kept in zip(anomalous, keep.tolist(), strict=True)]
    return held, outcome


def held_reason(p_value: float | None, outcome: BudgetOutcome, detail: str | None) -> str:
    """Why an anomaly was held back, before its own `detail`.

    >>> from detectors import AlertBudget
    >>> _, outcome = held_back([0.01], [True], AlertBudget(fdr=0.001), 7.0)
    >>> held_reason(0.01, outcome, "above the band")[:40]
    'Held back by the alert budget (p = 0.01;'
    """
    p = float("nan") if p_value is None else p_value
    why = (
        f"Held back by the alert budget (p = {p:.2g}; {outcome.rule} admits "
        f"p < {outcome.threshold:.2g})"
    )
    return f"{why}: {detail}" if detail else why


def hold_back(
    verdicts: Sequence[AnomalyVerdict], budget: AlertBudget, checks_per_week: float
) -> tuple[list[AnomalyVerdict], BudgetOutcome]:
    """The run's verdicts with the anomalies the budget does not admit turned ``held_back``."""
    judged = [v for v in verdicts if v.status in ("normal", "anomaly")]
    flags, outcome = held_back(
        [v.p_value for v in judged],
        [v.status == "anomaly" for v in judged],
        budget,
        checks_per_week,
    )
    held = {id(v) for v, flag in zip(judged, flags, strict=True) if flag}
    return [
        replace(v, status=HELD_BACK, detail=held_reason(v.p_value, outcome, v.detail))
        if id(v) in held
        else v
        for v in verdicts
    ], outcome

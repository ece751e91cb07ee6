"""What one scan found: its verdicts (each with its metric's severity), status, rendering."""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from datetime import datetime
from enum import IntEnum
from typing import Any

from anomaly.config.metric_spec import Severity
from anomaly.config.periods import label
from anomaly.judging.fields import PROBLEMS
from anomaly.judging.run import RunVerdicts
from anomaly.judging.tables import (
    PROBLEM_HEADERS,
    problem_row,
    text_table,
)
from detectors import BudgetOutcome
from repository import AnomalyVerdict


class ScanStatus(IntEnum):
    """A scan's outcome; the value is the CLI's exit code.

    >>> ScanStatus.ERROR.label, int(ScanStatus.ERROR)
    ('error', 2)
    """

    OK = 0
    WARNING = 1
    ERROR = 2
    FAILED = 3

    @property
    def label(self) -> str:
        """The text stored in the scan log (``ok``, ``warning``, ``error``, ``failed``)."""
        return self.name.lower()


def Finding(verdict: AnomalyVerdict, severity: Severity) -> AnomalyVerdict:  # noqa: N802
    """Deprecated: a verdict with its metric's severity is the verdict itself
    (`AnomalyVerdict.severity`); ``finding.verdict`` is the verdict too.

    >>> finding = Finding(AnomalyVerdict("Size(*)", "anomaly", "RobustMAD"), "warning")
    >>> is_problem(finding), level(finding).label, finding.verdict is finding
    (True, 'warning', True)
    """
    return replace(verdict, severity=severity)


def is_problem(verdict: AnomalyVerdict) -> bool:
    """An anomaly, or a metric that could not be computed."""
    return verdict.status in PROBLEMS


def level(verdict: AnomalyVerdict) -> ScanStatus:
    """The status a verdict gives its scan: by its severity when it is a problem."""
    if not is_problem(verdict):
        return ScanStatus.OK
    return ScanStatus.ERROR if verdict.severity == "error" else ScanStatus.WARNING


@dataclass
class ScanReport:
    """The outcome of one scan run (or one partition of a backfill).

    Examples
    --------
    >>> from datetime import UTC
    >>> verdict = AnomalyVerdict("Size(*)", "anomaly", "RobustMAD", value=15.0, lower=38.0,
    ...                          upper=81.0, history_length=70, group={"country": "FR"})
    >>> report = ScanReport("daily", datetime(2026, 3, 12, tzinfo=UTC), "day",
    ...                     [replace(verdict, severity="error")], metrics=4, groups=5)
    >>> report.status.label, report.headline()
    ('error', 'daily 2026-03-12: 1 anomaly (4 metrics x 5 groups)')
    >>> print(report.table())
    severity  group       metric   value  expected  history  detector
    ERROR     country=FR  Size(*)     15  [38, 81]       70  RobustMAD
    """

    scan: str
    time: datetime
    partition: str | None = None
    findings: list[AnomalyVerdict] = field(default_factory=list)
    """Every verdict of the run, each with its metric's severity."""
    metrics: int = 0
    groups: int = 0
    notes: list[str] = field(default_factory=list)
    error: str | None = None
    seconds: float | None = None
    budget: BudgetOutcome | None = None

    @classmethod
    def of(
        cls, scan: str, time: datetime, partition: str | None, run: RunVerdicts, metrics: int
    ) -> ScanReport:
        """The report of a judged run (`judge_run`) of `metrics` metrics."""
        report = cls(scan, time, partition, list(run.verdicts), metrics, run.groups)
        report.budget = run.budget
        return report

    @property
    def status(self) -> ScanStatus:
        """FAILED when the scan could not run; else the worst finding (notes warn)."""
        if self.error is not None:
            return ScanStatus.FAILED
        levels = [level(v) for v in self.findings]
        if self.notes:
            levels.append(ScanStatus.WARNING)
        return max(levels, default=ScanStatus.OK)

    @property
    def problems(self) -> list[AnomalyVerdict]:
        """Anomalies and failed metrics, errors first."""
        found = [v for v in self.findings if is_problem(v)]
        return sorted(found, key=lambda v: (v.severity != "error", v.metric_id))

    @property
    def when(self) -> str:
        """The measured partition, or the run time."""
        return label(self.time, self.partition)

    def headline(self) -> str:
        """One line: scan, time and what was found."""
        anomalies = sum(v.status == "anomaly" for v in self.findings)
        failed = sum(v.status == "error" for v in self.findings)
        if self.error is not None:
            found = f"FAILED: {self.error}"
        else:
            parts = [_count(anomalies, "anomaly", "anomalies")] if anomalies or not failed else []
            if failed:
                parts.append(_count(failed, "failed metric", "failed metrics"))
            if self.budget is not None and self.budget.held_back:
                parts.append(f"{self.budget.held_back} held back by the alert budget")
            size = f"{_count(self.metrics, 'metric', 'metrics')} x "
            size += _count(self.groups, "group", "groups")
            found = ", ".join([*parts, *self.notes]) + f" ({size}"
            found += f", {self.seconds:.1f} s)" if self.seconds is not None else ")"
        return f"{self.scan} {self.when}: {found}"

    def table(self, indent: str = "") -> str:
        """The problems as a text table (empty text when there are none)."""
        rows = [problem_row(v) for v in self.problems]
        if not rows:
            return ""
        headers = PROBLEM_HEADERS
        return text_table(headers, rows, indent)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: scan, time, status, counts, notes, error and every problem."""
        return {
            "scan": self.scan,
            "time": self.time.isoformat(),
            "partition": self.when if self.partition else None,
            "status": self.status.label,
            "metrics": self.metrics,
            "groups": self.groups,
            "seconds": None if self.seconds is None else round(self.seconds, 2),
            "notes": self.notes,
            "error": self.error,
            "alert_budget": None if self.budget is None else _budget(self.budget),
            "problems": [_problem(v) for v in self.problems],
        }


def _count(n: int, one: str, many: str) -> str:
    return f"{n} {one if n == 1 else many}"


def _finite(value: float | None) -> float | None:
    return value if value is not None and math.isfinite(value) else None


def _problem(verdict: AnomalyVerdict) -> dict[str, Any]:
    return {
        "severity": verdict.severity,
        "status": verdict.status,
        "metric": verdict.metric_id,
        "group": dict(verdict.group),
        "value": _finite(verdict.value),
        "lower": _finite(verdict.lower),
        "upper": _finite(verdict.upper),
        "history": verdict.history_length,
        "detector": verdict.detector,
        "detail": verdict.detail,
        "p_value": verdict.p_value,
    }


def _budget(budget: BudgetOutcome) -> dict[str, Any]:
    return {
        "rule": budget.rule,
        "p_threshold": budget.threshold,
        "held_back": budget.held_back,
        "series": budget.series,
        "without_p_values": budget.unranked,
    }

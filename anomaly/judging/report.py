"""What one scan found: findings (verdicts with their severity), status, rendering."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from datetime import datetime
from enum import IntEnum
from typing import Any

from anomaly.config.metric_spec import Severity
from anomaly.config.periods import label
from anomaly.judging.run import RunVerdicts
from anomaly.judging.tables import band, group_label, number, text_table
from detectors import BudgetOutcome
from repository import AnomalyVerdict

PROBLEMS = ("anomaly", "error")
"""Verdict statuses that count against a scan (and are alerted)."""


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


@dataclass(frozen=True)
class Finding:
    """A verdict on one metric point and the severity its metric is configured with.

    >>> finding = Finding(AnomalyVerdict("Size(*)", "anomaly", "RobustMAD"), "warning")
    >>> finding.is_problem, finding.level.label
    (True, 'warning')
    """

    verdict: AnomalyVerdict
    severity: Severity

    @property
    def is_problem(self) -> bool:
        """An anomaly, or a metric that could not be computed."""
        return self.verdict.status in PROBLEMS

    @property
    def level(self) -> ScanStatus:
        """The status this finding gives its scan."""
        if not self.is_problem:
            return ScanStatus.OK
        return ScanStatus.ERROR if self.severity == "error" else ScanStatus.WARNING


@dataclass
class ScanReport:
    """The outcome of one scan run (or one partition of a backfill).

    Examples
    --------
    >>> from datetime import UTC
    >>> verdict = AnomalyVerdict("Size(*)", "anomaly", "RobustMAD", value=15.0, lower=38.0,
    ...                          upper=81.0, history_length=70, group={"country": "FR"})
    >>> report = ScanReport("daily", datetime(2026, 3, 12, tzinfo=UTC), "day",
    ...                     [Finding(verdict, "error")], metrics=4, groups=5)
    >>> report.status.label, report.headline()
    ('error', 'daily 2026-03-12: 1 anomaly (4 metrics x 5 groups)')
    >>> print(report.table())
    severity  group       metric   value  expected  history  detector
    ERROR     country=FR  Size(*)     15  [38, 81]       70  RobustMAD
    """

    scan: str
    time: datetime
    partition: str | None = None
    findings: list[Finding] = field(default_factory=list)
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
        findings = [Finding(v, run.severity(v)) for v in run.verdicts]
        report = cls(scan, time, partition, findings, metrics, run.groups)
        report.budget = run.budget
        return report

    @property
    def status(self) -> ScanStatus:
        """FAILED when the scan could not run; else the worst finding (notes warn)."""
        if self.error is not None:
            return ScanStatus.FAILED
        levels = [f.level for f in self.findings]
        if self.notes:
            levels.append(ScanStatus.WARNING)
        return max(levels, default=ScanStatus.OK)

    @property
    def problems(self) -> list[Finding]:
        """Anomalies and failed metrics, errors first."""
        found = [f for f in self.findings if f.is_problem]
        return sorted(found, key=lambda f: (f.severity != "error", f.verdict.metric_id))

    @property
    def when(self) -> str:
        """The measured partition, or the run time."""
        return label(self.time, self.partition)

    def headline(self) -> str:
        """One line: scan, time and what was found."""
        anomalies = sum(f.verdict.status == "anomaly" for f in self.findings)
        failed = sum(f.verdict.status == "error" for f in self.findings)
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
        rows = [
            [f.severity.upper(), group_label(v.group), v.metric_id,
             number(v.value) if v.status == "anomaly" else "failed",
             band(v.lower, v.upper), number(v.history_length), v.detector]
            for f in self.problems
            for v in [f.verdict]
        ]  # fmt: skip
        if not rows:
            return ""
        headers = ["severity", "group", "metric", "value", "expected", "history", "detector"]
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
            "alert_budget": None if self.budget is None else {
                "rule": self.budget.rule, "p_threshold": self.budget.threshold,
                "held_back": self.budget.held_back, "series": self.budget.series,
                "without_p_values": self.budget.unranked,
            },
            "problems": [
                {"severity": f.severity, "status": f.verdict.status,
                 "metric": f.verdict.metric_id, "group": dict(f.verdict.group),
                 "value": _finite(f.verdict.value), "lower": _finite(f.verdict.lower),
                 "upper": _finite(f.verdict.upper), "history": f.verdict.history_length,
                 "detector": f.verdict.detector, "detail": f.verdict.detail,
                 "p_value": f.verdict.p_value}
                for f in self.problems
            ],
        }  # fmt: skip


def _count(n: int, one: str, many: str) -> str:
    return f"{n} {one if n == 1 else many}"


def _finite(value: float | None) -> float | None:
    return value if value is not None and math.isfinite(value) else None

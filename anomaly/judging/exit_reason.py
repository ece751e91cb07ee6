"""Why a run command exits non-zero, in words: ``scan``, ``backfill`` and ``monitor`` print it
on stderr, so a script that sees exit 1 also sees which warning it was.

>>> from datetime import UTC, datetime
>>> from repository import AnomalyVerdict
>>> from anomaly.judging.report import ScanReport
>>> empty = ScanReport("daily", datetime(2026, 3, 12, tzinfo=UTC), "day", notes=["no rows in "
...     "events for 2026-03-12"])
>>> print(exit_reason("scan", [empty]))
anomaly scan: exit 1 (warnings): daily 2026-03-12: no rows in events for 2026-03-12
>>> late = AnomalyVerdict("Size(*)", "anomaly", "Adaptive", value=15.0, lower=38.0, upper=81.0,
...                       group={"country": "FR"}, severity="error")
>>> print(exit_reason("scan", [ScanReport("daily", empty.time, "day", [late])]))
anomaly scan: exit 2 (anomalies or errors at ERROR level): daily 2026-03-12: ERROR anomaly \
Size(*) country=FR: 15, expected [38, 81]
"""

from __future__ import annotations

from collections.abc import Sequence

from anomaly.judging.report import ScanReport, ScanStatus
from anomaly.judging.tables import band, group_label, number

MEANING = {
    ScanStatus.WARNING: "warnings",
    ScanStatus.ERROR: "anomalies or errors at ERROR level",
    ScanStatus.FAILED: "a scan failed",
}
"""What each non-zero exit code means (the CLI's epilog says the same)."""
SHOWN = 10
"""Reasons listed before the rest is counted (the table above lists them all)."""


def exit_reason(command: str, reports: Sequence[ScanReport]) -> str | None:
    """One line per reason of the worst status of `reports`; None when they are all ok."""
    status = max((r.status for r in reports), default=ScanStatus.OK)
    if status is ScanStatus.OK:
        return None
    reasons = [f"{r.scan} {r.when}: {why}" for r in reports for why in _reasons(r)]
    head = f"anomaly {command}: exit {int(status)} ({MEANING[status]}): "
    if len(reasons) == 1:
        return head + reasons[0]
    more = [f"  ... and {len(reasons) - SHOWN} more"] if len(reasons) > SHOWN else []
    return "\n".join([head.rstrip(), *(f"  {r}" for r in reasons[:SHOWN]), *more])


def _reasons(report: ScanReport) -> list[str]:
    if report.error is not None:
        return [f"failed: {report.error}"]
    found = list(report.notes)
    for verdict in report.problems:
        where = f"{verdict.metric_id} {group_label(verdict.group)}".rstrip()
        if verdict.status == "anomaly":
            what = f"{number(verdict.value)}, expected {band(verdict.lower, verdict.upper)}"
        else:
            what = f"could not be computed: {verdict.detail or 'no detail'}"
        found.append(f"{(verdict.severity or 'warning').upper()} {verdict.status} {where}: {what}")
    return found

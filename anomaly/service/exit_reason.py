"""The reason for a command's non-zero exit code, in one line on stderr."""

from __future__ import annotations

from collections.abc import Sequence

from anomaly.judging.report import ScanReport, ScanStatus
from anomaly.judging.tables import group_label

SHOWN = 5
"""Reasons listed before "and N more"."""


def exit_reason(reports: Sequence[ScanReport]) -> str | None:
    """Why the runs of `reports` give a non-zero exit code (None when they give 0): the exit
    code, its meaning, and each note, failed metric (with its error) and anomaly behind it.

    >>> from datetime import UTC, datetime
    >>> empty = ScanReport("daily", datetime(2026, 3, 31, tzinfo=UTC), "day",
    ...                    notes=["no rows in events for 2026-03-31"])
    >>> exit_reason([empty])
    'exit 1 (warning): daily 2026-03-31: no rows in events for 2026-03-31'
    >>> exit_reason([ScanReport("daily", datetime(2026, 3, 31, tzinfo=UTC))]) is None
    True
    """
    status = max((r.status for r in reports), default=ScanStatus.OK)
    if status == ScanStatus.OK:
        return None
    reasons: list[str] = []
    for report in reports:
        where = f"{report.scan} {report.when}"
        if report.error is not None:
            reasons.append(f"{where}: failed: {report.error}")
        reasons += [f"{where}: {note}" for note in report.notes]
        for verdict in report.problems:
            group = group_label(verdict.group)
            name = verdict.metric_id + (f" [{group}]" if group else "")
            what = "anomaly" if verdict.status == "anomaly" else f"failed: {verdict.detail}"
            reasons.append(f"{where}: {verdict.severity or 'warning'} {name}: {what}")
    more = f"; and {len(reasons) - SHOWN} more" if len(reasons) > SHOWN else ""
    return f"exit {int(status)} ({status.label}): " + "; ".join(reasons[:SHOWN]) + more

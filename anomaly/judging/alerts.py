"""Alert bodies for one scan: text for logs, a Slack incoming-webhook body, structured JSON."""

from __future__ import annotations

from typing import Any

from anomaly.judging.report import ScanReport, ScanStatus

MAX_ROWS = 20
"""Rows of the findings table in one alert (Slack limits a section to 3,000 characters)."""
ICONS = {
    ScanStatus.WARNING: ":warning:",
    ScanStatus.ERROR: ":rotating_light:",
    ScanStatus.FAILED: ":x:",
}


def should_alert(report: ScanReport, min_severity: str) -> bool:
    """Whether a sink with `min_severity` (``warning``/``error``) gets this report.

    >>> from datetime import UTC, datetime
    >>> report = ScanReport("daily", datetime(2026, 3, 31, tzinfo=UTC), notes=["no rows"])
    >>> should_alert(report, "warning"), should_alert(report, "error")
    (True, False)
    """
    floor = ScanStatus.ERROR if min_severity == "error" else ScanStatus.WARNING
    return report.status >= floor


def alert_text(report: ScanReport, limit: int = MAX_ROWS) -> str:
    """The headline and the findings table (at most `limit` rows)."""
    lines = [f"[{report.status.label.upper()}] anomaly scan {report.headline()}"]
    table = _limited(report, limit)
    if table:
        lines.append(table)
    return "\n".join(lines)


def slack_payload(report: ScanReport) -> dict[str, Any]:
    """A Slack incoming-webhook body: ``text`` (notification fallback) and ``blocks``."""
    icon = ICONS.get(report.status, "")
    headline = f"{icon} anomaly scan {report.headline()}".strip()
    blocks: list[dict[str, Any]] = [
        {"type": "section", "text": {"type": "mrkdwn", "text": f"*{headline}*"}}
    ]
    table = _limited(report, MAX_ROWS)
    if table:
        blocks.append({"type": "section", "text": {"type": "mrkdwn", "text": f"```{table}```"}})
    context = {"type": "mrkdwn", "text": f"status *{report.status.label}*"}
    blocks.append({"type": "context", "elements": [context]})
    return {"text": headline, "blocks": blocks}


def json_payload(report: ScanReport) -> dict[str, Any]:
    """The structured alert (``ScanReport.to_dict`` plus the headline)."""
    return {"headline": report.headline(), **report.to_dict()}


def _limited(report: ScanReport, limit: int) -> str:
    problems = report.problems
    if len(problems) <= limit:
        return report.table()
    shown = ScanReport(report.scan, report.time, report.partition, problems[:limit])
    return f"{shown.table()}\n... and {len(problems) - limit} more"

"""Alert bodies for one scan: text for logs, a Slack incoming-webhook body, structured JSON."""

from __future__ import annotations

from typing import Any

from anomaly.judging.report import ScanReport, ScanStatus
from anomaly.safe_text import terminal_safe

MAX_ROWS = 20
"""Rows of the findings table in one alert (the report has them all)."""
SLACK_TEXT_LIMIT = 3000
"""Characters Slack accepts in one section's text (longer ones reject the whole message)."""
SLACK_BLOCK_LIMIT = 50
"""Blocks Slack accepts in one message."""
# A table of MAX_ROWS rows, its header and its "... and N more" line is split into at most one
# section per line, between the headline and the context: always within the block limit.
assert MAX_ROWS + 4 <= SLACK_BLOCK_LIMIT
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


def outcome(report: ScanReport) -> str:
    """What a run found, in the words a reader expects: ``failed`` (the scan could not run),
    ``anomaly``, ``failed metric``, ``note`` (e.g. no rows) or ``ok``.

    >>> from datetime import UTC, datetime
    >>> outcome(ScanReport("daily", datetime(2026, 3, 31, tzinfo=UTC), notes=["no rows"]))
    'note'
    """
    statuses = {v.status for v in report.findings}
    if report.error is not None:
        return "failed"
    if "anomaly" in statuses:
        return "anomaly"
    if "error" in statuses:
        return "failed metric"
    return "note" if report.notes else "ok"


def severity(report: ScanReport) -> str:
    """``error``, ``warning`` or ``ok``: the level the report is alerted at."""
    if report.status >= ScanStatus.ERROR:
        return "error"
    return "warning" if report.status == ScanStatus.WARNING else "ok"


def alert_text(report: ScanReport, limit: int = MAX_ROWS) -> str:
    """The headline and the findings table (at most `limit` rows), safe for a log."""
    lines = [f"[{severity(report).upper()}] anomaly scan {terminal_safe(report.headline())}"]
    table = _limited(report, limit)
    if table:
        lines.append(table)
    return "\n".join(lines)


def slack_payload(report: ScanReport) -> dict[str, Any]:
    """A Slack incoming-webhook body: ``text`` (notification fallback) and ``blocks``.

    Text from data is escaped (``<!channel>`` cannot ping, a value cannot close the code
    block), each section stays within `SLACK_TEXT_LIMIT` characters and the message within
    `SLACK_BLOCK_LIMIT` blocks: a long table is split over several sections.
    """
    icon = ICONS.get(report.status, "")
    headline = _cut(slack_escape(f"{icon} anomaly scan {terminal_safe(report.headline())}"))
    blocks: list[dict[str, Any]] = [_section(_cut(f"*{headline.strip()}*"))]
    table = _limited(report, MAX_ROWS)
    chunks = _chunks(code_safe(slack_escape(table)).splitlines()) if table else []
    blocks.extend(_section("```" + "\n".join(lines) + "```") for lines in chunks)
    words = f"status *{outcome(report)}*, severity *{severity(report)}*"
    blocks.append({"type": "context", "elements": [{"type": "mrkdwn", "text": words}]})
    return {"text": headline.strip(), "blocks": blocks}


def json_payload(report: ScanReport) -> dict[str, Any]:
    """The structured alert: ``ScanReport.to_dict`` plus the headline, with ``status`` saying
    what was found (`outcome`) and ``severity`` its level."""
    body = {"headline": report.headline(), **report.to_dict()}
    body.update(status=outcome(report), severity=severity(report))
    return body


def slack_escape(text: str) -> str:
    """Slack's control characters escaped: ``<!channel>`` from data is shown, never a ping.

    >>> slack_escape("<!channel> & <https://evil|click>")
    '&lt;!channel&gt; &amp; &lt;https://evil|click&gt;'
    """
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def code_safe(text: str) -> str:
    """Backticks from data shown as a look-alike, so a value cannot end a code block.

    >>> code_safe("a```b") == "a" + chr(0x2CB) * 3 + "b"
    True
    """
    return text.replace("`", "\u02cb")


def _section(text: str) -> dict[str, Any]:
    return {"type": "section", "text": {"type": "mrkdwn", "text": text}}


def _cut(text: str, limit: int = SLACK_TEXT_LIMIT) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _chunks(lines: list[str]) -> list[list[str]]:
    """Lines packed into sections whose text, fences included, fits Slack's limit."""
    room = SLACK_TEXT_LIMIT - len("``````")
    chunks: list[list[str]] = []
    size = room + 1
    for line in (_cut(x, room) for x in lines):
        if size + 1 + len(line) > room:
            chunks.append([])
            size = -1
        chunks[-1].append(line)
        size += 1 + len(line)
    return chunks


def _limited(report: ScanReport, limit: int) -> str:
    problems = report.problems
    if len(problems) <= limit:
        return report.table()
    shown = ScanReport(report.scan, report.time, report.partition, problems[:limit])
    return f"{shown.table()}\n... and {len(problems) - limit} more"

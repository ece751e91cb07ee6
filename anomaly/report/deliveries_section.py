"""The report's "Alerts not delivered" section: the repository's outbox of failed deliveries
(``repo.deliveries``), so an alert that could not reach its sink is seen in the report."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime

from anomaly.report.sections import ReportSection, register_section
from repository import MetricsRepository
from repository.results import Cursor

SHOWN = 200
"""The newest undelivered alerts listed (the section says how many more there are)."""
COLUMNS = ("failed at", "scan", "run", "sink", "severity", "attempts", "last error")


def undelivered_alerts(repo: MetricsRepository, cur: Cursor) -> Sequence[ReportSection]:
    """One section listing the alerts still undelivered, none when every alert got through.

    Reads through the report's own cursor `cur` (a second read nested inside it could wait on
    a writer that waits on the first).

    >>> from datetime import UTC, datetime
    >>> repo = MetricsRepository(":memory:")
    >>> _ = repo.deliveries.record_failure("daily", "slack", datetime(2026, 3, 5, tzinfo=UTC),
    ...     "error", "daily 2026-03-05: 1 anomaly", "{}", attempts=4, error="HTTP 503")
    >>> with repo.sql() as cur:
    ...     [section] = undelivered_alerts(repo, cur)
    >>> section.rows[0][1:]
    ['daily', '2026-03-05 00:00', 'slack', 'error', 4, 'HTTP 503']
    """
    rows = cur.execute(
        "SELECT failed_at, scan, run_time, sink, severity, attempts, error FROM alert_deliveries "
        "WHERE status = 'failed' ORDER BY failed_at DESC, delivery_id DESC"
    ).fetchall()
    if not rows:
        return []
    shown = [[_utc(f), scan, _utc(r), sink, sev, int(n), error]
             for f, scan, r, sink, sev, n, error in rows[:SHOWN]]  # fmt: skip
    more = f"; the newest {SHOWN} of {len(rows)} are listed" if len(rows) > SHOWN else ""
    note = (
        f"{len(rows)} alert{'s' if len(rows) != 1 else ''} could not be delivered; each is "
        f"offered to its sink again on the scan's next run{more}"
    )
    return [ReportSection("alert-deliveries", "Alerts not delivered", COLUMNS, shown, note)]


def _utc(value: datetime) -> str:
    return value.astimezone(UTC).strftime("%Y-%m-%d %H:%M")


register_section("alert deliveries", undelivered_alerts)

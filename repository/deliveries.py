"""Alert deliveries that failed: an outbox, so that no alert is lost silently.

A sink that cannot be reached (refused, redirected, down past its deadline) gets its alert
recorded here with the exact body that was to be sent. The service offers the pending ones to
the sink again on later runs (``pending``, then ``delivered`` or ``failed_again``), and the
report lists those still undelivered. Delivery is at least once: a webhook that received an
alert but answered too late may get it twice.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

from repository.backends.base import Backend
from repository.frames import utc
from repository.keys import TimeLike, from_epoch_ms, to_epoch_ms

if TYPE_CHECKING:  # pandas loads where a frame is built: read-only commands never need it
    import pandas as pd

FAILED = "failed"
DELIVERED = "delivered"
DELIVERY_COLUMNS = (
    "delivery_id", "scan", "sink", "run_time", "severity", "summary", "status", "attempts",
    "error", "failed_at", "delivered_at",
)  # fmt: skip


@dataclass(frozen=True)
class PendingDelivery:
    """An alert that has not reached its sink yet, with the body to send."""

    delivery_id: int
    scan: str
    sink: str
    severity: str
    summary: str
    payload: str
    attempts: int


class Deliveries:
    """Failed alert deliveries (``repo.deliveries``).

    Examples
    --------
    >>> from datetime import UTC, datetime
    >>> from repository import MetricsRepository
    >>> repo = MetricsRepository(":memory:")
    >>> failed = repo.deliveries.record_failure(
    ...     "daily", "slack", datetime(2026, 3, 5, tzinfo=UTC), "error",
    ...     "daily 2026-03-05: 1 anomaly", "{}", attempts=4,
    ...     error="the webhook answered HTTP 503 Service Unavailable")
    >>> [p.sink for p in repo.deliveries.pending("slack")]
    ['slack']
    >>> repo.deliveries.delivered(failed, attempts=1)
    >>> repo.deliveries.pending(), repo.deliveries.undelivered().empty
    ([], True)
    >>> repo.close()
    """

    def __init__(self, connector: Backend) -> None:
        self._connector = connector

    def record_failure(
        self,
        scan: str,
        sink: str,
        run_time: TimeLike,
        severity: str,
        summary: str,
        payload: str,
        *,
        attempts: int,
        error: str,
    ) -> int:
        """Record an alert that did not reach `sink` (`payload`: the body to send); returns
        its id."""
        for name, value in (("scan", scan), ("sink", sink)):
            if not isinstance(value, str) or not value:
                raise ValueError(f"{name} must be a non-empty str, got {value!r}")
        with self._connector.transaction() as cur:
            row = cur.first(
                "INSERT INTO alert_deliveries (delivery_id, scan, sink, run_time, severity, "
                "summary, payload, status, attempts, error, failed_at) "
                "VALUES (nextval('delivery_id_seq'), ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
                "RETURNING delivery_id",
                [scan, sink, _when(run_time), severity, summary, payload, FAILED, int(attempts),
                 error, _when(None)],
            )  # fmt: skip
        assert row is not None
        return int(row[0])

    def pending(self, sink: str | None = None, limit: int = 100) -> list[PendingDelivery]:
        """Undelivered alerts (of `sink`, or every sink), oldest first."""
        sql = (
            "SELECT delivery_id, scan, sink, severity, summary, payload, attempts "
            "FROM alert_deliveries WHERE status = ?"
        )
        params: list[object] = [FAILED]
        if sink is not None:
            sql += " AND sink = ?"
            params.append(sink)
        sql += " ORDER BY delivery_id LIMIT ?"
        with self._connector.cursor() as cur:
            rows = cur.execute(sql, [*params, int(limit)]).fetchall()
        return [
            PendingDelivery(int(i), s, k, sev, summary, payload, int(n))
            for i, s, k, sev, summary, payload, n in rows
        ]

    def delivered(self, delivery_id: int, attempts: int) -> None:
        """A pending alert reached its sink after `attempts` more tries."""
        self._update(
            delivery_id,
            "status = ?, delivered_at = ?, attempts = attempts + ?",
            [DELIVERED, _when(None), int(attempts)],
        )

    def failed_again(self, delivery_id: int, attempts: int, error: str) -> None:
        """A pending alert failed again (`error` is the newest reason)."""
        self._update(
            delivery_id, "attempts = attempts + ?, error = ?, failed_at = ?",
            [int(attempts), error, _when(None)],
        )  # fmt: skip

    def undelivered(self, limit: int | None = None) -> pd.DataFrame:
        """Alerts not delivered yet, newest first (``DELIVERY_COLUMNS``, times in UTC)."""
        sql = (
            f"SELECT {', '.join(DELIVERY_COLUMNS)} FROM alert_deliveries WHERE status = ? "
            "ORDER BY failed_at DESC, delivery_id DESC"
        )
        params: list[object] = [FAILED]
        if limit is not None:
            sql += " LIMIT ?"
            params.append(int(limit))
        with self._connector.cursor() as cur:
            frame = cur.arrow(sql, params).to_pandas()
        for column in ("run_time", "failed_at", "delivered_at"):
            frame[column] = utc(frame[column])
        return frame

    def _update(self, delivery_id: int, assignments: str, params: list[object]) -> None:
        with self._connector.transaction() as cur:
            row = cur.first(
                f"UPDATE alert_deliveries SET {assignments} WHERE delivery_id = ? "
                "RETURNING delivery_id",
                [*params, delivery_id],
            )
        if row is None:
            raise ValueError(f"no alert delivery with id {delivery_id!r}")


def _when(value: TimeLike | None) -> datetime:
    return datetime.now().astimezone() if value is None else from_epoch_ms(to_epoch_ms(value))

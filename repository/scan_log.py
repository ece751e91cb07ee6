"""The scan log: one row per scheduled scan execution (name, start, end, status, error).

``start`` writes the row before the scan runs, so a scan whose process died shows as ``running``
with no end: the scheduler can tell crashed scans from finished ones.
"""

from __future__ import annotations

from datetime import datetime

import pandas as pd

from repository.backends.base import Backend
from repository.filters import Where
from repository.frames import utc
from repository.keys import TimeLike, from_epoch_ms, to_epoch_ms

RUNNING = "running"
SCAN_COLUMNS = ("scan_id", "scan", "started_at", "ended_at", "status", "error")


class ScanLog:
    """Executions of scheduled scans (``repo.scan_log``).

    Examples
    --------
    >>> from repository import MetricsRepository
    >>> repo = MetricsRepository(":memory:")
    >>> scan_id = repo.scan_log.start("orders-daily")
    >>> repo.scan_log.finish(scan_id, "succeeded")
    >>> repo.scan_log.runs()[["scan", "status"]].to_dict("records")
    [{'scan': 'orders-daily', 'status': 'succeeded'}]
    >>> repo.close()
    """

    def __init__(self, connector: Backend) -> None:
        self._connector = connector

    def start(self, scan: str, started_at: TimeLike | None = None) -> int:
        """Record that ``scan`` started (default: now); returns the id to pass to ``finish``."""
        if not isinstance(scan, str) or not scan:
            raise ValueError(f"scan must be a non-empty str, got {scan!r}")
        with self._connector.transaction() as cur:
            row = cur.first(
                "INSERT INTO scan_log (scan_id, scan, started_at, status) "
                "VALUES (nextval('scan_id_seq'), ?, ?, ?) RETURNING scan_id",
                [scan, _when(started_at), RUNNING],
            )
        assert row is not None
        return int(row[0])

    def finish(
        self, scan_id: int, status: str, error: str | None = None, ended_at: TimeLike | None = None
    ) -> None:
        """Record how scan execution ``scan_id`` ended (e.g. ``succeeded``/``failed``)."""
        if not isinstance(status, str) or not status or status == RUNNING:
            raise ValueError(
                f"status must be a non-empty str other than {RUNNING!r}, got {status!r}"
            )
        with self._connector.transaction() as cur:
            row = cur.first(
                "UPDATE scan_log SET ended_at = ?, status = ?, error = ? WHERE scan_id = ? "
                "RETURNING scan_id",
                [_when(ended_at), status, error, scan_id],
            )
        if row is None:
            raise ValueError(f"no scan execution with id {scan_id!r}; ids come from start()")

    def runs(self, scan: str | None = None, limit: int | None = None) -> pd.DataFrame:
        """Executions, newest first (``SCAN_COLUMNS``, times in UTC)."""
        where = Where(self._connector.dialect)
        if scan is not None:
            where.add("scan = ?", scan)
        sql = (
            f"SELECT {', '.join(SCAN_COLUMNS)} FROM scan_log WHERE {where.sql} "
            "ORDER BY started_at DESC, scan_id DESC"
        )
        params = where.params
        if limit is not None:
            sql += " LIMIT ?"
            params = [*params, int(limit)]
        with self._connector.cursor() as cur:
            frame = cur.arrow(sql, params).to_pandas()
        for column in ("started_at", "ended_at"):
            frame[column] = utc(frame[column])
        return frame

    def delete(self, before: TimeLike) -> int:
        """Delete executions that started at or before ``before``; returns how many."""
        with self._connector.transaction() as cur:
            return cur.changed(
                "DELETE FROM scan_log WHERE started_at <= ?",
                [from_epoch_ms(to_epoch_ms(before, "before"))],
            )


def _when(value: TimeLike | None) -> datetime:
    return datetime.now().astimezone() if value is None else from_epoch_ms(to_epoch_ms(value))

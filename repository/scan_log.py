"""The scan log: one row per scheduled scan execution (name, start, end, status, error).

``start`` writes the row before the scan runs, with the process running it, so a scan whose
process died shows as ``running`` with no end until ``abandon_dead`` (which a service calls when
it starts) marks it ``abandoned``: the scheduler can tell crashed scans from finished ones.
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING

from repository.backends.base import Backend
from repository.filters import Where
from repository.frames import utc
from repository.keys import TimeLike, from_epoch_ms, to_epoch_ms
from repository.processes import ProcessId

if TYPE_CHECKING:  # pandas loads where a frame is built: read-only commands never need it
    import pandas as pd

RUNNING = "running"
ABANDONED = "abandoned"
SCAN_COLUMNS = ("scan_id", "scan", "started_at", "ended_at", "status", "error", "host", "pid")


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
    >>> repo.scan_log.abandon_dead()  # none left running by a process that is gone
    0
    >>> repo.close()
    """

    def __init__(self, connector: Backend) -> None:
        self._connector = connector

    def start(self, scan: str, started_at: TimeLike | None = None) -> int:
        """Record that ``scan`` started (default: now) in this process; returns the id to pass
        to ``finish``."""
        if not isinstance(scan, str) or not scan:
            raise ValueError(f"scan must be a non-empty str, got {scan!r}")
        me = ProcessId.current()
        with self._connector.transaction() as cur:
            row = cur.first(
                "INSERT INTO scan_log (scan_id, scan, started_at, status, host, pid, "
                "process_start) VALUES (nextval('scan_id_seq'), ?, ?, ?, ?, ?, ?) "
                "RETURNING scan_id",
                [scan, _when(started_at), RUNNING, me.host, me.pid, me.start],
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

    def abandon_dead(self, started_before: TimeLike | None = None) -> int:
        """Mark executions left ``running`` by a process that is gone as ``abandoned`` (ended
        now, with an error saying so); returns how many. Call it when a service starts.

        Only processes of this host can be checked; executions started on other hosts (or
        before the repository recorded processes) are left alone unless they started at or
        before ``started_before``: give it to clear those older than any scan may run.
        """
        oldest = None if started_before is None else to_epoch_ms(started_before, "started_before")
        with self._connector.transaction() as cur:
            rows = cur.execute(
                "SELECT scan_id, started_at, host, pid, process_start FROM scan_log "
                "WHERE status = ?",
                [RUNNING],
            ).fetchall()
            dead = {}
            for scan_id, started_at, host, pid, start in rows:
                owner = None if host is None or pid is None else ProcessId(host, int(pid), start)
                if owner is not None and owner.on_this_host() and not owner.is_alive():
                    dead[scan_id] = f"its process (pid {owner.pid} on {owner.host}) is gone"
                elif oldest is not None and to_epoch_ms(started_at) <= oldest:
                    where = "an unknown process" if owner is None else f"host {owner.host}"
                    dead[scan_id] = f"started by {where} at or before the age limit given"
            for scan_id, why in dead.items():
                cur.execute(
                    "UPDATE scan_log SET status = ?, ended_at = ?, error = ? "
                    "WHERE scan_id = ? AND status = ?",
                    [ABANDONED, _when(None), f"abandoned: {why}; the scan did not finish",
                     scan_id, RUNNING],
                )  # fmt: skip
        return len(dead)

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

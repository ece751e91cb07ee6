"""Fault injection: the UI's reads and a scan's writes in one process never wait for each other.

At every point where a UI read (the snapshot, each API endpoint) opens the repository, a scan
thread starts a write and the reading thread lets it begin first (the backend's acquire is
wrapped to inject the write there; the backend itself runs unchanged). A read nested inside
another read would then deadlock: the writer waits for the outer read to end, the inner read for
the writer (``serve --ui`` hung so, issue 31, finding 1). Whether a write catches that moment
depends on timing, so each opening is also checked not to happen inside a read of the same thread
(the cause itself, found on the first such opening). 300 interleavings must finish, with no
nested read: each of the five reads runs dozens of times, a write injected at each of its
openings, about 40 writes landing among them (1,000 interleavings took 2.4 times as long; the
nesting check finds the cause on a read's first opening).
"""

from __future__ import annotations

import threading
import time
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from anomaly.report import api
from anomaly.report.server import SnapshotCache
from repository import MetricRecord, MetricsRepository, ResultKey
from repository.backends.duckdb import backend as duckdb_backend
from repository.backends.duckdb.backend import DuckDBBackend

pytestmark = pytest.mark.faults

INTERLEAVINGS = 300
STALL = 30.0
DAY_MS = 86_400_000


def _save(repo: MetricsRepository, n: int) -> None:
    repo.save(
        ResultKey(n * DAY_MS, {"dataset": "orders", "scan": "daily"}),
        [MetricRecord("Dataset", "*", "Size", "Size(*)", 100.0 + n % 7)],
    )


class WriteInjector:
    """Writes to the repository, in a thread of its own, whenever the traced thread is about to
    open the repository: each such opening meets a write (an *interleaving*)."""

    def __init__(self, writer: MetricsRepository) -> None:
        self.writer = writer
        self.interleavings = 0
        self.written = 0
        self.traced: set[int] = set()
        self._count = threading.Lock()
        self._ask = threading.Semaphore(0)
        self._started = threading.Event()
        self._busy = False
        threading.Thread(target=self._write, daemon=True).start()

    def _write(self) -> None:
        while True:
            self._ask.acquire()
            self._busy = True
            self._started.set()
            try:
                _save(self.writer, 1_000 + self.written)
                self.written += 1
            finally:
                self._busy = False

    def before_acquire(self) -> None:
        """Let a write start (unless one runs) and give it time to wait for this thread's
        reads: a read nested in another then waits for that write, which waits for the outer
        read, for ever."""
        if threading.get_ident() not in self.traced:
            return
        with self._count:
            if not self._busy:
                self._started.clear()
                self._ask.release()
                self._started.wait(1.0)
            self.interleavings += 1
        time.sleep(0.005)

    def idle(self, timeout: float) -> bool:
        """Whether the writer is idle within ``timeout`` seconds."""
        deadline = time.monotonic() + timeout
        while self._busy and time.monotonic() < deadline:
            time.sleep(0.01)
        return not self._busy


def _reads(repo: MetricsRepository) -> list[Callable[[], object]]:
    def params(**values: str) -> api.Params:
        return api.Params({k: [v] for k, v in values.items()}, set(values))

    return [
        lambda: SnapshotCache(repo).get(),
        lambda: api.series_rows(repo, params(metric="Size(*)")),
        lambda: api.anomaly_rows(repo, params(status="all")),
        lambda: api.outcome_rows(repo, params()),
        lambda: api.annotation_rows(repo, params()),
    ]


@pytest.mark.slow
def test_ui_reads_and_scan_writes_in_300_interleavings_never_deadlock(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "metrics.duckdb"
    writer = MetricsRepository(path)
    for n in range(5):
        _save(writer, n)
    writer.annotate("incident", 2 * DAY_MS, metric="Size(*)", note="outage")
    ui = MetricsRepository(path)  # the UI's own repository object, as in `serve --ui`
    injector = WriteInjector(writer)
    acquire = DuckDBBackend._acquire

    def injected(backend: DuckDBBackend, *, write: bool, operation: bool) -> Any:
        running = getattr(duckdb_backend._running_here, "counts", {})
        if threading.get_ident() in injector.traced and any(running.values()):
            caller = traceback.extract_stack(limit=12)
            nested.add(" <- ".join(f"{f.name}" for f in reversed(caller[:-1])))
        else:  # (a write injected under a nested read would hang this test, not fail it)
            injector.before_acquire()
        return acquire(backend, write=write, operation=operation)

    monkeypatch.setattr(DuckDBBackend, "_acquire", injected)
    reads = _reads(ui)
    finished: list[int] = []
    nested: set[str] = set()

    def read_until_done(first: int) -> None:
        injector.traced.add(threading.get_ident())
        done = first
        while injector.interleavings < INTERLEAVINGS:
            reads[done % len(reads)]()
            done += 1
        finished.append(done - first)

    readers = [threading.Thread(target=read_until_done, args=(i,), daemon=True) for i in range(4)]
    for reader in readers:
        reader.start()
    seen, last_change = -1, time.monotonic()
    while any(r.is_alive() for r in readers):  # deadlocked: no interleaving for STALL seconds
        readers[0].join(timeout=1.0)
        if injector.interleavings != seen:
            seen, last_change = injector.interleavings, time.monotonic()
        assert time.monotonic() - last_change < STALL, (
            f"deadlock: UI reads and scan writes stopped after {seen} interleavings "
            f"({injector.written} writes)"
        )
    assert not nested, f"a read opened inside another read: {sorted(nested)}"
    assert len(finished) == len(readers) and injector.interleavings >= INTERLEAVINGS
    assert injector.idle(STALL), "the last write never finished"
    assert len(ui.history("Size(*)")) == 5 + injector.written  # every write landed

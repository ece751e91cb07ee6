"""What every run of a config's scans shares: the config, one Spark session (started on first
use), the repository, progress lines, the scan log; how a failure is told in one line; and how a
stop signal ends a run.

A stop signal (SIGTERM from systemd or Docker, Ctrl-C's SIGINT) goes to the whole process group:
Spark's JVM is started with SIGTERM ignored (`ScanSession.spark`), so it survives to finish the
running scan instead of failing every metric of it. A run that is stopped (`StopRequested`, or
``KeyboardInterrupt``) is recorded ``abandoned``, never ``failed``, and sends no alert.
"""

from __future__ import annotations

import contextlib
import logging
import signal
import threading
from collections.abc import Iterator
from types import FrameType
from typing import TYPE_CHECKING

from anomaly.config.config import ServiceConfig
from anomaly.errors import AnomalyError
from anomaly.judging.report import ScanStatus
from anomaly.safe_text import terminal_safe
from anomaly.service.progress import Progress
from repository import MetricsRepository, RepositoryError
from repository.scan_log import ABANDONED

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

LOG = logging.getLogger("anomaly.service")


class ScanSession:
    """The config, Spark session, repository and progress of a config's runs (scheduled
    scans, backfills and stream queries alike).

    >>> config = ServiceConfig.model_validate({"repository": ":memory:", "sources": {},
    ...                                        "scans": {}})
    >>> ScanSession(config).repository is not None  # Spark starts on first use only
    True
    """

    def __init__(
        self,
        config: ServiceConfig,
        *,
        spark: SparkSession | None = None,
        repository: MetricsRepository | None = None,
        progress: Progress | None = None,
    ) -> None:
        self.config = config
        self._spark = spark
        self.repository = repository or MetricsRepository(config.repository)
        self.progress = progress or Progress.silent()
        self._dead_abandoned = False
        self.stopped_by: str | None = None
        """The signal that asked the running scans to be abandoned (`stop_runs`)."""

    @property
    def spark(self) -> SparkSession:
        """The session: the one given, the active one, or one built from the config."""
        if self._spark is None:
            from pyspark.sql import SparkSession

            from anomaly.spark import build_session, is_connect, prepare_error_loggers

            settings = self.config.spark
            active = SparkSession.getActiveSession()
            if active is not None:
                prepare_error_loggers()
                self._spark = active
            else:
                self.progress.step(f"starting Spark ({settings.remote or settings.master})")
                with _jvm_ignores_sigterm():
                    self._spark = build_session(
                        master=settings.master,
                        remote=settings.remote,
                        app_name=settings.app_name,
                        conf=settings.conf,
                    )
                if not is_connect(self._spark):
                    # Failed tasks are reported as failed metrics with their cause; Spark's own
                    # ERROR lines would add Java stack traces to the terminal.
                    self._spark.sparkContext.setLogLevel("FATAL")
        return self._spark

    def record_end(
        self, log_id: int | None, name: str, status: ScanStatus | str, error: str | None
    ) -> None:
        """Finish the scan log row, if one was started (a repository problem is logged, not
        raised)."""
        if log_id is None:
            return
        label = status.label if isinstance(status, ScanStatus) else status
        try:
            self.repository.scan_log.finish(log_id, label, error)
        except RepositoryError as problem:
            LOG.error("%s: cannot record the run in the scan log: %s", name, problem)

    def start_log(self, name: str) -> int:
        """Start scan `name`'s scan-log row (after `abandon_dead_runs`, the first time)."""
        self.abandon_dead_runs()
        return self.repository.scan_log.start(name)

    def abandon_dead_runs(self) -> int:
        """Once per session: mark the runs that a killed process left ``running`` as
        abandoned (``scan_log.abandon_dead``); returns how many."""
        if self._dead_abandoned:
            return 0
        found = self.repository.scan_log.abandon_dead()
        self._dead_abandoned = True
        if found:
            LOG.warning("marked %d run(s) left running by a process that is gone as abandoned",
                        found)  # fmt: skip
        return found

    def stop_runs(self, signal_name: str) -> None:
        """Abandon the runs in progress (their Spark jobs are cancelled; each is recorded
        ``abandoned`` by `abandon` as it ends): a service's answer to a second stop signal."""
        self.stopped_by = signal_name
        if self._spark is not None:
            with contextlib.suppress(Exception):  # Spark Connect, or a JVM already gone
                self._spark.sparkContext.cancelAllJobs()

    def raise_if_stopped(self, log_id: int | None, name: str) -> None:
        """After a run's failure: when `stop_runs` cancelled its jobs, that is the failure, so
        the run is abandoned (`abandon`) and `StopRequested` raised instead."""
        if self.stopped_by is not None:
            abandoned = StopRequested(self.stopped_by)
            self.abandon(log_id, name, abandoned)
            raise abandoned

    def abandon(self, log_id: int | None, name: str, stop: BaseException) -> None:
        """End a run stopped by a signal: its Spark jobs cancelled, its row ``abandoned``."""
        if self._spark is not None:
            with contextlib.suppress(Exception):  # Spark Connect, or a JVM already gone
                self._spark.sparkContext.cancelAllJobs()
        why = stop.name if isinstance(stop, StopRequested) else "an interrupt (SIGINT)"
        LOG.warning("%s: stopped by %s; the run is abandoned", name, why)
        self.record_end(log_id, name, ABANDONED, f"abandoned: stopped by {why} before it ended")


def describe(error: BaseException) -> str:
    """A failure in one line, safe for a terminal: our errors as they are, others with their
    type."""
    if isinstance(error, AnomalyError | RepositoryError | ValueError | OSError):
        text = str(error)
    else:
        text = f"{type(error).__name__}: {error}"
    return terminal_safe(text.strip().splitlines()[0] if text.strip() else type(error).__name__)


class StopRequested(BaseException):
    """A stop signal ended a run (raised by `stop_signals`, or by a run a service abandoned;
    like ``KeyboardInterrupt``, not an ``Exception``, so nothing takes it for a failure)."""

    def __init__(self, signum: int | str) -> None:
        self.name = signum if isinstance(signum, str) else signal.Signals(signum).name
        super().__init__(f"stopped by {self.name}")


@contextlib.contextmanager
def stop_signals() -> Iterator[None]:
    """While one-shot runs go on in the main thread: SIGTERM raises `StopRequested` there, so
    the running scan is abandoned cleanly (SIGINT raises ``KeyboardInterrupt`` already)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def stop(signum: int, frame: FrameType | None) -> None:
        raise StopRequested(signum)

    previous = signal.signal(signal.SIGTERM, stop)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


@contextlib.contextmanager
def _jvm_ignores_sigterm() -> Iterator[None]:
    """SIGTERM ignored while Spark's JVM starts: a child inherits an ignored signal, and the
    JVM then installs no handler for it, so a SIGTERM to the process group leaves the JVM to
    this process (which stops it when it exits: the JVM ends when its parent's pipe closes).
    A SIGTERM arriving during these seconds of start-up is lost."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGTERM, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)

"""``anomaly serve``: scans on their schedules with APScheduler, until SIGTERM or SIGINT (the
first lets the running scans finish, a second abandons them).

One job per scheduled scan: ``max_instances=1`` (a scan never overlaps itself), missed runs
coalesced into one, started up to ``misfire_grace`` late. A failing scan is logged and
recorded in the scan log by `ScanRunner.run`, which never raises, so the others go on.
Stream scans run as streaming queries (``anomaly.service.streams.StreamQueries``) from start
to stop; a failed query is restarted from its checkpoint.
"""

from __future__ import annotations

import logging
import signal
import threading
from collections.abc import Sequence
from types import FrameType
from typing import TYPE_CHECKING

from anomaly.errors import ConfigurationError
from anomaly.judging.report import ScanStatus
from anomaly.safe_text import terminal_safe
from anomaly.service.session import StopRequested
from repository import RepositoryError

if TYPE_CHECKING:
    from apscheduler.schedulers.background import BackgroundScheduler

    from anomaly.service.scan import ScanRunner

LOG = logging.getLogger("anomaly.service")


class ScanService:
    """The scheduled scans of one config.

    Parameters
    ----------
    runner
        Runs the scans (its config gives the schedules).
    scans
        Names of the scans to schedule; default every scan that has a ``schedule``.

    Examples
    --------
    >>> from anomaly.config.config import ServiceConfig
    >>> from anomaly.service.scan import ScanRunner
    >>> config = ServiceConfig.model_validate({
    ...     "repository": ":memory:", "sources": {"events": {"table": "events"}},
    ...     "scans": {"hourly": {"source": "events", "metrics": ["Size"],
    ...                          "schedule": {"interval": "1h"}},
    ...               "manual": {"source": "events", "metrics": ["Size"]}},
    ... })
    >>> ScanService(ScanRunner(config)).names  # serve_forever() runs them until SIGTERM
    ['hourly']
    """

    def __init__(self, runner: ScanRunner, scans: Sequence[str] | None = None) -> None:
        from anomaly.service.streams import StreamQueries

        config = runner.config
        chosen = list(scans) if scans else list(config.scans)
        streams = [n for n in chosen if config.scan(n).stream is not None]
        names = [n for n in chosen if n not in streams and (scans or config.scan(n).schedule)]
        for name in names:
            if config.scan(name).schedule is None:
                raise ConfigurationError(f"scan {name!r} has no schedule")
        if not names and not streams:
            raise ConfigurationError(
                "no scan has a schedule or reads a stream: add 'schedule' to a scan"
            )
        self.runner = runner
        self.names = names
        self.streams = StreamQueries(runner, streams)
        """The stream scans: each a streaming query, running until the service stops."""
        self.scheduler = self._scheduler()
        self._stop = threading.Event()

    def _scheduler(self) -> BackgroundScheduler:
        from apscheduler.executors.pool import ThreadPoolExecutor
        from apscheduler.schedulers.background import BackgroundScheduler

        config = self.runner.config
        workers = config.scheduler.max_concurrent_scans
        scheduler = BackgroundScheduler(
            executors={"default": ThreadPoolExecutor(max_workers=workers)},
            job_defaults={"coalesce": True, "max_instances": 1},
            timezone="UTC",
        )
        for name in self.names:
            schedule = config.scan(name).schedule
            assert schedule is not None
            scheduler.add_job(
                self.run_scan,
                schedule.trigger(),
                args=[name],
                id=name,
                name=name,
                misfire_grace_time=int(schedule.misfire_grace.total_seconds()),
            )
        return scheduler

    def run_scan(self, name: str) -> ScanStatus | None:
        """One execution of scan `name` (what the scheduler calls); None when a second stop
        signal abandoned it."""
        try:
            report = self.runner.run(name)
        except StopRequested:  # recorded abandoned by the runner; not a failure
            return None
        except Exception:  # ScanRunner.run reports failures itself; this is a last resort
            LOG.exception("scan %s crashed", name)
            return ScanStatus.FAILED
        level = {ScanStatus.OK: logging.INFO, ScanStatus.WARNING: logging.WARNING}
        LOG.log(level.get(report.status, logging.ERROR), "%s", terminal_safe(report.headline()))
        return report.status

    def start(self) -> None:
        """Start the schedules (in background threads) and log when each scan runs next."""
        try:
            self.runner.abandon_dead_runs()
        except RepositoryError as problem:  # each scan's run tries again, and reports it
            LOG.error("cannot mark runs left running by a killed process: %s", problem)
        self.scheduler.start()
        self.streams.start()
        for job in self.scheduler.get_jobs():
            schedule = self.runner.config.scan(job.id).schedule
            assert schedule is not None
            when = f"{job.next_run_time:%Y-%m-%d %H:%M:%S %Z}"
            LOG.info("scan %s: %s, next run at %s", job.id, schedule.describe(), when)

    def stop(self, wait: bool = True) -> None:
        """Stop scheduling and the stream queries; with `wait`, return once the running scans
        have finished."""
        self.streams.stop()
        if self.scheduler.running:
            self.scheduler.shutdown(wait=wait)

    def request_stop(self, signum: int | None = None, frame: FrameType | None = None) -> None:
        """Ask `serve_forever` to stop (the signal handler): after the running scans, or, on a
        second signal, abandoning them (recorded ``abandoned``, not alerted)."""
        name = signal.Signals(signum).name if signum is not None else "a stop request"
        if self._stop.is_set():
            LOG.warning("%s received again: abandoning the running scans", name)
            self.runner.stop_runs(name)
        elif signum is not None:
            LOG.info("%s received: stopping after the running scans", name)
        self._stop.set()

    def serve_forever(self, install_signals: bool = True) -> int:
        """Run until SIGTERM/SIGINT (or `request_stop`), then stop after the running scans."""
        _ = self.runner.spark  # here, not in the first scan's thread
        if install_signals:  # after Spark, whose SparkContext installs its own SIGINT handler
            signal.signal(signal.SIGTERM, self.request_stop)
            signal.signal(signal.SIGINT, self.request_stop)
        self.start()
        try:
            while not self._stop.wait(1.0):
                self.streams.check()
        finally:
            self.stop(wait=True)
            LOG.info("stopped")
        return 0

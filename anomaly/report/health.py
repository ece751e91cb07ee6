"""``/api/health``: 200 only while the service does its work, 503 with the reasons otherwise.

The UI answering is not enough: a scan whose write waits for ever (a deadlock, a repository
held by another process) stops every scan while the UI's own thread still answers. So health
reads the repository, as a scan's write must be able to, with a deadline: a read that does not
end within it means the repository is stuck for this process. One probe runs at a time (a stuck
one is waited for, never duplicated: a stuck repository costs one thread, not one per request).
Further checks (`serve` passes the scheduler's) add their own problems.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable, Sequence
from typing import Any

from repository import MetricsRepository

HealthCheck = Callable[[], str | None]
"""A liveness check: None when fine, else the problem in words."""
DEFAULT_DEADLINE = 5.0


def scheduler_running(scheduler: Any) -> HealthCheck:
    """A check that `scheduler` (APScheduler's, or anything with ``running``) runs.

    >>> class Stopped:
    ...     running = False
    >>> scheduler_running(Stopped())()
    'the scheduler is not running: no scheduled scan will start'
    """

    def check() -> str | None:
        if getattr(scheduler, "running", False):
            return None
        return "the scheduler is not running: no scheduled scan will start"

    return check


class HealthProbe:
    """The service's problems now (none: healthy).

    Parameters
    ----------
    repo
        The repository to read.
    deadline
        Seconds a read of the repository may take before it counts as stuck.
    checks
        Further checks (the scheduler's), each returning a problem or None.

    Examples
    --------
    >>> HealthProbe(MetricsRepository(":memory:")).problems()
    []
    """

    def __init__(
        self,
        repo: MetricsRepository,
        deadline: float = DEFAULT_DEADLINE,
        checks: Sequence[HealthCheck] = (),
    ) -> None:
        if deadline <= 0:
            raise ValueError(f"the health deadline must be > 0 seconds, got {deadline!r}")
        self.repo, self.deadline, self.checks = repo, deadline, list(checks)
        self._lock = threading.Lock()
        self._probe: _Probe | None = None

    def problems(self) -> list[str]:
        """What is wrong now, in words (waits up to ``deadline`` for the repository)."""
        probe = self._begin()
        probe.done.wait(max(0.0, probe.since + self.deadline - time.monotonic()))
        return self._outcome(probe)

    async def problems_async(self) -> list[str]:
        """`problems` for an event loop: waits without taking a worker thread (they may all be
        stuck on the repository)."""
        probe = self._begin()
        while not probe.done.is_set() and time.monotonic() < probe.since + self.deadline:
            await asyncio.sleep(0.02)
        return self._outcome(probe)

    def _begin(self) -> _Probe:
        """The running probe, or a new one (one at a time: a stuck one is waited for)."""
        with self._lock:
            if self._probe is None:
                self._probe = _Probe()
                threading.Thread(
                    target=self._run, args=(self._probe,), name="anomaly-health", daemon=True
                ).start()
            return self._probe

    def _outcome(self, probe: _Probe) -> list[str]:
        found = []
        if not probe.done.is_set():
            found.append(
                f"a read of the repository has waited {time.monotonic() - probe.since:.0f} s "
                f"(deadline {self.deadline:g} s): scans cannot save their results"
            )
        elif probe.error is not None:
            found.append(probe.error)
        for check in self.checks:
            try:
                problem = check()
            except Exception as error:  # a broken check is a problem, not a crash
                problem = f"health check failed: {type(error).__name__}"
            if problem is not None:
                found.append(problem)
        return found

    def _run(self, probe: _Probe) -> None:
        try:
            with self.repo.sql() as cur:
                cur.execute("SELECT count(*) FROM scan_log").fetchall()
        except Exception as exc:
            probe.error = f"the repository cannot be read: {type(exc).__name__}"
        with self._lock:
            self._probe = None
        probe.done.set()


class _Probe:
    """One read of the repository, running or done."""

    def __init__(self) -> None:
        self.done = threading.Event()
        self.since = time.monotonic()
        self.error: str | None = None

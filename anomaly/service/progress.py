"""Progress lines for long scans: steps, and a heartbeat with Spark's task counts."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import datetime
from typing import IO, TYPE_CHECKING

from anomaly.safe_text import terminal_safe

if TYPE_CHECKING:
    from pyspark.sql import SparkSession


class Progress:
    """Where progress goes: a function taking a line, or nowhere.

    Examples
    --------
    >>> lines = []
    >>> progress = Progress(lines.append, clock=False)
    >>> progress.step("daily: reading parquet events.parquet")
    >>> progress.step("FR\\n12:00:00 forged")  # text from data stays on its line
    >>> lines
    ['daily: reading parquet events.parquet', 'FR\\\\n12:00:00 forged']
    >>> Progress.silent().step("nothing is printed")
    """

    def __init__(self, emit: Callable[[str], None] | None, clock: bool = True) -> None:
        self.emit = emit
        self.clock = clock

    @classmethod
    def silent(cls) -> Progress:
        """Progress that prints nothing."""
        return cls(None)

    @classmethod
    def to_stream(cls, stream: IO[str]) -> Progress:
        """Progress printed (and flushed) to `stream`, each line with the time."""

        def emit(line: str) -> None:
            print(line, file=stream, flush=True)

        return cls(emit)

    def step(self, message: str) -> None:
        """One progress line (made safe for a terminal: it may name data)."""
        if self.emit is not None:
            stamp = f"{datetime.now():%H:%M:%S} " if self.clock else ""
            self.emit(f"{stamp}{terminal_safe(message)}")

    @contextmanager
    def spark_work(self, spark: SparkSession, what: str, every: float = 10.0) -> Iterator[None]:
        """Report every `every` seconds while Spark works: elapsed time and task counts."""
        if self.emit is None:
            yield
            return
        done = threading.Event()
        started = time.monotonic()

        def beat() -> None:
            while not done.wait(every):
                elapsed = time.monotonic() - started
                self.step(f"{what}: running for {elapsed:.0f} s{_tasks(spark)}")

        thread = threading.Thread(target=beat, name="anomaly-progress", daemon=True)
        thread.start()
        try:
            yield
        finally:
            done.set()
            thread.join()


def _tasks(spark: SparkSession) -> str:
    """``; 120/400 tasks done`` over Spark's active stages (nothing on Spark Connect)."""
    try:
        tracker = spark.sparkContext.statusTracker()
        infos = [tracker.getStageInfo(s) for s in tracker.getActiveStageIds()]
    except Exception:  # Spark Connect has no status tracker; progress is best effort
        return ""
    stages = [i for i in infos if i is not None]
    if not stages:
        return ""
    total = sum(int(i.numTasks) for i in stages)
    finished = sum(int(i.numCompletedTasks) for i in stages)
    return f"; {finished}/{total} tasks of {len(stages)} active stage(s) done"

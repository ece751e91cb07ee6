"""A streaming job run in its own process by the kill/restart test (``python -m``).

Usage: ``python -m tests.anomaly.streaming._job INCOMING CHECKPOINT REPOSITORY TRIGGER
[CRASH_AFTER]``: reads the JSON-lines directory INCOMING one file per micro-batch and prints
``batch <id> closed <window starts>`` per batch. With CRASH_AFTER, the process SIGKILLs itself
right after batch CRASH_AFTER is stored, before Spark records it as done (so a restart replays
that batch).
"""

from __future__ import annotations

import os
import signal
import sys

from anomaly.spark import build_session
from anomaly.streaming import BatchReport, StreamingMetrics
from anomaly.streaming.stream import Listener
from conftest import session_conf
from repository import MetricsRepository
from tests.anomaly.streaming.data import SCHEMA, SHARED


def stream(repository: MetricsRepository, listener: Listener | None = None) -> StreamingMetrics:
    """The job's stream (the test restarts it in its own process too)."""
    return StreamingMetrics(
        "orders", SHARED, time_column="ts", window="1m", watermark="45s", repository=repository,
        group_by=["country"], detector=None, listener=listener,
    )  # fmt: skip


def main(incoming: str, checkpoint: str, repository: str, trigger: str, crash: str = "") -> None:
    # The test session's JVM settings (C1 only, serial GC): a JVM that lives seconds starts and
    # runs its few batches on less CPU.
    spark = build_session(master="local[2]", conf=session_conf())

    def report(batch: BatchReport) -> None:
        starts = [w.window.start for w in batch.closed]
        print(f"batch {batch.batch_id} closed {starts}", flush=True)
        if crash and batch.batch_id == int(crash):
            os.kill(os.getpid(), signal.SIGKILL)

    job = stream(MetricsRepository(repository), report)
    df = spark.readStream.schema(SCHEMA).option("maxFilesPerTrigger", 1).json(incoming)
    job.start(df, checkpoint, trigger=trigger).awaitTermination()


if __name__ == "__main__":
    main(*sys.argv[1:])

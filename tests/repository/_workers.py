"""Code run in other processes by the concurrency and crash tests (``python -m`` or spawn)."""

from __future__ import annotations

import os
import sys
import time
from multiprocessing.queues import Queue
from multiprocessing.synchronize import Barrier

from repository import (
    AnalyzerState,
    AnomalyVerdict,
    CheckOutcome,
    MetricRecord,
    MetricsRepository,
    ResultKey,
)


def save_runs(path: str, worker: int, count: int, start: Barrier | None = None) -> None:
    """``count`` small runs of one worker: a size, a grouped mean and a failed metric each;
    the first once every worker passed `start` (so that they all race, however slowly each
    process started)."""
    repo = MetricsRepository(path, lock_timeout=120)
    if start is not None:
        start.wait(timeout=120)
    for i in range(count):
        key = ResultKey(i * 1000 + worker, {"dataset": "orders", "worker": str(worker)})
        repo.save(
            key,
            [
                MetricRecord("Dataset", "*", "Size", "Size(*)", float(i)),
                MetricRecord("Column", "p", "Mean", "Mean(p)", float(worker), {"g": str(i % 3)}),
                MetricRecord("Column", "q", "Mean", "Mean(q)", None, error=f"worker {worker}"),
            ],
        )


def save_points(
    location: str, worker: int, saves: int, points: int, start: Barrier | None = None
) -> None:
    """``saves`` runs of ``points`` points: a size (worker * 1000 + run) and grouped means of
    groups every worker shares (so that workers race to create the same series and groups),
    the first once every worker passed `start`."""
    repo = MetricsRepository(location, lock_timeout=300)
    if start is not None:
        start.wait(timeout=300)
    for i in range(saves):
        key = ResultKey(i * 1000 + worker, {"dataset": "orders", "worker": str(worker)})
        means = [
            MetricRecord("Column", "p", "Mean", "Mean(p)", i + g / 100, {"g": str(g)})
            for g in range(points - 1)
        ]
        repo.save(
            key, [MetricRecord("Dataset", "*", "Size", "Size(*)", worker * 1000.0 + i), *means]
        )


def pipeline(location: str, worker: int, stop: str, least: int, pause: float = 0.0) -> None:
    """What a pipeline with ``has_no_anomalies`` does, run after run until ``stop`` exists (at
    least ``least`` runs): read its history, judge, save metrics, outcomes and verdicts; then
    ``pause`` seconds of its own work before the next run."""
    repo = MetricsRepository(location, lock_timeout=300)
    tags = {"dataset": "orders", "pipeline": str(worker)}
    i = 0
    while i < least or not os.path.exists(stop):
        history = repo.history("Size(*)", tags=tags)
        if len(history) != i:
            raise AssertionError(f"pipeline {worker} run {i} sees {len(history)} earlier runs")
        latest = repo.latest("Mean(p)", tags=tags)
        if i and len(latest) != 5:
            raise AssertionError(f"pipeline {worker} run {i}: latest has {len(latest)} groups")
        value = 100.0 + i
        repo.save(
            ResultKey(i * 1000 + worker, tags),
            [
                MetricRecord("Dataset", "*", "Size", "Size(*)", value),
                *(
                    MetricRecord("Column", "p", "Mean", "Mean(p)", float(g), {"g": str(g)})
                    for g in range(5)
                ),
            ],
            outcomes=[CheckOutcome("orders", "has_size(> 0)", "Success", value=value)],
            verdicts=[AnomalyVerdict("Size(*)", "normal", "OnlineNormal", value=value)],
        )
        i += 1
        time.sleep(pause)


def write_and_replace(path: str, runs: int, size: int) -> None:
    """``runs`` runs of ``size`` points all of value ``i``; each run is then re-saved (replaced)
    with value ``i + 0.5``: a reader must see every run whole, with one value."""
    repo = MetricsRepository(path, lock_timeout=120)
    for i in range(runs):
        for value in (float(i), i + 0.5):
            repo.save(ResultKey(i, {"dataset": "orders"}), uniform_run(size, value))


def uniform_run(size: int, value: float) -> list[MetricRecord]:
    return [
        MetricRecord("Column", "p", "Mean", "Mean(p)", value, {"g": str(g)}) for g in range(size)
    ]


def read_while(path: str, stop: str, size: int, results: Queue[tuple[int, float, str]]) -> None:
    """Read every run until the file ``stop`` exists; report (reads, slowest s, error)."""
    reads, slowest, error = 0, 0.0, ""
    try:
        repo = MetricsRepository(path, lock_timeout=120)
        while not os.path.exists(stop):
            started = time.perf_counter()
            for run in repo.load().get():
                values = {m.value or 0.0 for m in run}
                if (
                    len(run) != size
                    or len(values) != 1
                    or {int(v) for v in values} != {run.key.epoch_ms}
                ):
                    raise AssertionError(f"run {run.key}: {len(run)} points, values {values}")
            slowest = max(slowest, time.perf_counter() - started)
            reads += 1
    except BaseException as exc:  # reported to the test
        error = f"{type(exc).__name__}: {exc}"
    results.put((reads, slowest, error))


def big_run(metrics: int, groups: int) -> list[MetricRecord]:
    return [
        MetricRecord("Column", f"c{m}", "Mean", f"Mean(c{m})", float(g), {"g": str(g)})
        for m in range(metrics)
        for g in range(groups)
    ]


def _print(line: str) -> None:
    print(line, flush=True)


def main(argv: list[str]) -> None:
    command, path = argv[0], argv[1]
    repo = MetricsRepository(path)
    if command == "hold-session":  # keep the repository (and its shared lock) for some seconds
        with repo.session():
            repo.history("Size(*)")
            _print("ready")
            _print(f"at {time.monotonic()}")  # the system-wide clock: comparable across processes
            time.sleep(float(argv[2]))
    elif command == "hold-write-session":  # the same after a write: the lock is exclusive
        with repo.session():
            repo.save(ResultKey(0), [MetricRecord("Dataset", "*", "Size", "Size(*)", 1.0)])
            _print("ready")
            _print(f"at {time.monotonic()}")
            time.sleep(float(argv[2]))
    elif command == "big-save":  # a committed small run, then a large one to be killed
        repo.save(
            ResultKey(0, {"run": "small"}), [MetricRecord("Dataset", "*", "Size", "Size(*)", 1.0)]
        )
        records = big_run(int(argv[2]), int(argv[3]))
        _print("saving")
        repo.save(ResultKey(1, {"run": "big"}), records)
        _print("saved")
    elif command == "big-replace":  # states of many partitions, to be killed while replaced
        repo.states.replace_partitions("d", [AnalyzerState("p0", "m", "k", 1, b"old")])
        states = [
            AnalyzerState(f"p{p}", "m", "k", 2, os.urandom(4 * 1024 * 1024))
            for p in range(int(argv[2]))
        ]
        _print("saving")
        repo.states.replace_partitions("d", states)
        _print("saved")
    else:
        raise SystemExit(f"unknown command {command!r}")


if __name__ == "__main__":
    main(sys.argv[1:])

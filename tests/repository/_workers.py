"""Code run in other processes by the concurrency and crash tests (``python -m`` or spawn)."""

from __future__ import annotations

import os
import sys
import time

from repository import AnalyzerState, MetricRecord, MetricsRepository, ResultKey


def save_runs(path: str, worker: int, count: int) -> None:
    """``count`` small runs of one worker: a size, a grouped mean and a failed metric each."""
    repo = MetricsRepository(path, lock_timeout=120)
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
    if command == "hold-session":  # keep the repository (and its lock) for some seconds
        with repo.session():
            _print("ready")
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

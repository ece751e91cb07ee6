"""Helpers shared by the benchmarks: timing, Spark job counting, result files, tables."""

from __future__ import annotations

import itertools
import json
import os
import platform
import resource
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

# bench/repository.py and bench/detectors.py carry the packages' names: the repository root must
# precede bench/ on sys.path, or `import repository` would load the benchmark.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

RESULTS = Path(__file__).parent / "results"
_groups = itertools.count()


def timed(action: Callable[[], Any], repeat: int = 1) -> tuple[float, Any]:
    """Best wall time of `repeat` runs, and the last result."""
    best, result = float("inf"), None
    for _ in range(repeat):
        start = time.perf_counter()
        result = action()
        best = min(best, time.perf_counter() - start)
    return best, result


def spark_jobs(spark: Any, action: Callable[[], Any]) -> tuple[int, Any]:
    """Number of Spark jobs `action` starts (job group + status tracker), and its result."""
    group = f"bench-{next(_groups)}"
    context = spark.sparkContext
    context.setJobGroup(group, group)
    try:
        result = action()
    finally:
        context.setLocalProperty("spark.jobGroup.id", None)
    return len(context.statusTracker().getJobIdsForGroup(group)), result


class CpuClock:
    """CPU seconds used by the Spark JVM (local mode: driver and executors) plus this process.

    On a machine shared with other Spark jobs, wall times swing by 2x between runs; the CPU a
    method consumes does not depend on how long it waited for a core.
    """

    def __init__(self, spark: Any) -> None:
        self.pid = spark.sparkContext._jvm.java.lang.ProcessHandle.current().pid()
        self.tick = os.sysconf("SC_CLK_TCK")

    def __call__(self) -> float:
        fields = Path(f"/proc/{self.pid}/stat").read_text().rsplit(")", 1)[1].split()
        own = resource.getrusage(resource.RUSAGE_SELF)
        return (int(fields[11]) + int(fields[12])) / self.tick + own.ru_utime + own.ru_stime


def print_table(headers: Sequence[str], rows: Sequence[Sequence[Any]]) -> None:
    """A plain fixed-width table on stdout."""
    cells = [[_fmt(v) for v in row] for row in rows]
    widths = [max(len(h), *(len(r[i]) for r in cells)) for i, h in enumerate(headers)]
    print("  ".join(h.ljust(w) for h, w in zip(headers, widths, strict=True)))
    print("  ".join("-" * w for w in widths))
    for row in cells:
        print("  ".join(v.ljust(w) for v, w in zip(row, widths, strict=True)))


def write_results(name: str, payload: dict[str, Any]) -> Path:
    """Write bench/results/<name>.json with the machine it ran on."""
    RESULTS.mkdir(exist_ok=True)
    path = RESULTS / f"{name}.json"
    payload = {"machine": {"python": platform.python_version(), "cpus": _cpus()}, **payload}
    path.write_text(json.dumps(payload, indent=2) + "\n")
    return path


def _cpus() -> int:
    return len(os.sched_getaffinity(0))


def _fmt(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:.3f}" if abs(value) < 1000 else f"{value:,.0f}"
    return str(value)

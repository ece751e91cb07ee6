"""Data, timing and the naive stores of ``bench/repository.py`` (compared in the same run).

* row-by-row ``executemany`` of one 10k-point run into a flat DuckDB table, in one transaction;
* Deequ's ``FileSystemMetricsRepository`` approach: the whole history in one JSON file, read in
  full for a query and rewritten in full on every save.
"""

from __future__ import annotations

import json
import statistics
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

import duckdb
import numpy as np

from repository import MetricRecord

DAY0 = datetime(2024, 1, 1, tzinfo=UTC)
TAGS = {"dataset": "orders", "env": "prod"}


def run_records(metrics: int, groups: int, seed: int) -> list[MetricRecord]:
    values = np.random.default_rng(seed).normal(100.0, 10.0, metrics * groups).tolist()
    return [
        MetricRecord(
            "Column",
            f"c{m}",
            "Mean",
            f"Mean(c{m})",
            values[m * groups + g],
            {"segment": f"s{g:03d}"},
        )
        for m in range(metrics)
        for g in range(groups)
    ]


CPU_MS: list[float] = []  # CPU times of the calls timed last, read by summary()
SERVER_CPU: list[Callable[[], float]] = []  # the CPU seconds of a database server, if one is used


def timed(action: Callable[[], object], repeat: int) -> list[float]:
    """Wall times in milliseconds of ``repeat`` calls; their CPU times go to ``CPU_MS``: this
    process's per call, plus the database server's averaged over the calls (the kernel counts
    it in 10 ms ticks, too coarse for one call)."""
    times, own = [], []
    server = SERVER_CPU[0]() if SERVER_CPU else 0.0
    for _ in range(repeat):
        start, cpu = time.perf_counter(), time.process_time()
        action()
        times.append((time.perf_counter() - start) * 1000)
        own.append((time.process_time() - cpu) * 1000)
    shared = (SERVER_CPU[0]() - server) * 1000 / repeat if SERVER_CPU else 0.0
    CPU_MS[:] = [ms + shared for ms in own]
    return times


def summary(times: list[float]) -> dict[str, float]:
    """Median and p90 wall time, and the median CPU time of this process (all its threads) and
    of the database server: on a busy machine the CPU time is the better guess of the wall time
    on an idle one."""
    ordered = sorted(times)
    return {
        "median_ms": round(statistics.median(ordered), 2),
        "p90_ms": round(ordered[int(0.9 * (len(ordered) - 1))], 2),
        "cpu_median_ms": round(statistics.median(CPU_MS), 2),
        "n": len(ordered),
    }


def executemany_baseline(folder: Path) -> dict[str, float]:
    """One 10k-point run inserted row by row into a flat table in one transaction."""
    con = duckdb.connect(str(folder / "flat.duckdb"))
    con.execute(
        "CREATE TABLE metrics (ts TIMESTAMPTZ, tags VARCHAR, metric_id VARCHAR, "
        "entity VARCHAR, instance VARCHAR, name VARCHAR, grp VARCHAR, value DOUBLE, "
        "error VARCHAR)"
    )
    rows = [
        (
            DAY0,
            json.dumps(TAGS),
            r.metric_id,
            r.entity,
            r.instance,
            r.name,
            json.dumps(dict(r.group)),
            r.value,
            r.error,
        )
        for r in run_records(100, 100, 1)
    ]

    def insert() -> None:
        con.execute("BEGIN")
        con.executemany("INSERT INTO metrics VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", rows)
        con.execute("COMMIT")

    times = timed(insert, 2)
    con.close()
    return {
        "save_10k_ms": round(statistics.median(times), 1),
        "points_per_second": round(10_000 / (statistics.median(times) / 1000)),
    }


def json_baseline(folder: Path, metrics: int, groups: int, days: int) -> dict[str, float]:
    """Deequ-style: the whole history in one JSON file, read for queries, rewritten on save."""
    path = folder / "metrics.json"
    history = [
        {
            "resultKey": {
                "dataSetDate": int((DAY0 + timedelta(days=d)).timestamp() * 1000),
                "tags": TAGS,
            },
            "analyzerContext": {
                "metricMap": [
                    {
                        "metric_id": r.metric_id,
                        "entity": r.entity,
                        "instance": r.instance,
                        "name": r.name,
                        "group": dict(r.group),
                        "value": r.value,
                    }
                    for r in run_records(metrics, groups, d)
                ]
            },
        }
        for d in range(days)
    ]
    path.write_text(json.dumps(history))
    history.clear()
    new_run = run_records(100, 100, 5)

    def save() -> None:
        stored = json.loads(path.read_text())
        stored.append(
            {
                "resultKey": {"dataSetDate": 0, "tags": TAGS},
                "analyzerContext": {
                    "metricMap": [
                        {"metric_id": r.metric_id, "value": r.value, "group": dict(r.group)}
                        for r in new_run
                    ]
                },
            }
        )
        path.write_text(json.dumps(stored))

    def load_series() -> None:
        stored = json.loads(path.read_text())
        series = [
            (run["resultKey"]["dataSetDate"], m["value"])
            for run in stored
            for m in run["analyzerContext"]["metricMap"]
            if m["metric_id"] == "Mean(c1)" and m["group"] == {"segment": "s001"}
        ]
        assert series

    return {
        "points": metrics * groups * days,
        "bytes": path.stat().st_size,
        "history_ms": round(statistics.median(timed(load_series, 3)), 1),
        "save_10k_ms": round(statistics.median(timed(save, 3)), 1),
    }

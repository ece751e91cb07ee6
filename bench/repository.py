"""Benchmark of the DuckDB metrics repository against naive stores, measured in one run.

History of 10M points: 1,000 metrics x 100 groups x 100 daily runs, saved through
``MetricsRepository.save`` one run (100k points) at a time. Then:

* ``history()`` of one series and ``latest()`` of all 100 groups of one metric, each per operation
  (the file is attached and released every call, the default) and inside ``session()``, before
  and after ``compact()`` (and the file size before and after it);
* ``history()`` per operation while two other processes read in a loop (readers share the file);
* saving a new 10k-point run into the 10M-point file, and re-saving it (replace);
* the state store replacing 8 partitions of 16 MiB states at once, and reading them back.

Baselines, in the same run: row-by-row ``executemany`` into a flat DuckDB table (the 10k-point
run), and Deequ's ``FileSystemMetricsRepository`` approach: one JSON file holding the whole
history, read in full for a query and rewritten in full on every save (at 1/10 scale: a 10M-point
JSON history does not fit the machine's time budget; its cost grows linearly with the history).

Usage: ``python3 bench/repository.py [--metrics 1000 --groups 100 --days 100]``; writes
``bench/results/repository.json``.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import platform
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import duckdb
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from repository import AnalyzerState, MetricRecord, MetricsRepository, ResultKey

DAY0 = datetime(2024, 1, 1, tzinfo=UTC)
TAGS = {"dataset": "orders", "env": "prod"}
RESULTS = Path(__file__).resolve().parent / "results" / "repository.json"


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


def timed(action: Callable[[], object], repeat: int) -> list[float]:
    """Wall times in milliseconds of ``repeat`` calls (their CPU times go to ``CPU_MS``)."""
    times = []
    CPU_MS.clear()
    for _ in range(repeat):
        start, cpu = time.perf_counter(), time.process_time()
        action()
        times.append((time.perf_counter() - start) * 1000)
        CPU_MS.append((time.process_time() - cpu) * 1000)
    return times


def summary(times: list[float]) -> dict[str, float]:
    """Median and p90 wall time, and the median CPU time of this process (all its threads): on a
    busy machine the CPU time is the better guess of the wall time on an idle one."""
    ordered = sorted(times)
    return {
        "median_ms": round(statistics.median(ordered), 2),
        "p90_ms": round(ordered[int(0.9 * (len(ordered) - 1))], 2),
        "cpu_median_ms": round(statistics.median(CPU_MS), 2),
        "n": len(ordered),
    }


def build(repo: MetricsRepository, metrics: int, groups: int, days: int) -> dict[str, float]:
    # Five value sets cycled over the days: building 10M Python records would dominate the run.
    templates = [run_records(metrics, groups, seed) for seed in range(min(days, 5))]
    seconds = 0.0
    for day in range(days):
        start = time.perf_counter()
        repo.save(ResultKey(DAY0 + timedelta(days=day), TAGS), templates[day % len(templates)])
        seconds += time.perf_counter() - start
        if day % 10 == 9:
            print(f"  saved {day + 1} runs", flush=True)
    points = metrics * groups * days
    return {
        "points": points,
        "seconds": round(seconds, 2),
        "points_per_second": round(points / seconds),
    }


def reads(repo: MetricsRepository, metrics: int, groups: int) -> dict[str, dict[str, float]]:
    rng = random.Random(7)
    series = [
        (f"Mean(c{rng.randrange(metrics)})", {"segment": f"s{rng.randrange(groups):03d}"})
        for _ in range(40)
    ]
    picks = iter(series * 4)

    def history() -> None:
        metric, group = next(picks)
        assert len(repo.history(metric, tags=TAGS, group=group)) > 0

    def latest() -> None:
        metric, _ = next(picks)
        assert len(repo.latest(metric, tags=TAGS)) == groups

    out = {
        "history_per_operation": summary(timed(history, 40)),
        "latest_all_groups_per_operation": summary(timed(latest, 20)),
    }
    with repo.session():
        out["history_in_session"] = summary(timed(history, 40))
        out["latest_all_groups_in_session"] = summary(timed(latest, 20))
    return out


def _read_in_loop(path: str, stop: str, results: Any) -> None:
    """A reader process (a dashboard): ``history()`` per operation until ``stop`` exists."""
    repo, reads = MetricsRepository(path, lock_timeout=120), 0
    started = time.perf_counter()
    while not os.path.exists(stop):
        repo.history("Mean(c1)", tags=TAGS, group={"segment": "s001"})
        reads += 1
    results.put(reads / (time.perf_counter() - started))


def _hold_read_session(path: str, seconds: float, ready: Any) -> None:
    """A process evaluating checks: one read session kept open for ``seconds``."""
    repo = MetricsRepository(path, lock_timeout=120)
    with repo.session():
        repo.history("Mean(c1)", tags=TAGS, group={"segment": "s001"})
        ready.put(True)
        time.sleep(seconds)


def read_beside_session(repo: MetricsRepository, groups: int) -> dict[str, Any]:
    """``history()`` calls while another process keeps a 3-second read session open: with an
    exclusive lock for readers the first call waits for the session's end."""
    context = multiprocessing.get_context("spawn")
    ready = context.Queue()
    holder = context.Process(target=_hold_read_session, args=(repo.path, 3.0, ready))
    holder.start()
    ready.get(timeout=120)
    rng = random.Random(5)

    def history() -> None:
        group = {"segment": f"s{rng.randrange(groups):03d}"}
        assert len(repo.history("Mean(c3)", tags=TAGS, group=group)) > 0

    times = timed(history, 5)
    holder.join(timeout=60)
    return {"max_ms": round(max(times), 1), "median_ms": round(statistics.median(times), 1)}


def concurrent_reads(repo: MetricsRepository, folder: Path, groups: int) -> dict[str, Any]:
    """``history()`` per operation while two other processes run ``history()`` in a loop: with
    an exclusive lock for readers they queue behind each other, with a shared one they do not."""
    context = multiprocessing.get_context("spawn")
    results = context.Queue()
    stop = folder / "stop-readers"
    others = [
        context.Process(target=_read_in_loop, args=(repo.path, str(stop), results))
        for _ in range(2)
    ]
    for process in others:
        process.start()
    time.sleep(5)  # let them import and start reading
    rng = random.Random(11)

    def history() -> None:
        group = {"segment": f"s{rng.randrange(groups):03d}"}
        assert len(repo.history("Mean(c2)", tags=TAGS, group=group)) > 0

    out: dict[str, Any] = {"history_per_operation": summary(timed(history, 40))}
    stop.touch()
    out["other_readers_reads_per_second"] = [round(results.get(timeout=120), 1) for _ in others]
    for process in others:
        process.join(timeout=60)
    return out


def saves(repo: MetricsRepository, days: int) -> dict[str, dict[str, float]]:
    records = run_records(100, 100, 99)  # 10k points
    keys = iter(ResultKey(DAY0 + timedelta(days=days + n), TAGS) for n in range(1000))
    new = summary(timed(lambda: repo.save(next(keys), records), 15))
    again = ResultKey(DAY0 + timedelta(days=days + 500), TAGS)
    repo.save(again, records)
    replace = summary(timed(lambda: repo.save(again, records), 10))
    return {"save_10k_new_run": new, "save_10k_replace_run": replace}


def states(repo: MetricsRepository) -> dict[str, float]:
    payloads = [
        AnalyzerState(f"p{p}", "CountDistinct(id)", "frequencies", 1, os.urandom(16 * 1024 * 1024))
        for p in range(8)
    ]
    write = timed(lambda: repo.states.replace_partitions("orders", payloads), 3)
    read = timed(lambda: repo.states.load("orders"), 3)
    return {
        "replace_8x16MiB_ms": round(statistics.median(write), 1),
        "load_8x16MiB_ms": round(statistics.median(read), 1),
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--metrics", type=int, default=1000)
    parser.add_argument("--groups", type=int, default=100)
    parser.add_argument("--days", type=int, default=100)
    parser.add_argument("--output", type=Path, default=RESULTS)
    args = parser.parse_args()
    load_before = os.getloadavg()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        repo = MetricsRepository(folder / "metrics.duckdb")
        print(f"building {args.metrics * args.groups * args.days:,} points ...", flush=True)
        result: dict[str, object] = {"insert": build(repo, args.metrics, args.groups, args.days)}
        result["file_mb_before_compact"] = round((folder / "metrics.duckdb").stat().st_size / 1e6)
        result["reads_before_compact"] = reads(repo, args.metrics, args.groups)
        start = time.perf_counter()
        repo.compact()
        result["compact_seconds"] = round(time.perf_counter() - start, 2)
        result["file_mb_after_compact"] = round((folder / "metrics.duckdb").stat().st_size / 1e6)
        result["reads_after_compact"] = reads(repo, args.metrics, args.groups)
        result["reads_beside_two_reader_processes"] = concurrent_reads(repo, folder, args.groups)
        result["reads_beside_a_read_session"] = read_beside_session(repo, args.groups)
        result["saves"] = saves(repo, args.days)
        result["file_mb"] = round((folder / "metrics.duckdb").stat().st_size / 1e6)
        result["state_store"] = states(repo)
        print("baselines ...", flush=True)
        result["baseline_executemany"] = executemany_baseline(folder)
        json_days = max(1, args.days // 10)
        result["baseline_deequ_json"] = json_baseline(folder, args.metrics, args.groups, json_days)
    result["machine"] = {
        "cpus": os.cpu_count(),
        "python": platform.python_version(),
        "duckdb": duckdb.__version__,
        "load_average_before": [round(x, 1) for x in load_before],
        "load_average_after": [round(x, 1) for x in os.getloadavg()],
    }
    result["config"] = vars(args) | {"output": str(args.output)}
    print_table(result)
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(json.dumps(result, indent=2) + "\n")
    print(f"wrote {args.output}")


def print_table(r: dict[str, Any]) -> None:
    before, after, saves_ = r["reads_before_compact"], r["reads_after_compact"], r["saves"]
    naive, deequ = r["baseline_executemany"], r["baseline_deequ_json"]
    json_at = f"Deequ JSON, {deequ['points'] / 1e6:g}M points"
    rows: list[tuple[str, dict[str, float], float | None, str, float | None]] = [
        ("history, per op", before["history_per_operation"], deequ["history_ms"], json_at, 20),
        ("  after compact()", after["history_per_operation"], None, "", 20),
        ("history, in session", before["history_in_session"], None, "", 20),
        ("  after compact()", after["history_in_session"], None, "", 20),
        ("latest, 100 groups, per op", before["latest_all_groups_per_operation"],
         deequ["history_ms"], json_at, None),
        ("  after compact()", after["latest_all_groups_per_operation"], None, "", None),
        ("save 10k-point run", saves_["save_10k_new_run"], naive["save_10k_ms"], "executemany",
         200),
        ("  same vs JSON rewrite", saves_["save_10k_new_run"], deequ["save_10k_ms"], json_at, 200),
        ("re-save 10k-point run", saves_["save_10k_replace_run"], None, "", 200),
    ]  # fmt: skip
    print(f"\n{'ms':28} {'ours':>8} {'cpu':>8} {'naive':>9} {'x':>6}  {'naive is':28} target")
    for name, ours, other, what, target in rows:
        ratio = f"{other / ours['median_ms']:.0f}x" if other else ""
        met = "" if target is None else ("ok" if ours["median_ms"] < target else "MISSED")
        print(
            f"{name:28} {ours['median_ms']:>8} {ours['cpu_median_ms']:>8} {other or '':>9} "
            f"{ratio:>6}  {what:28} {'< ' + str(target) if target else ''} {met}"
        )
    speed = r["insert"]["points_per_second"]
    print(
        f"\ninsert through save(): {speed:,} points/s; executemany: "
        f"{naive['points_per_second']:,} points/s ({speed / naive['points_per_second']:.0f}x)"
    )
    beside = r["reads_beside_two_reader_processes"]
    print(
        f"history, per op, beside two reader processes: {beside['history_per_operation']}; "
        f"they read {beside['other_readers_reads_per_second']} times/s"
    )
    print(
        "5 history() calls while another process has a read session: "
        f"{r['reads_beside_a_read_session']}"
    )
    print(
        f"compact(): {r['compact_seconds']} s; file {r['file_mb_before_compact']} MB before, "
        f"{r['file_mb_after_compact']} MB after ({r['file_mb']} MB after the save benchmark); "
        f"state store: {r['state_store']}"
    )
    print(
        f"load average before/after: {r['machine']['load_average_before']} / "
        f"{r['machine']['load_average_after']} on {r['machine']['cpus']} CPUs"
    )


if __name__ == "__main__":
    main()

"""Benchmark of the metrics repository, DuckDB file and PostgreSQL side by side, against naive
stores, measured in one run.

History of 10M points: 1,000 metrics x 100 groups x 100 daily runs, saved through
``MetricsRepository.save`` one run (100k points) at a time, into a DuckDB file and into a
PostgreSQL database (a throwaway local server, ``TemporaryCluster``, with initdb's default
settings: durable commits, 128 MB of shared buffers). Then, on each:

* ``history()`` of one series and ``latest()`` of all 100 groups of one metric, each per operation
  (the default: the DuckDB file is attached and released every call, a PostgreSQL connection taken
  from the pool) and, on DuckDB, inside ``session()``; before and after ``compact()`` (and the
  size on disk before and after it). PostgreSQL's tables are ``ANALYZE``-d after the build, as
  autovacuum would do within a minute;
* ``history()`` per operation while two other processes read in a loop;
* saving a new 10k-point run into the 10M-point history, and re-saving it (replace);
* the state store replacing 8 partitions of 16 MiB states at once, and reading them back.

Baselines, in the same run: row-by-row ``executemany`` into a flat DuckDB table (the 10k-point
run), and Deequ's ``FileSystemMetricsRepository`` approach: one JSON file holding the whole
history, read in full for a query and rewritten in full on every save (at 1/10 scale: a 10M-point
JSON history does not fit the machine's time budget; its cost grows linearly with the history).

Usage: ``python3 bench/repository.py [--metrics 1000 --groups 100 --days 100]
[--backends duckdb,postgresql]``; writes ``bench/results/repository.json``. PostgreSQL needs the
server binaries (Debian: ``apt-get install postgresql``); it runs as the ``postgres`` user when
started as root.
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
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import timedelta
from pathlib import Path
from typing import Any

import duckdb
import psycopg

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from repository_common import (
    DAY0,
    SERVER_CPU,
    TAGS,
    executemany_baseline,
    json_baseline,
    run_records,
    summary,
    timed,
)

from repository import AnalyzerState, MetricsRepository, ResultKey
from repository.backends.postgres.cluster import TemporaryCluster

RESULTS = Path(__file__).resolve().parent / "results" / "repository.json"
BACKENDS = ("duckdb", "postgresql")


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


def reads(
    repo: MetricsRepository, metrics: int, groups: int, session: bool
) -> dict[str, dict[str, float]]:
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
    if session:  # on PostgreSQL a session changes nothing
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
    stop.unlink()
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


@contextmanager
def duckdb_store(folder: Path) -> Iterator[tuple[str, Callable[[], float]]]:
    """A DuckDB repository file, and its size in MB."""
    path = folder / "metrics.duckdb"
    yield str(path), lambda: round(path.stat().st_size / 1e6)


@contextmanager
def postgres_store() -> Iterator[tuple[str, Callable[[], float]]]:
    """A database on a throwaway local server, and its size in MB (timings count the server's
    CPU time too)."""
    with TemporaryCluster() as cluster:
        cluster.create_database("metrics")
        os.environ["PGPASSWORD"] = cluster.password  # inherited by the reader processes
        url = cluster.url("metrics")
        SERVER_CPU.append(cluster.cpu_seconds)

        def size() -> float:
            with psycopg.connect(url) as connection:
                rows = connection.execute("SELECT pg_database_size(current_database())")
                return round(int(rows.fetchall()[0][0]) / 1e6)

        try:
            yield url, size
        finally:
            SERVER_CPU.clear()


def measure(
    backend: str, location: str, size: Callable[[], float], folder: Path, args: Any
) -> dict[str, Any]:
    """Every measurement on one backend."""
    repo = MetricsRepository(location)
    print(f"{backend}: building {args.metrics * args.groups * args.days:,} points ...", flush=True)
    result: dict[str, Any] = {"insert": build(repo, args.metrics, args.groups, args.days)}
    if backend == "postgresql":
        with psycopg.connect(location, autocommit=True) as connection:
            connection.execute("ANALYZE")
    result["mb_before_compact"] = size()
    session = backend == "duckdb"
    result["reads_before_compact"] = reads(repo, args.metrics, args.groups, session)
    start = time.perf_counter()
    repo.compact()
    result["compact_seconds"] = round(time.perf_counter() - start, 2)
    result["mb_after_compact"] = size()
    result["reads_after_compact"] = reads(repo, args.metrics, args.groups, session)
    result["reads_beside_two_reader_processes"] = concurrent_reads(repo, folder, args.groups)
    if backend == "duckdb":
        result["reads_beside_a_read_session"] = read_beside_session(repo, args.groups)
    result["saves"] = saves(repo, args.days)
    result["mb"] = size()
    result["state_store"] = states(repo)
    repo.close()
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--metrics", type=int, default=1000)
    parser.add_argument("--groups", type=int, default=100)
    parser.add_argument("--days", type=int, default=100)
    parser.add_argument("--backends", default=",".join(BACKENDS))
    parser.add_argument("--output", type=Path, default=RESULTS)
    args = parser.parse_args()
    load_before = os.getloadavg()
    result: dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        for backend in args.backends.split(","):
            store = duckdb_store(folder) if backend == "duckdb" else postgres_store()
            with store as (location, size):
                result[backend] = measure(backend, location, size, folder, args)
        print("baselines ...", flush=True)
        result["baseline_executemany"] = executemany_baseline(folder)
        json_days = max(1, args.days // 10)
        result["baseline_deequ_json"] = json_baseline(folder, args.metrics, args.groups, json_days)
    result["machine"] = {
        "cpus": os.cpu_count(),
        "python": platform.python_version(),
        "duckdb": duckdb.__version__,
        "psycopg": psycopg.__version__,
        "load_average_before": [round(x, 1) for x in load_before],
        "load_average_after": [round(x, 1) for x in os.getloadavg()],
    }
    result["config"] = vars(args) | {"output": str(args.output)}
    print_table(result)
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(json.dumps(result, indent=2) + "\n")
    print(f"wrote {args.output}")


def print_table(r: dict[str, Any]) -> None:
    backends = [b for b in BACKENDS if b in r]
    naive, deequ = r["baseline_executemany"], r["baseline_deequ_json"]
    json_at = f"Deequ JSON {deequ['points'] / 1e6:g}M"
    rows: list[tuple[str, str, str, float | None, str, float | None]] = [
        ("history, per op", "reads_before_compact", "history_per_operation",
         deequ["history_ms"], json_at, 20),
        ("  after compact()", "reads_after_compact", "history_per_operation", None, "", 20),
        ("history, in session", "reads_before_compact", "history_in_session", None, "", 20),
        ("  after compact()", "reads_after_compact", "history_in_session", None, "", 20),
        ("latest, 100 groups, per op", "reads_before_compact",
         "latest_all_groups_per_operation", deequ["history_ms"], json_at, None),
        ("  after compact()", "reads_after_compact", "latest_all_groups_per_operation",
         None, "", None),
        ("save 10k-point run", "saves", "save_10k_new_run", naive["save_10k_ms"],
         "executemany", 200),
        ("  same vs JSON rewrite", "saves", "save_10k_new_run", deequ["save_10k_ms"], json_at,
         200),
        ("re-save 10k-point run", "saves", "save_10k_replace_run", None, "", 200),
    ]  # fmt: skip
    heads = "".join(f" {b[:10]:>10} {'cpu':>6} {'x':>5}" for b in backends)
    print(f"\n{'ms, median':27}{heads} {'naive':>9}  {'naive is':19} target")
    for name, section, measure_, other, what, target in rows:
        cells, met = "", []
        for backend in backends:
            ours = r[backend][section].get(measure_)
            if ours is None:
                cells += f" {'-':>10} {'':>6} {'':>5}"
                continue
            ratio = f"{other / ours['median_ms']:.0f}x" if other else ""
            cells += f" {ours['median_ms']:>10} {ours['cpu_median_ms']:>6} {ratio:>5}"
            met.append("ok" if target is None or ours["median_ms"] < target else "MISSED")
        goal = f"< {target} {'/'.join(met)}" if target else ""
        print(f"{name:27}{cells} {other or '':>9}  {what:19} {goal}")
    print(f"\nexecutemany: {naive['points_per_second']:,} points/s")
    for backend in backends:
        b = r[backend]
        beside = b["reads_beside_two_reader_processes"]
        print(
            f"{backend}: insert through save() {b['insert']['points_per_second']:,} points/s; "
            f"history per op beside two reader processes: median "
            f"{beside['history_per_operation']['median_ms']} ms, p90 "
            f"{beside['history_per_operation']['p90_ms']} ms, they read "
            f"{beside['other_readers_reads_per_second']} times/s; compact() "
            f"{b['compact_seconds']} s, {b['mb_before_compact']} MB -> {b['mb_after_compact']} MB "
            f"({b['mb']} MB after the saves); state store {b['state_store']}"
        )
        if "reads_beside_a_read_session" in b:
            print(
                f"{backend}: 5 history() calls while another process has a read session: "
                f"{b['reads_beside_a_read_session']}"
            )
    print(
        f"load average before/after: {r['machine']['load_average_before']} / "
        f"{r['machine']['load_average_after']} on {r['machine']['cpus']} CPUs"
    )


if __name__ == "__main__":
    main()

"""A backfill's writes: a transaction per partition (run, then verdicts) vs `save_many`.

The demo's backfill stores 89 daily partitions of 20 series (4 metrics x 5 countries) and a
verdict per series. Before, each partition's run and its verdicts were two transactions (178
commits); now `MetricsRepository.save_many` stores every run in one transaction and every
verdict in another. Both ways run side by side, in alternating order, into fresh DuckDB files
held open by ``session()`` (as the backfill does); the stored points and verdicts must match.

Prints the table and writes bench/results/backfill_saves.json.

    python bench/backfill_saves.py [--rounds 3] [--partitions 89]
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from common import print_table, write_results

from repository import AnomalyVerdict, MetricRecord, MetricsRepository, ResultKey

WAYS = ("per partition", "save_many")
METRICS = ("Size(*)", "Completeness(price)", "Mean(price)", "Compliance(refund rate)")
COUNTRIES = ("BR", "DE", "FR", "JP", "US")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--partitions", type=int, default=89)
    args = parser.parse_args()
    runs = _partitions(args.partitions)
    rows: list[list[Any]] = []
    for index in range(args.rounds):
        seconds, stored = {}, {}
        for way in WAYS if index % 2 == 0 else WAYS[::-1]:
            path = Path(tempfile.mkdtemp(prefix="backfill-saves-")) / "metrics.duckdb"
            seconds[way], stored[way] = _store(path, runs, way)
        same = stored["per partition"] == stored["save_many"]
        ratio = seconds["per partition"] / seconds["save_many"]
        rows.append([index + 1, seconds["per partition"], seconds["save_many"], ratio, same])
    headers = ["round", "per partition s", "save_many s", "ratio", "same rows"]
    print_table(headers, rows)
    payload = {"partitions": args.partitions, "series": len(METRICS) * len(COUNTRIES),
               "rows": [dict(zip(headers, r, strict=True)) for r in rows],
               "load_average": os.getloadavg()[0]}  # fmt: skip
    print(f"wrote {write_results('backfill_saves', payload)}")


def _partitions(count: int) -> list[tuple[ResultKey, list[MetricRecord], list[AnomalyVerdict]]]:
    start = datetime(2026, 1, 1, tzinfo=UTC)
    found = []
    for day in range(count):
        key = ResultKey(start + timedelta(days=day), {"dataset": "events", "scan": "daily"})
        records = [
            MetricRecord("Dataset", "*", "Size", metric, float(day + i), {"country": country})
            for i, metric in enumerate(METRICS)
            for country in COUNTRIES
        ]
        verdicts = [
            AnomalyVerdict(r.metric_id, "normal", "Adaptive", r.value, 0.0, 1e6, group=r.group)
            for r in records
        ]
        found.append((key, records, verdicts))
    return found


def _store(path: Path, runs: list[Any], way: str) -> tuple[float, tuple[int, int]]:
    repo = MetricsRepository(path)
    started = time.perf_counter()
    with repo.session():
        if way == "save_many":
            repo.save_many((key, records) for key, records, _ in runs)
            repo.save_many(verdicts=[(key, verdicts) for key, _, verdicts in runs])
        else:
            for key, records, _ in runs:
                repo.save(key, records)
            for key, _, verdicts in runs:
                repo.save_verdicts(key, verdicts)
    seconds = time.perf_counter() - started
    stored = (len(repo.load().to_pandas()), len(repo.load_verdicts()))
    return seconds, stored


if __name__ == "__main__":
    main()

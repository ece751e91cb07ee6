"""Benchmark: ``has_no_anomalies`` on a grouped metric, every group judged against its history.

A DuckDB repository holds 90 daily runs of ``Size(*)`` per country (a weekly cycle); today's
run has a value per country and the check judges each with ``Adaptive(share_tails=False)``,
so every group is judged on its own history only. Side by side in one run, on the same file:

* batched (``evaluate_check``, as ``VerificationSuite`` runs it): the histories of all groups
  in one query (``MetricsRepository.histories``) and one vectorised detector call;
* one by one (the check before, and what a user's loop over ``repo.history`` does): a query and
  a detector call per group.

Both give the same verdicts (checked here on every group). The default ``Adaptive()`` also
shares tail heaviness across the groups of the call, which may only widen a band: the last
columns count its alerts and check it adds none. Writes ``bench/results/grouped_checks.json``.

    python3 bench/grouped_checks.py [--groups 100 1000 5000]
"""

from __future__ import annotations

import argparse
import tempfile
import time
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import numpy as np
from common import print_table, write_results

from anomaly.analyzers import Size
from anomaly.analyzers.state import CountState
from anomaly.checks import Check, CheckLevel, ConstraintStatus
from anomaly.engine.context import AnalyzerContext
from anomaly.verification.evaluate import evaluate_check
from detectors import Adaptive
from repository import MetricRecord, MetricsRepository, ResultKey

DAYS = 90
DAY0 = datetime(2026, 1, 5, tzinfo=UTC)
TAGS = {"dataset": "orders"}


def weekday(day: int) -> float:
    """The share of a weekday's rows on ``day`` (weekends are quieter)."""
    return 0.6 if (DAY0 + timedelta(days=day)).weekday() >= 5 else 1.0


def stored(path: Path, base: np.ndarray, rng: np.random.Generator) -> MetricsRepository:
    """A repository with ``DAYS`` daily runs of one row count per country (sizes ``base``)."""
    repo = MetricsRepository(path)
    for day in range(DAYS):
        values = np.round(base * weekday(day) * rng.normal(1, 0.03, len(base)))
        records = [
            MetricRecord("Dataset", "*", "Size", "Size(*)", float(v), {"country": str(g)})
            for g, v in enumerate(values)
        ]
        repo.save(ResultKey(DAY0 + timedelta(days=day), TAGS), records)
    return repo


def measure(groups: int) -> dict[str, Any]:
    rng = np.random.default_rng(groups)
    base = rng.uniform(100, 10_000, groups)
    values = np.round(base * weekday(DAYS) * rng.normal(1, 0.03, groups))
    values[::50] = np.round(values[::50] * 0.4)  # partial loads in 2% of the countries
    metric = Size().metric(CountState(0))
    context = AnalyzerContext({
        (Size(), (str(g),)): replace(metric, value=float(v), group={"country": str(g)})
        for g, v in enumerate(values)
    })  # fmt: skip
    check = Check(CheckLevel.ERROR, "orders").has_no_anomalies(
        Size(), Adaptive(share_tails=False), tags=TAGS
    )
    shared_check = Check(CheckLevel.ERROR, "orders").has_no_anomalies(Size(), tags=TAGS)
    constraint = check.anomaly_constraints[0]
    key = ResultKey(DAY0 + timedelta(days=DAYS), TAGS)
    with tempfile.TemporaryDirectory() as folder:
        repo = stored(Path(folder) / "metrics.duckdb", base, rng)
        constraint.judge(repo.history("Size(*)", group={"country": "0"}), 1.0)  # compile once
        start = time.perf_counter()
        rows = evaluate_check(check, context, repo, key)
        batched_s = time.perf_counter() - start
        start = time.perf_counter()
        alone = [
            constraint.judge(
                repo.history("Size(*)", group={"country": str(g)}, tags=TAGS,
                             exclude_annotated=True),
                float(v), key.timestamp,
            )
            for g, v in enumerate(values)
        ]  # fmt: skip
        alone_s = time.perf_counter() - start
        start = time.perf_counter()
        shared = evaluate_check(shared_check, context, repo, key)
        shared_s = time.perf_counter() - start
        repo.close()
    same = all(
        (r.status, r.lower, r.upper, r.p_value)
        == (constraint.status_of(a), a.lower, a.upper, a.p_value)
        for r, a in zip(rows, alone, strict=True)
    )
    assert same, "the batched check must give every group its own verdict"
    failed = [r.status is ConstraintStatus.FAILURE for r in rows]
    failed_shared = [r.status is ConstraintStatus.FAILURE for r in shared]
    assert not any(s and not f for s, f in zip(failed_shared, failed, strict=True)), (
        "sharing tails may only widen a band"
    )
    return {
        "groups": groups,
        "batched_s": batched_s,
        "one_by_one_s": alone_s,
        "speedup": alone_s / batched_s,
        "ms_per_group_batched": 1000 * batched_s / groups,
        "flagged": sum(failed),
        "shared_s": shared_s,
        "flagged_shared": sum(failed_shared),
        "partial_loads": len(values[::50]),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--groups", type=int, nargs="+", default=[100, 1000, 5000])
    args = parser.parse_args()
    rows = [measure(n) for n in args.groups]
    print_table(
        ["groups", "batched s", "one by one s", "speedup", "ms/group batched", "flagged",
         "partial loads", "default s", "default flagged"],
        [[r["groups"], r["batched_s"], r["one_by_one_s"], f"{r['speedup']:.1f}x",
          r["ms_per_group_batched"], r["flagged"], r["partial_loads"], r["shared_s"],
          r["flagged_shared"]] for r in rows],
    )  # fmt: skip
    print(f"wrote {write_results('grouped_checks', {'days': DAYS, 'rows': rows})}")


if __name__ == "__main__":
    main()

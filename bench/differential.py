"""Differential computation on partitioned data (seed 000 §V), on reddit-shaped generated data.

14 partitions (week_day x controversiality), as in the seed. Three experiments, each ours
(states) vs recomputing from the data, measured side by side in one run:

1. append-only growth: partitions arrive one by one; time per delta, differential vs full;
2. replacing one partition: basic test (one shared scan) and advanced test (+ grouping
   analyzers), differential vs recompute;
3. views: metrics for four partition combinations from stored states alone.

    python bench/differential.py [--rows 10000000]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
from pathlib import Path
from typing import Any

from common import print_table, timed, write_results
from scan_sharing import basic_test, generate

from anomaly import AnalysisRunner, CountDistinct, UniqueValueRatio
from anomaly.analyzers.base import Analyzer
from anomaly.differential import PartitionStates, metrics_from_states
from anomaly.spark import build_session
from repository import MetricsRepository


def advanced_test() -> list[Analyzer[Any]]:
    """The basic test plus the seed's grouping analyzers on subreddit and subreddit_id."""
    return [
        *basic_test(),
        UniqueValueRatio(["subreddit"]),
        UniqueValueRatio(["subreddit_id"]),
        CountDistinct(["subreddit"]),
        CountDistinct(["subreddit_id"]),
        CountDistinct(["subreddit", "subreddit_id"]),
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rows", type=int, default=10_000_000)
    args = parser.parse_args()
    spark = build_session(master="local[*]", conf={"spark.driver.memory": "6g"})
    results: dict[str, Any] = {"rows": args.rows}
    with tempfile.TemporaryDirectory() as tmp:
        raw, path = Path(tmp) / "raw", Path(tmp) / "reddit"
        generate(spark, args.rows, raw)
        spark.read.parquet(str(raw)).write.partitionBy("week_day", "controversiality").parquet(
            str(path)
        )
        table = spark.read.parquet(str(path))
        names = [
            (r["week_day"], r["controversiality"])
            for r in table.select("week_day", "controversiality").distinct().collect()
        ]
        names.sort()

        def part(key: tuple[Any, Any]) -> Any:
            return table.where(f"week_day = '{key[0]}' AND controversiality = {key[1]}")

        def label(key: tuple[Any, Any]) -> str:
            return f"{key[0]}/{key[1]}"

        basic, advanced = basic_test(), advanced_test()
        repo = MetricsRepository(str(Path(tmp) / "metrics.duckdb"))

        # 1. append-only growth
        store = PartitionStates(repo, "append")
        growth = []
        for i, key in enumerate(names):
            delta = part(key)
            runner = AnalysisRunner(spark).on_data(delta).add_analyzers(basic)
            runner = runner.aggregate_with(store).save_states_with(store, label(key))
            differential, _ = timed(runner.run)
            so_far = table.where(
                " OR ".join(
                    f"(week_day = '{w}' AND controversiality = {c})" for w, c in names[: i + 1]
                )
            )
            full, _ = timed(AnalysisRunner(spark).on_data(so_far).add_analyzers(basic).run)
            growth.append({"partitions": i + 1, "differential_s": differential, "full_s": full})
        print(f"1. append-only growth, {args.rows:,} rows in {len(names)} partitions (basic test)")
        print_table(
            ["partitions", "differential s", "full recompute s", "full / differential"],
            [[g["partitions"], g["differential_s"], g["full_s"], g["full_s"] / g["differential_s"]]
             for g in growth],
        )  # fmt: skip
        flat = statistics.mean(g["differential_s"] for g in growth[-3:]) / statistics.mean(
            g["differential_s"] for g in growth[:3]
        )
        print(f"differential last/first (mean of 3): {flat:.2f} (target <= 1.2)\n")
        results["append_only"] = {"steps": growth, "differential_last_over_first": flat}

        # 2. replace one partition
        replaced = {}
        for test_name, analyzers in [("basic", basic), ("advanced", advanced)]:
            store = PartitionStates(repo, f"replace-{test_name}")
            grouped = AnalysisRunner(spark).on_data(table).add_analyzers(analyzers)
            store.write_grouped(
                grouped.group_by("week_day", "controversiality").keep_states().run()
            )
            target = names[len(names) // 2]
            fresh = part(target)

            def differential_update(
                fresh: Any = fresh,
                store: PartitionStates = store,
                analyzers: Any = analyzers,
                name: str = label(target),
            ) -> Any:
                runner = AnalysisRunner(spark).on_data(fresh).add_analyzers(analyzers)
                others = [p for p in store.partitions() if p != name]
                return runner.aggregate_with(store, others).run()

            diff_s, merged = timed(differential_update, repeat=2)
            full_s, full = timed(AnalysisRunner(spark).on_data(table).add_analyzers(analyzers).run)
            assert not merged.failures and not full.failures
            replaced[test_name] = {"differential_s": diff_s, "recompute_s": full_s,
                                   "speedup": full_s / diff_s}  # fmt: skip
        print("2. replace one partition")
        print_table(
            ["test", "differential s", "recompute s", "speedup"],
            [[n, r["differential_s"], r["recompute_s"], r["speedup"]] for n, r in replaced.items()],
        )
        print("seed: 4x (basic), 3x (advanced); target >= 8x for basic\n")
        results["replace_partition"] = replaced

        # 3. views from states alone
        store = PartitionStates(repo, "replace-advanced")
        days = sorted({w for w, _ in names})
        views = {
            "one day, both classes": [label((days[0], c)) for c in (0, 1)],
            "controversial, all days": [label((d, 1)) for d in days],
            "weekend": [label((d, c)) for d in days[-2:] for c in (0, 1)],
            "everything": [label(k) for k in names],
        }
        view_rows = []
        for view, partitions in views.items():
            seconds, context = timed(
                lambda p=partitions: metrics_from_states(advanced, store.read(p)), repeat=3
            )
            assert not context.failures
            view_rows.append([view, len(partitions), seconds])
        print("3. views from stored states (advanced test, no Spark)")
        print_table(["view", "partitions", "seconds"], view_rows)
        print("seed: < 1 s; target < 0.2 s")
        results["views"] = [{"view": v, "partitions": n, "seconds": s} for v, n, s in view_rows]
        repo.close()
    write_results("differential", results)


if __name__ == "__main__":
    main()

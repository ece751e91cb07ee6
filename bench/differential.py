"""Differential computation on partitioned data (Schelter et al., ICDE 2019, §V), reddit-shaped.

14 partitions (week_day x controversiality), as in the paper. Three experiments, each ours
(states) vs recomputing from the data, measured side by side in one run, for the basic test (one
shared scan) and the advanced test (+ grouping analyzers):

1. append-only growth: as in the paper, each run adds one weekday (its two partitions); time per
   run, differential (delta's states merged with the stored state) vs full recompute;
2. replacing one weekday's partitions: differential vs recompute of the whole table;
3. views: the paper's four kinds of partition combinations, from stored states alone vs
   recomputing them from the data.

    python bench/differential.py [--rows 10000000] [--repeat 2]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
from collections.abc import Callable, Sequence
from functools import partial
from pathlib import Path
from typing import Any

from common import print_table, timed, write_results
from scan_sharing import basic_test, generate

from anomaly import AnalysisRunner, CountDistinct, UniqueValueRatio
from anomaly.analyzers.base import Analyzer
from anomaly.engine.differential import PartitionStates, metrics_from_states
from anomaly.spark import build_session
from repository import MetricsRepository

Partition = tuple[str, int]


def advanced_test() -> list[Analyzer[Any]]:
    """The basic test plus the paper's grouping analyzers on subreddit and subreddit_id."""
    return [
        *basic_test(),
        UniqueValueRatio(["subreddit"]),
        UniqueValueRatio(["subreddit_id"]),
        CountDistinct(["subreddit"]),
        CountDistinct(["subreddit_id"]),
        CountDistinct(["subreddit", "subreddit_id"]),
    ]


def label(key: Partition) -> str:
    """The partition's name in the state store, as `write_grouped` names it."""
    return f"{key[0]}/{key[1]}"


class Experiments:
    """The paper's three experiments on one partitioned table."""

    def __init__(self, spark: Any, table: Any, repo: MetricsRepository, repeat: int) -> None:
        self.spark, self.table, self.repo, self.repeat = spark, table, repo, repeat
        keys = table.select("week_day", "controversiality").distinct().collect()
        self.partitions: list[Partition] = sorted((r[0], r[1]) for r in keys)
        self.days = sorted({day for day, _ in self.partitions})

    def rows_of(self, keys: Sequence[Partition]) -> Any:
        """The table's rows in these partitions (Spark prunes the others' files)."""
        return self.table.where(
            " OR ".join(f"(week_day = '{d}' AND controversiality = {c})" for d, c in keys)
        )

    def of_day(self, day: str) -> list[Partition]:
        return [k for k in self.partitions if k[0] == day]

    def run(self, data: Any, analyzers: list[Analyzer[Any]]) -> Any:
        context = AnalysisRunner(self.spark).on_data(data).add_analyzers(analyzers).run()
        assert not context.failures, context.failures
        return context

    def append_only(self, name: str, analyzers: list[Analyzer[Any]]) -> dict[str, Any]:
        store = PartitionStates(self.repo, f"append-{name}")
        steps = []
        for i, day in enumerate(self.days):
            delta = self.rows_of(self.of_day(day))
            runner = AnalysisRunner(self.spark).on_data(delta).add_analyzers(analyzers)
            runner = runner.aggregate_with(store).save_states_with(store, f"day={day}")
            differential, merged = timed(runner.run)
            assert not merged.failures, merged.failures
            so_far = [k for d in self.days[: i + 1] for k in self.of_day(d)]
            full, _ = timed(partial(self.run, self.rows_of(so_far), analyzers))
            steps.append({"days": i + 1, "differential_s": differential, "full_s": full})
        last_over_first = statistics.mean(s["differential_s"] for s in steps[-3:]) / (
            statistics.mean(s["differential_s"] for s in steps[:3])
        )
        return {"steps": steps, "differential_last_over_first": last_over_first}

    def initial_states(self, name: str, analyzers: list[Analyzer[Any]]) -> PartitionStates:
        """States of every partition from one grouped pass (the paper's initial computation)."""
        store = PartitionStates(self.repo, f"partitioned-{name}")
        runner = AnalysisRunner(self.spark).on_data(self.table).add_analyzers(analyzers)
        grouped = runner.group_by("week_day", "controversiality").keep_states()
        seconds, _ = timed(lambda: store.write_grouped(grouped.run()))
        self.initial_s = seconds
        return store

    def replace(self, store: PartitionStates, analyzers: list[Analyzer[Any]]) -> dict[str, Any]:
        """Replace the paper's weekday, one large and one small partition, then every partition
        once in turn (total time, the workload of a table whose partitions are all refreshed).

        One replacement's speedup is bounded by table rows / replaced rows: a weekday is 1/7 of
        the table, a non-controversial partition 13.7%, a controversial one 0.6%.
        """
        day = self.days[len(self.days) // 2]
        full_s, full = timed(lambda: self.run(self.table, analyzers), repeat=self.repeat)
        total = self.table.count()

        def update(keys: list[Partition], repeat: int) -> float:
            fresh = self.rows_of(keys)
            others = [label(k) for k in self.partitions if k not in keys]
            runner = AnalysisRunner(self.spark).on_data(fresh).add_analyzers(analyzers)
            seconds, merged = timed(runner.aggregate_with(store, others).run, repeat=repeat)
            assert not merged.failures, merged.failures
            size = analyzers[0]  # the merged whole equals the recomputed whole
            assert merged.metric(size).value == full.metric(size).value == total
            return seconds

        rows = []
        for case, keys in {
            f"weekday {day} (2 partitions)": self.of_day(day),
            f"partition {day}/0 (large)": [(day, 0)],
            f"partition {day}/1 (small)": [(day, 1)],
        }.items():
            diff_s = update(keys, self.repeat)
            share = self.rows_of(keys).count() / total
            rows.append({"replaced": case, "share_of_rows": share, "differential_s": diff_s,
                         "recompute_s": full_s, "speedup": full_s / diff_s})  # fmt: skip
        each_s = sum(update([key], 1) for key in self.partitions)
        n = len(self.partitions)
        rows.append({"replaced": f"each of the {n} partitions once (total)", "share_of_rows": 1.0,
                     "differential_s": each_s, "recompute_s": n * full_s,
                     "speedup": n * full_s / each_s})  # fmt: skip
        return {"initial_states_s": self.initial_s, "cases": rows}

    @staticmethod
    def from_states(store: PartitionStates, names: list[str], analyzers: list[Any]) -> Any:
        """Read the partitions' states from the repository and merge them: no Spark."""
        return metrics_from_states(analyzers, store.read(names))

    def views(self, store: PartitionStates, analyzers: list[Analyzer[Any]]) -> list[dict[str, Any]]:
        first, last = self.days[0], self.days[-1]
        combinations: list[tuple[str, list[Partition]]] = [
            *((f"(a) weekday {d}", self.of_day(d)) for d in self.days),
            ("(b) non-controversial, all days", [k for k in self.partitions if k[1] == 0]),
            (f"(c) weekday {first} non-controversial + {last} controversial",
             [(first, 0), (last, 1)]),
            (f"(d) weekdays {first}-{self.days[2]} controversial", [(d, 1) for d in self.days[:3]]),
        ]  # fmt: skip
        rows = []
        for view, keys in combinations:
            names = [label(k) for k in keys]
            states_s, from_states = timed(partial(self.from_states, store, names, analyzers), 3)
            assert not from_states.failures, from_states.failures
            data_s, from_data = timed(partial(self.run, self.rows_of(keys), analyzers))
            size = analyzers[0]  # the same rows either way
            assert from_states.metric(size).value == from_data.metric(size).value
            rows.append({"view": view, "partitions": len(keys), "from_states_s": states_s,
                         "recompute_s": data_s, "speedup": data_s / states_s})  # fmt: skip
        return rows


def report(results: dict[str, Any]) -> None:
    for name in ("basic", "advanced"):
        test = results[name]
        print(f"\n== {name} test ({len(test['analyzers'])} analyzers), {results['rows']:,} rows")
        steps = test["append_only"]["steps"]
        print("1. append-only: each run adds one weekday (2 partitions)")
        print_table(
            ["days", "differential s", "full recompute s", "full / differential"],
            [[s["days"], s["differential_s"], s["full_s"], s["full_s"] / s["differential_s"]]
             for s in steps],
        )  # fmt: skip
        ratio = test["append_only"]["differential_last_over_first"]
        print(f"differential last 3 / first 3: {ratio:.2f} (flat: target <= 1.2)")
        replace = test["replace"]
        print(f"2. replace data; initial states of all 14 partitions: "
              f"{replace['initial_states_s']:.1f} s (one grouped pass)")  # fmt: skip
        print_table(
            ["replaced", "share of rows", "differential s", "recompute s", "speedup"],
            [[c["replaced"], c["share_of_rows"], c["differential_s"], c["recompute_s"],
              c["speedup"]] for c in replace["cases"]],
        )  # fmt: skip
        print("3. views")
        print_table(
            ["view", "partitions", "from states s", "recompute s", "speedup"],
            [[v["view"], v["partitions"], v["from_states_s"], v["recompute_s"], v["speedup"]]
             for v in test["views"]],
        )  # fmt: skip
    print("\nseed: replace 4x faster (basic), 3x (advanced); views < 1 s. "
          "Targets: append flat <= 1.2, replace basic >= 8x, views < 0.2 s")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rows", type=int, default=10_000_000)
    parser.add_argument("--repeat", type=int, default=2)
    args = parser.parse_args()
    spark = build_session(master="local[*]", conf={"spark.driver.memory": "6g"})
    results: dict[str, Any] = {"rows": args.rows}
    tests: dict[str, Callable[[], list[Analyzer[Any]]]] = {
        "basic": basic_test, "advanced": advanced_test,
    }  # fmt: skip
    with tempfile.TemporaryDirectory() as tmp:
        raw, path = Path(tmp) / "raw", Path(tmp) / "reddit"
        generate(spark, args.rows, raw)
        spark.read.parquet(str(raw)).write.partitionBy("week_day", "controversiality").parquet(
            str(path)
        )
        repo = MetricsRepository(str(Path(tmp) / "metrics.duckdb"))
        bench = Experiments(spark, spark.read.parquet(str(path)), repo, args.repeat)
        for name, make in tests.items():
            analyzers = make()
            bench.run(bench.rows_of(bench.of_day(bench.days[0])), analyzers)  # JIT warm-up
            store = bench.initial_states(name, analyzers)
            results[name] = {
                "analyzers": [a.metric_id for a in analyzers],
                "append_only": bench.append_only(name, analyzers),
                "replace": bench.replace(store, analyzers),
                "views": bench.views(store, analyzers),
            }
        repo.close()
    report(results)
    write_results("differential", results)


if __name__ == "__main__":
    main()

"""Scan sharing (Schelter et al., ICDE 2019, Fig. 2): ours vs a job per analyzer vs a hand agg.

The paper's "basic test" on generated reddit-shaped data: ~25 non-grouping metrics over 12+
columns. Prints a table and writes bench/results/scan_sharing.json.

    python bench/scan_sharing.py [--rows 10000000]
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path
from typing import Any

from common import print_table, spark_jobs, timed, write_results

from anomaly import (
    AnalysisRunner,
    ApproxCountDistinct,
    ApproxQuantile,
    Completeness,
    Compliance,
    DataType,
    Mean,
    Size,
)
from anomaly.analyzers.base import Analyzer, ScanShareableAnalyzer
from anomaly.spark import build_session

COLUMNS = [
    "created_utc", "week_day", "ups", "downs", "id", "name", "subreddit_id", "link_id",
    "subreddit", "author", "controversiality", "parent_id",
]  # fmt: skip


def basic_test() -> list[Analyzer[Any]]:
    """The analyzers of the basic test of Schelter et al., ICDE 2019."""
    analyzers: list[Analyzer[Any]] = [Size()]
    analyzers += [Completeness(c) for c in [*COLUMNS, "removal_reason"]]
    analyzers += [DataType(c) for c in ["created_utc", "week_day", "ups", "downs"]]
    analyzers += [DataType("controversiality")]
    analyzers += [
        Compliance("week_day range", "week_day BETWEEN 0 AND 6"),
        Compliance("controversiality range", "controversiality IN (0, 1)"),
        ApproxCountDistinct("subreddit"),
        ApproxCountDistinct("subreddit_id"),
        ApproxQuantile("ups", 0.9),
        Mean("ups"),
    ]
    return analyzers


def generate(spark: Any, rows: int, path: Path) -> None:
    """Reddit-shaped comments: skewed subreddits and ups, strings as in the raw dump."""
    from pyspark.sql import functions as F

    rid = F.col("id")
    sub = (F.abs(F.hash(rid)) % 5000).cast("long")
    (
        spark.range(0, rows, numPartitions=8)
        .select(
            (F.lit(1430438400) + rid % 2678400).cast("string").alias("created_utc"),
            ((rid / 86400).cast("int") % 7).cast("string").alias("week_day"),
            (F.pow(F.abs(F.hash(rid, F.lit(1))) % 1000 / 1000.0, 8) * 500).cast("int").alias("ups"),
            F.lit(0).alias("downs"),
            F.concat(F.lit("c"), F.hex(rid)).alias("id"),
            F.concat(F.lit("t1_"), F.hex(rid)).alias("name"),
            F.concat(F.lit("t5_"), F.hex(sub)).alias("subreddit_id"),
            F.concat(F.lit("t3_"), F.hex(rid % 100000)).alias("link_id"),
            F.concat(F.lit("sub"), sub.cast("string")).alias("subreddit"),
            F.concat(F.lit("user"), (F.abs(F.hash(rid, F.lit(2))) % 200000).cast("string")).alias(
                "author"
            ),
            (F.abs(F.hash(rid, F.lit(3))) % 100 < 4).cast("int").alias("controversiality"),
            F.concat(F.lit("t1_"), F.hex(rid % 3000000)).alias("parent_id"),
            F.when(rid % 100 == 0, F.lit("moderator")).alias("removal_reason"),
        )
        .write.mode("overwrite")
        .parquet(str(path))
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rows", type=int, default=10_000_000)
    parser.add_argument("--repeat", type=int, default=2)
    args = parser.parse_args()
    spark = build_session(master="local[*]", conf={"spark.driver.memory": "6g"})
    analyzers = basic_test()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "reddit"
        generate(spark, args.rows, path)
        df = spark.read.parquet(str(path))
        schema = df.schema

        def ours() -> Any:
            return AnalysisRunner(spark).on_data(df).add_analyzers(analyzers).run()

        def naive() -> Any:
            return [AnalysisRunner(spark).on_data(df).add_analyzer(a).run() for a in analyzers]

        def floor() -> Any:
            # The same aggregate expressions, written as one df.agg(...) with nothing around it.
            shareable = [a for a in analyzers if isinstance(a, ScanShareableAnalyzer)]
            return df.agg(*[e for a in shareable for e in a.aggregations(schema)]).collect()

        floor()  # warm-up: JIT and file cache, so the first measured run is not penalised
        measured = {}
        for name, action in [("hand-written df.agg", floor), ("ours", ours), ("naive", naive)]:
            jobs, _ = spark_jobs(spark, action)
            seconds, _ = timed(action, repeat=args.repeat if name != "naive" else 1)
            measured[name] = {"seconds": seconds, "jobs": jobs}
        failures = ours().failures
        assert not failures, failures
    base, naive_run = measured["hand-written df.agg"], measured["naive"]
    rows = [
        [
            name,
            m["seconds"],
            m["jobs"],
            m["seconds"] / base["seconds"],
            naive_run["jobs"] / m["jobs"],
        ]
        for name, m in measured.items()
    ]
    print(f"scan sharing: {args.rows:,} rows, {len(analyzers)} metrics over 13 columns")
    print_table(["execution", "seconds", "spark jobs", "time / floor", "naive jobs / jobs"], rows)
    ratio = measured["ours"]["seconds"] / base["seconds"]
    fewer = naive_run["jobs"] / measured["ours"]["jobs"]
    print(
        f"ours vs floor: {ratio:.2f}x (target <= 1.2); naive/ours jobs: {fewer:.1f}x (target >= 5)"
    )
    write_results(
        "scan_sharing",
        {"rows": args.rows, "metrics": len(analyzers), "runs": measured,
         "ours_over_floor": ratio, "naive_jobs_over_ours": fewer},
    )  # fmt: skip


if __name__ == "__main__":
    main()

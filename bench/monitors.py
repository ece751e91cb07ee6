"""Monitors: the pass that measures every column vs one hand-written ``df.agg`` of the same.

For 1M rows x 50 and 200 columns, all text (as read from a CSV without types) and typed, times
the monitors' metric pass (``Size`` plus ``ColumnHealth`` of every column, one
``AnalysisRunner`` call: the stacked scan) and the floor: one ``df.agg`` computing the same
aggregates per column directly (row count, non-null count, HLL sketch of the hashed value; for
the value, its length or epoch seconds: count, min, max, sum, population variance, KLL sketch,
zero and negative counts; for text the top values). The floor runs with Spark's default
settings and with whole-stage code generation kept on for wide rows (``WIDE_CONF``); the faster
of the two is the floor; ours is the faster of two runs likewise. Spark jobs are counted for
one pass of ours. A floor run still going after ``--floor-timeout`` seconds is cancelled and
counted as that long (so the ratio is an upper bound: one wide aggregation of a few hundred
columns' aggregates can take hours).

Prints the table and writes bench/results/monitors.json.

    python bench/monitors.py [--rows 1000000] [--columns 50 200] [--kinds typed text]
                             [--floor-timeout 1500]
"""

from __future__ import annotations

import argparse
import os
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from common import print_table, spark_jobs, timed, write_results

from anomaly import AnalysisRunner
from anomaly.analyzers import Size
from anomaly.analyzers.sketch_state import KLL_K
from anomaly.analyzers.slot import TOP_VALUES
from anomaly.engine.stacked_scan import HLL_LG_K, TRACKED
from anomaly.monitors import ColumnHealth
from anomaly.spark import WIDE_CONF, build_session, runtime_conf


def generate(spark: Any, rows: int, columns: int, typed: bool, path: Path) -> None:
    """`columns` columns cycling through six shapes: keys, categories (7 values), sparse codes
    (30% null), fractions, words and timestamps; cast to text unless `typed`."""
    from pyspark.sql import functions as F

    rid = F.col("id")
    shapes = [
        lambda i: rid * 7 + i,
        lambda i: F.concat(F.lit("cat"), ((rid + i) % 7).cast("string")),
        lambda i: F.when(F.abs(F.hash(rid, F.lit(i))) % 10 >= 3, F.abs(F.hash(rid)) % 1000),
        lambda i: F.round(F.rand(i), 4),
        lambda i: F.concat(F.lit("w"), F.hex(F.abs(F.hash(rid, F.lit(i))))),
        lambda i: F.timestamp_seconds(F.lit(1_767_225_600) + (rid * 37 + i) % 86_400),
    ]
    values = [shapes[i % len(shapes)](i) for i in range(columns)]
    if not typed:
        values = [v.cast("string") for v in values]
    frame = spark.range(0, rows, numPartitions=8).select(
        *[v.alias(f"c{i}") for i, v in enumerate(values)]
    )
    frame.write.mode("overwrite").parquet(str(path))


def ours(df: Any) -> Any:
    analyzers = [Size(), *(ColumnHealth(c) for c in df.columns)]
    return AnalysisRunner().on_data(df).add_analyzers(analyzers).run()


def floor(df: Any) -> Any:
    """The same aggregates as the stacked scan's, one row of them per column, in one agg."""
    from pyspark.sql import functions as F

    aggregates = [F.count(F.lit(1))]
    for field in df.schema.fields:
        value = F.col(f"`{field.name}`")
        kind = field.dataType.simpleString()
        key = F.when(value.isNotNull(), F.xxhash64(value))
        if kind == "string":
            number = F.length(value).cast("double")
        elif kind.startswith("timestamp"):
            number = F.unix_micros(value) / 1e6
        else:
            number = value.cast("double")
        aggregates += [
            F.count(key), F.hll_sketch_agg(key, HLL_LG_K), F.count(number), F.min(number),
            F.max(number), F.sum(number), F.var_pop(number), F.kll_sketch_agg_double(number, KLL_K),
            F.count(F.when(number == 0, 1)), F.count(F.when(number < 0, 1)),
        ]  # fmt: skip
        if kind == "string":
            aggregates.append(
                F.call_function("approx_top_k", value, F.lit(TOP_VALUES + 2), F.lit(TRACKED))
            )
    return df.agg(*aggregates).collect()


def bounded(spark: Any, action: Any, limit: float) -> tuple[float, bool]:
    """Seconds `action` took, cancelling its Spark jobs after `limit` seconds (then True)."""
    group = f"floor-{time.monotonic_ns()}"
    context = spark.sparkContext
    context.setJobGroup(group, "floor", interruptOnCancel=True)
    timer = threading.Timer(limit, context.cancelJobGroup, [group])
    timer.start()
    started = time.perf_counter()
    try:
        action()
        return time.perf_counter() - started, False
    except Exception:
        if time.perf_counter() - started < limit:
            raise
        return limit, True
    finally:
        timer.cancel()
        context.setLocalProperty("spark.jobGroup.id", None)


def measure(
    spark: Any, rows: int, widths: list[int], kinds: list[str], limit: float
) -> list[dict[str, Any]]:
    measured = []
    with tempfile.TemporaryDirectory() as tmp:
        for width in widths:
            for kind in kinds:
                path = Path(tmp) / f"{kind}{width}"
                generate(spark, rows, width, kind == "typed", path)
                df = spark.read.parquet(str(path))
                if not measured:  # compile and load once, before anything is timed
                    ours(df.limit(1000))
                    floor(df.limit(1000))
                # Best of two, as the floor is (two settings): a query's first run pays for
                # compiling its generated code, and the floor's second run does not.
                jobs, (first, _) = spark_jobs(spark, lambda df=df: timed(lambda: ours(df)))
                seconds = min(first, timed(lambda df=df: ours(df))[0])
                default, default_cut = bounded(spark, lambda df=df: floor(df), limit)
                with runtime_conf(spark, WIDE_CONF):
                    wide, wide_cut = bounded(spark, lambda df=df: floor(df), limit)
                best = min(default, wide)
                load = os.getloadavg()[0]
                measured.append(
                    {"kind": kind, "columns": width, "rows": rows, "seconds": seconds,
                     "spark_jobs": jobs, "floor_default_seconds": default,
                     "floor_wide_conf_seconds": wide, "floor_seconds": best,
                     "floor_cancelled": default_cut and wide_cut, "ratio": seconds / best,
                     "load_average": load}
                )  # fmt: skip
                print(f"  {kind} x {width}: ours {seconds:.1f} s ({jobs} jobs), floor "
                      f"{default:.1f} s / {wide:.1f} s (wide conf), load {load:.1f}")  # fmt: skip
    return measured


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--columns", type=int, nargs="+", default=[50, 200])
    parser.add_argument("--kinds", nargs="+", default=["typed", "text"])
    parser.add_argument("--floor-timeout", type=float, default=1500.0, help="seconds")
    args = parser.parse_args()
    spark = build_session(master="local[*]", conf={"spark.driver.memory": "6g"})
    print("monitor pass vs one df.agg ...")
    results = measure(spark, args.rows, args.columns, args.kinds, args.floor_timeout)
    print(f"\nmonitors: {args.rows:,} rows, one pass for every column's health")
    print_table(
        ["kind", "columns", "ours, s", "spark jobs", "floor, s (default)", "floor, s (wide)",
         "ours / floor"],
        [[m["kind"], m["columns"], m["seconds"], m["spark_jobs"], m["floor_default_seconds"],
          m["floor_wide_conf_seconds"],
          f"{'< ' if m['floor_cancelled'] else ''}{m['ratio']:.2f}x"] for m in results],
    )  # fmt: skip
    flat = all(
        len({m["spark_jobs"] for m in results if m["kind"] == kind}) == 1 for kind in args.kinds
    )
    print(f"jobs flat as columns grow: {flat}")
    loads = [m["load_average"] for m in results]
    busy = max(loads) > 2.5
    if busy:
        print(f"the machine was busy (load average up to {max(loads):.1f} on 2 cores): compare "
              "the ratios, measured side by side, not the seconds")  # fmt: skip
    write_results("monitors", {"results": results, "jobs_flat": flat, "machine_busy": busy})


if __name__ == "__main__":
    main()

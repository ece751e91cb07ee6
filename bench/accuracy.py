"""Accuracy on a 10M-row source vs a 10M-row target: ours vs Griffin's plan vs naive.

* ours: `Accuracy` in the runner: ONE Spark action, an existence join on the rule's equalities
  (AQE runs its stages as separate Spark jobs) plus the per-group counts and key sample; also
  without the sample, and per group.
* griffin plan: the SQL Apache Griffin generates for the same rule (AccuracyExpr2DQSteps):
  ``source LEFT JOIN target ON coalesce(field, '') = coalesce(field, '') ...`` counting the rows
  with no target match, and a second query counting the source.
* python-side: a full outer join on the key collected to the driver as Arrow, fields compared
  with pandas, one verdict per source row (run on --python-rows: the driver holds every joined
  row, its memory growth is reported).

The target is the source with known defects (per 100 ids: 1 missing, 1 changed email, 1 phone
null only in the target, 1 duplicated row, 1 post code null on both sides), so every method must
report exactly 97% accuracy. Prints a table and writes bench/results/accuracy.json.

    python bench/accuracy.py [--rows 10000000] [--python-rows 2000000]
"""

from __future__ import annotations

import argparse
import os
import resource
import tempfile
from pathlib import Path
from typing import Any

from common import CpuClock, print_table, spark_jobs, timed, write_results

from anomaly import AnalysisRunner
from anomaly.accuracy import Accuracy
from anomaly.spark import build_session

FIELDS = ["user_id", "first_name", "last_name", "email", "phone", "post_code"]
RULE = " AND ".join(f"$source.{f} = $target.{f}" for f in FIELDS)
UNMATCHED_PER_100 = 3  # missing, changed email, phone null in the target only


def generate(spark: Any, rows: int, root: Path) -> tuple[Any, Any]:
    """Source and target parquet datasets, read back as DataFrames."""
    from pyspark.sql import functions as F

    i = F.col("id")
    defect = i % 100
    people = spark.range(0, rows, numPartitions=8).select(
        i.alias("user_id"),
        F.concat(F.lit("first"), (i % 5000).cast("string")).alias("first_name"),
        F.concat(F.lit("last"), (F.abs(F.hash(i)) % 20000).cast("string")).alias("last_name"),
        F.concat(F.lit("u"), F.hex(i), F.lit("@example.org")).alias("email"),
        F.concat(F.lit("555-"), F.lpad((i % 10000).cast("string"), 4, "0")).alias("phone"),
        F.when(defect != 4, F.lpad((i % 99999).cast("string"), 5, "0")).alias("post_code"),
        (i % 50).cast("int").alias("region"),
    )
    people.write.mode("overwrite").parquet(str(root / "source"))
    defect = F.col("user_id") % 100
    copy = people.where(defect != 1).select(
        *FIELDS[:3],
        F.when(defect == 2, F.lit("changed@example.org")).otherwise(F.col("email")).alias("email"),
        F.when(defect != 5, F.col("phone")).alias("phone"),
        "post_code",
    )
    copy.unionByName(copy.where(defect == 3)).write.mode("overwrite").parquet(str(root / "target"))
    return spark.read.parquet(str(root / "source")), spark.read.parquet(str(root / "target"))


def griffin(spark: Any) -> tuple[int, int]:
    """Griffin's accuracy SQL for RULE: miss count (left join, no target) and source count."""
    on = " AND ".join(
        f"coalesce(s.`{f}`, '') = coalesce(t.`{f}`, '')" for f in FIELDS
    )  # its ON clause: every selection coalesced to ''
    source_null = " AND ".join(f"s.`{f}` IS NULL" for f in FIELDS)
    target_null = " AND ".join(f"t.`{f}` IS NULL" for f in FIELDS)
    miss = spark.sql(
        f"SELECT count(*) FROM source s LEFT JOIN target t ON {on} "
        f"WHERE (NOT ({source_null})) AND ({target_null})"
    ).collect()[0][0]
    total = spark.sql("SELECT count(*) FROM source").collect()[0][0]
    return total - miss, total


def python_side(source: Any, target: Any) -> tuple[int, int]:
    """Full outer join on the key, collected; fields compared in pandas; any() per source row."""
    from pyspark.sql import functions as F

    s = source.select(F.monotonically_increasing_id().alias("_row"), *FIELDS)
    s = s.select("_row", *(F.col(f).alias(f"s_{f}") for f in FIELDS))
    t = target.select(*(F.col(f).alias(f"t_{f}") for f in FIELDS))
    joined = s.join(t, s["s_user_id"].eqNullSafe(t["t_user_id"]), "full_outer").toPandas()
    joined = joined[joined["_row"].notna()]
    same = None
    for f in FIELDS:
        a, b = joined[f"s_{f}"], joined[f"t_{f}"]
        equal = (a == b) | (a.isna() & b.isna())
        same = equal if same is None else same & equal
    assert same is not None
    verdict = same.groupby(joined["_row"]).any()
    return int(verdict.sum()), len(verdict)


def _peak_mb() -> int:
    """Peak resident memory of this (driver) Python process so far, in MB."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024


def methods(spark: Any, source: Any, target: Any, python: bool) -> dict[str, Any]:
    """Name -> action returning (matched, total) on the registered views ``source``/``target``."""
    accuracy, no_sample = Accuracy("target", RULE), Accuracy("target", RULE, sample_size=0)
    plain = AnalysisRunner(spark).on_data(source).add_analyzer(accuracy)
    bare = AnalysisRunner(spark).on_data(source).add_analyzer(no_sample)
    grouped = AnalysisRunner(spark).on_data(source).add_analyzer(accuracy).group_by("region")

    def ours() -> tuple[int, int]:
        metric = plain.run()[accuracy]
        return metric.matched, metric.total  # type: ignore[attr-defined]

    def ours_without_sample() -> tuple[int, int]:
        metric = bare.run()[no_sample]
        return metric.matched, metric.total  # type: ignore[attr-defined]

    def ours_grouped() -> tuple[int, int]:
        metrics = list(grouped.run().for_analyzer(accuracy).values())
        return sum(m.matched for m in metrics), sum(m.total for m in metrics)  # type: ignore[attr-defined]

    if python:
        return {"ours": ours, "python-side (full outer join)": lambda: python_side(source, target)}
    return {
        "ours": ours,
        "ours, sample_size=0": ours_without_sample,
        "ours, per region (50 groups)": ours_grouped,
        "griffin plan (2 queries)": lambda: griffin(spark),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rows", type=int, default=10_000_000)
    parser.add_argument("--python-rows", type=int, default=2_000_000)
    parser.add_argument("--repeat", type=int, default=2)
    args = parser.parse_args()
    spark = build_session(master="local[*]", conf={"spark.driver.memory": "8g"})
    measured: list[dict[str, Any]] = []
    cpu = CpuClock(spark)
    load = [os.getloadavg()[0]]
    with tempfile.TemporaryDirectory() as tmp:
        for rows, python in ((args.rows, False), (args.python_rows, True)):
            source, target = generate(spark, rows, Path(tmp) / str(rows))
            source.createOrReplaceTempView("source")
            target.createOrReplaceTempView("target")
            actions = methods(spark, source, target, python)
            runs = {}
            for name, action in actions.items():  # warm-up, Spark jobs and memory
                peak = _peak_mb()
                jobs, counts = spark_jobs(spark, action)
                wanted = (rows - rows // 100 * UNMATCHED_PER_100, rows)
                assert tuple(counts) == wanted, (name, counts, wanted)
                runs[name] = {"method": name, "rows": rows, "seconds": float("inf"),
                              "spark_jobs": jobs, "python_peak_growth_mb": _peak_mb() - peak,
                              "matched": counts[0], "total": counts[1]}  # fmt: skip
            for _ in range(args.repeat):  # interleaved, so load changes hit every method alike
                for name, action in actions.items():
                    before = cpu()
                    seconds, _ = timed(action)
                    run = runs[name]
                    run["seconds"] = min(run["seconds"], seconds)
                    run["cpu_seconds"] = min(run.get("cpu_seconds", float("inf")), cpu() - before)
            measured += runs.values()
    ours = {m["rows"]: m for m in measured if m["method"] == "ours"}
    table = [
        [m["method"], f"{m['rows']:,}", m["seconds"], m["cpu_seconds"], m["spark_jobs"],
         m["cpu_seconds"] / ours[m["rows"]]["cpu_seconds"], m["python_peak_growth_mb"],
         m["matched"] / m["total"]]
        for m in measured
    ]  # fmt: skip
    print(f"accuracy: {args.rows:,} source rows vs {args.rows:,} target rows, {len(FIELDS)} fields")
    headers = ["method", "rows", "wall s", "cpu s", "spark jobs", "cpu / ours", "driver MB",
               "accuracy"]  # fmt: skip
    print_table(headers, table)
    load.append(os.getloadavg()[0])
    print(f"1-minute load average: {load[0]:.1f} at start, {load[1]:.1f} at the end")
    write_results("accuracy", {"rule": RULE, "load_average": load, "runs": measured})


if __name__ == "__main__":
    main()

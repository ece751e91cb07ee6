"""Constraint suggestion (Schelter et al., PVLDB 2018, §4.2, §5.3): profiling cost, coverage.

1. Profiling time and Spark jobs for 10, 50 and 200 text columns (as read from a CSV) on 1M rows:
   the jobs must stay flat (three passes) as the columns grow. Alongside, up to
   ``--baseline-up-to`` columns, the same profile the Deequ way: passes 1 and 2 as one row of
   per-column analyzers (`Size`, `Completeness`, `ApproxCountDistinct`, `DataType`; then
   `Minimum`, `Maximum`, `Mean`, `StandardDeviation`, `ApproxQuantiles`), pass 3 shared.
2. The paper's §5.3 on the generated users table: suggest on a 10% sample, coverage on the rest.
3. The column-name model's 5-fold cross-validated AUC (grouped by table).

Prints the tables and writes bench/results/suggestion.json.

    python bench/suggestion.py [--rows 1000000] [--columns 10 50 200] [--baseline-up-to 50]
                               [--users 50000]
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path
from typing import Any

from common import print_table, spark_jobs, timed, write_results

from anomaly import AnalysisRunner
from anomaly.analyzers import (
    ApproxCountDistinct,
    ApproxQuantiles,
    Completeness,
    DataType,
    Maximum,
    Mean,
    Minimum,
    Size,
    StandardDeviation,
)
from anomaly.spark import build_session
from anomaly.suggestion import (
    ColumnProfile,
    ConstraintSuggestionRunner,
    cross_validated_auc,
    profile_columns,
)
from anomaly.suggestion.example_data import users_frame
from anomaly.suggestion.name_model import training_set
from anomaly.suggestion.profiler import QUARTILES, _frequency_pass


def generate(spark: Any, rows: int, columns: int, path: Path) -> None:
    """`columns` text columns cycling through five shapes: integral keys, categories (7 values),
    sparse codes (30% null, ~1000 values), fractions, and words."""
    from pyspark.sql import functions as F

    rid = F.col("id")
    shapes = [
        lambda i: (rid * 7 + i).cast("string"),
        lambda i: F.concat(F.lit("cat"), ((rid + i) % 7).cast("string")),
        lambda i: F.when(F.abs(F.hash(rid, F.lit(i))) % 10 >= 3, (F.abs(F.hash(rid)) % 1000)),
        lambda i: F.round(F.rand(i), 4).cast("string"),
        lambda i: F.concat(F.lit("w"), F.hex(F.abs(F.hash(rid, F.lit(i))))),
    ]
    frame = spark.range(0, rows, numPartitions=8).select(
        *[shapes[i % 5](i).cast("string").alias(f"c{i}") for i in range(columns)]
    )
    frame.write.mode("overwrite").parquet(str(path))


def analyzer_profile(df: Any) -> Any:
    """Passes 1 and 2 as rows of per-column analyzers (Deequ's profiler), then our pass 3."""
    names = df.columns
    first: list[Any] = [Size()]
    first += [a(c) for c in names for a in (Completeness, ApproxCountDistinct, DataType)]
    context = AnalysisRunner().on_data(df).add_analyzers(first).run()
    distinct = {c: context[ApproxCountDistinct(c)].value or 0.0 for c in names}
    numeric = [c for c in names if _all_numeric(context[DataType(c)].value)]
    data = df.withColumns({c: df[c].try_cast("double") for c in numeric})
    second: list[Any] = [ApproxQuantiles(c, QUARTILES) for c in numeric]
    second += [a(c) for c in numeric for a in (Minimum, Maximum, Mean, StandardDeviation)]
    AnalysisRunner().on_data(data).add_analyzers(second).run()
    few = [c for c in names if 0 < distinct[c] <= 100]
    bare = {c: ColumnProfile(c, "string", "String", 0, 0, distinct[c]) for c in few}
    return _frequency_pass(df, bare, few)


def _all_numeric(counts: Any) -> bool:
    """Whether a `DataType` metric saw only Integral/Fractional values (and nulls)."""
    seen = {
        key.removeprefix("abs.")
        for key, n in (counts or {}).items()
        if key.startswith("abs.") and n and key != "abs.Unknown"
    }
    return bool(seen) and seen <= {"Integral", "Fractional"}


def profiling(
    spark: Any, rows: int, widths: list[int], baseline_up_to: int
) -> list[dict[str, Any]]:
    """Seconds, Spark jobs and passes (jobs / jobs of one plain aggregation) per width; seconds
    of `analyzer_profile` on the same data up to `baseline_up_to` columns."""
    from pyspark.sql import functions as F

    measured = []
    with tempfile.TemporaryDirectory() as tmp:
        for width in widths:
            path = Path(tmp) / f"w{width}"
            generate(spark, rows, width, path)
            df = spark.read.parquet(str(path))
            one_scan, _ = spark_jobs(spark, lambda df=df: df.agg(F.count(F.lit(1))).collect())
            jobs, (seconds, profiles) = spark_jobs(
                spark, lambda df=df: timed(lambda: profile_columns(df))
            )
            histograms = sum(1 for p in profiles.values() if p.histogram is not None)
            baseline = None
            if width <= baseline_up_to:
                baseline, _ = timed(lambda df=df: analyzer_profile(df))
            measured.append(
                {"columns": width, "rows": rows, "seconds": seconds, "spark_jobs": jobs,
                 "passes": jobs / one_scan, "histogram_columns": histograms,
                 "analyzer_rows_seconds": baseline}
            )  # fmt: skip
            than = "" if baseline is None else f" (per-column analyzers: {baseline:.1f} s)"
            print(f"  {width} columns: {seconds:.1f} s, {jobs} jobs{than}")
    return measured


def evaluation(spark: Any, rows: int) -> list[dict[str, Any]]:
    """The paper's §5.3: suggestions from a 10% sample and their coverage on the other 90%."""
    df = users_frame(spark, rows).cache()
    runner = ConstraintSuggestionRunner().on_data(df).table("users").sample(0.1)
    result = runner.evaluate_on_rest().run()
    df.unpersist()
    assert result.coverage is not None
    return [
        {"column": c.suggestion.column, "constraint": c.suggestion.call,
         "accepted": c.suggestion.accepted, "score": c.suggestion.score,
         "test_value": c.value, "coverage": c.coverage, "holds": c.holds}
        for c in result.coverage
    ]  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--columns", type=int, nargs="+", default=[10, 50, 200])
    parser.add_argument("--baseline-up-to", type=int, default=50, help="columns (slow)")
    parser.add_argument("--users", type=int, default=50_000)
    args = parser.parse_args()
    spark = build_session(master="local[*]", conf={"spark.driver.memory": "6g"})
    print("profiling ...")
    scaling = profiling(spark, args.rows, args.columns, args.baseline_up_to)
    print(f"\nprofiling {args.rows:,} rows of text columns")
    print_table(
        ["columns", "seconds", "spark jobs", "passes", "histogram columns",
         "per-column analyzers, s", "speed-up"],
        [[m["columns"], m["seconds"], m["spark_jobs"], m["passes"], m["histogram_columns"],
          m["analyzer_rows_seconds"] or "-",
          f"{m['analyzer_rows_seconds'] / m['seconds']:.1f}x" if m["analyzer_rows_seconds"]
          else "-"]
         for m in scaling],
    )  # fmt: skip
    flat = len({m["spark_jobs"] for m in scaling}) == 1
    print(f"jobs flat as columns grow: {flat}")
    coverage = evaluation(spark, args.users)
    print(
        f"\nas in Schelter et al., PVLDB 2018, §5.3: suggestions from 10% of {args.users:,} users, "
        "coverage on the other 90%"
    )
    print_table(
        ["column", "constraint", "coverage", "name-model score", "kept"],
        [[c["column"], c["constraint"][:60], c["coverage"],
          "-" if c["score"] is None else c["score"], c["accepted"]] for c in coverage],
    )  # fmt: skip
    auc = cross_validated_auc(training_set())
    print(f"\ncolumn-name model: 5-fold cross-validated AUC (grouped by table) {auc:.3f}")
    write_results(
        "suggestion",
        {"profiling": scaling, "jobs_flat": flat, "users_rows": args.users,
         "coverage": coverage, "name_model_auc": auc, "name_model_examples": len(training_set())},
    )  # fmt: skip


if __name__ == "__main__":
    main()

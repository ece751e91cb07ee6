"""Row-level results and the pass/quarantine split vs the plain verification pass.

10M generated orders (parquet): a key, e-mails, a status, amounts and prices held as text. One
check of nine constraints, eight of them row-level. Three days of data:

* every constraint fails somewhere: bad values of every kind (the worst case: every verdict
  is evaluated per row);
* a typical day: malformed e-mails and an unknown status, everything else clean (constraints
  the run found holding are true for every row without evaluating them);
* a typical day whose key has 1% duplicates (``is_unique`` then needs a count over the key).

For each, measured side by side, best of `--repeat`:

* verification: ``VerificationSuite(...).run()`` (one shared scan, one pass over the key);
* row_level: ``result.row_level(df)`` written to Spark's ``noop`` sink (all verdict columns);
* flag: ``result.flag(df)`` (the rows with the names of the constraints each violates) written
  once: both parts in one pass, as a pipeline writing them partitioned by outcome would;
* split: ``passed, failed = result.split(df)``, both written to the ``noop`` sink (two jobs,
  each a pass over the data).

Prints a table and writes bench/results/row_level.json (with the load of the shared machine).

    python bench/row_level.py [--rows 10000000] [--repeat 2]
"""

from __future__ import annotations

import argparse
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from common import print_table, spark_jobs, timed, write_results

from anomaly import Check, CheckLevel, VerificationSuite, at_least
from anomaly.spark import build_session

TARGET = 1.3
STATUSES = ["ok", "refund", "pending"]


@dataclass(frozen=True)
class Day:
    """What is wrong in one generated day of orders."""

    label: str
    bad_numbers: bool  # negative amounts and prices that are no numbers
    duplicated: float  # share of keys that occur twice


DAYS = [
    Day("every constraint fails somewhere", bad_numbers=True, duplicated=0.0),
    Day("typical day: e-mails and status", bad_numbers=False, duplicated=0.0),
    Day("typical day + 1% duplicate keys", bad_numbers=False, duplicated=0.01),
]


def generate(spark: Any, rows: int, path: Path, day: Day) -> None:
    """Orders with 1% missing e-mails, 0.5% malformed ones and 0.01% unknown statuses; with
    `day.bad_numbers` 0.2% negative amounts and 0.1% prices that are no numbers."""
    from pyspark.sql import functions as F

    rid = F.col("id")
    h = F.abs(F.hash(rid, F.lit(7))) % 10000
    twice = F.abs(F.hash(rid, F.lit(9))) % 10000 < day.duplicated * 10000
    amount = (h % 9000) / 7.0
    price = F.round((h % 5000) / 3.0, 2).cast("string")
    if day.bad_numbers:
        amount = F.when(h % 500 == 3, -F.lit(5.0)).otherwise(amount)
        price = F.when(h % 1000 == 5, F.lit("n/a")).otherwise(price)
    email = F.concat(F.lit("u"), rid.cast("string"), F.lit("@example.com"))
    (
        spark.range(0, rows, numPartitions=8)
        .select(
            F.when(twice, rid - 1).otherwise(rid).alias("order_id"),
            F.concat(F.lit("c"), (rid % 500000).cast("string")).alias("customer"),
            F.when(h < 100, None).when(h < 150, "not-an-address").otherwise(email).alias("email"),
            F.when(h == 777, "lost").otherwise(pick(STATUSES, h)).alias("status"),
            F.when(h % 200 == 1, None).otherwise(amount).alias("amount"),
            price.alias("price"),
            pick(["DE", "FR", "US", "JP", "BR"], h).alias("country"),
        )
        .write.mode("overwrite")
        .parquet(str(path))
    )


def pick(values: list[str], h: Any) -> Any:
    """One of `values` by the hash `h`."""
    from pyspark.sql import functions as F

    return F.element_at(F.array(*map(F.lit, values)), (h % len(values) + 1).cast("int"))


def orders_check() -> Check:
    return (
        Check(CheckLevel.ERROR, "orders")
        .is_complete("order_id")
        .is_unique("order_id")
        .has_completeness("email", at_least(0.95))
        .has_pattern("email", r"^[^@\s]+@[^@\s]+$")
        .is_contained_in("status", STATUSES)
        .is_non_negative("amount")
        .is_in_range("amount", 0, 10_000)
        .is_non_negative("price")
        .has_size(at_least(1))
    )


def measure(spark: Any, df: Any, repeat: int) -> dict[str, dict[str, float]]:
    check = orders_check()

    def verification() -> Any:
        return VerificationSuite(spark).on_data(df).add_check(check).run()

    result = verification()

    def row_level() -> None:
        result.row_level(df).write.format("noop").mode("overwrite").save()

    def flag() -> None:
        result.flag(df).write.format("noop").mode("overwrite").save()

    def split() -> None:
        passed, failed = result.split(df)
        passed.write.format("noop").mode("overwrite").save()
        failed.write.format("noop").mode("overwrite").save()

    actions = {
        "verification": verification, "row_level": row_level, "flag": flag, "split": split,
    }  # fmt: skip
    runs: dict[str, dict[str, float]] = {}
    for name, action in actions.items():
        jobs, _ = spark_jobs(spark, action)
        runs[name] = {"seconds": float("inf"), "jobs": jobs}
    for _ in range(repeat):  # interleaved, so a burst of load on the machine hits all alike
        for name, action in actions.items():
            seconds, _ = timed(action)
            runs[name]["seconds"] = min(runs[name]["seconds"], seconds)
    passed, failed = result.split(df)
    runs["split"]["passed_rows"] = passed.count()
    runs["split"]["failed_rows"] = failed.count()
    return runs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rows", type=int, default=10_000_000)
    parser.add_argument("--repeat", type=int, default=2)
    args = parser.parse_args()
    load_before = os.getloadavg()
    spark = build_session(master="local[*]", conf={"spark.driver.memory": "6g"})
    measured: dict[str, dict[str, dict[str, float]]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for n, day in enumerate(DAYS):
            path = Path(tmp) / f"day{n}"
            generate(spark, args.rows, path, day)
            df = spark.read.parquet(str(path))
            df.write.format("noop").mode("overwrite").save()  # warm-up: JIT and file cache
            measured[day.label] = measure(spark, df, args.repeat)
    load_after = os.getloadavg()
    rows = []
    for label, runs in measured.items():
        base = runs["verification"]["seconds"]
        for name, run in runs.items():
            rows.append([label, name, run["seconds"], int(run["jobs"]), run["seconds"] / base])
    print(f"row-level results: {args.rows:,} orders, 9 constraints (8 row-level)")
    print_table(["data", "what", "seconds", "spark jobs", "vs verification"], rows)
    ratios = {
        label: {k: runs[k]["seconds"] / runs["verification"]["seconds"] for k in ("flag", "split")}
        for label, runs in measured.items()
    }
    for label, ratio in ratios.items():
        print(
            f"{label}: flag (one pass) {ratio['flag']:.2f}x, split (two parts, two passes) "
            f"{ratio['split']:.2f}x the verification (target <= {TARGET})"
        )
    cpus = len(os.sched_getaffinity(0))
    busy = max(load_before[0], load_after[0]) > 0.5 * cpus
    print(f"load average before/after: {load_before[0]:.1f} / {load_after[0]:.1f} on {cpus} cores")
    write_results(
        "row_level",
        {
            "rows": args.rows,
            "runs": measured,
            "over_verification": ratios,
            "target": TARGET,
            "load_average": {"before": load_before, "after": load_after},
            "machine_busy": busy,
            "note": "shared machine: other engineers' jobs ran alongside; ratios are from one run"
            if busy
            else "quiet machine",
        },
    )


if __name__ == "__main__":
    main()

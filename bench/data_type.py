"""DataType on text columns: the type expression projected once per row vs inside every count.

`DataType` counts five inferred types. Written as five ``count(when(<type> = t, 1))`` aggregates,
Spark evaluates the regex chain that infers the type once per count; the analyzer projects the
type once per row (`ScanShareableAnalyzer.projections`) and counts the projected column. Both run
in the same session on the same cached rows: words (all three regexes fail), integers (the first
matches) and a mix, ungrouped and grouped, best of ``--repeat`` runs.

    python bench/data_type.py [--rows 5000000] [--repeat 3]
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any

from common import print_table, timed, write_results

from anomaly import AnalysisRunner, DataType
from anomaly.analyzers.data_type import BOOLEAN, FRACTIONAL, INTEGRAL, TYPES
from anomaly.spark import build_session


def inline_counts(df: Any, column: str, groups: list[str]) -> Callable[[], Any]:
    """The five counts with the type expression inside each (DataType before projections)."""
    from pyspark.sql import functions as F

    value = F.col(column)
    inferred = (
        F.when(value.isNull(), "Unknown")
        .when(value.rlike(INTEGRAL), "Integral")
        .when(value.rlike(FRACTIONAL), "Fractional")
        .when(value.rlike(BOOLEAN), "Boolean")
        .otherwise("String")
    )
    counts = [F.count(F.when(inferred == t, 1)) for t in TYPES]
    return lambda: df.groupBy(*groups).agg(*counts).collect()


def frame(spark: Any, rows: int) -> Any:
    from pyspark.sql import functions as F

    rid = F.col("id")
    mixed = (
        F.when(rid % 3 == 0, rid.cast("string"))
        .when(rid % 3 == 1, (rid / 7).cast("string"))
        .otherwise(F.concat(F.lit("x"), rid))
    )
    return spark.range(0, rows, numPartitions=4).select(
        F.concat(F.lit("w"), F.hex(F.abs(F.hash(rid)))).alias("words"),
        (rid * 7).cast("string").alias("integers"),
        mixed.alias("mixed"),
        (rid % 5).alias("g"),
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=5_000_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    spark = build_session()
    df = frame(spark, args.rows).cache()
    df.count()
    measured = []
    for column in ("words", "integers", "mixed"):
        for groups in ([], ["g"]):
            inline = inline_counts(df, column, groups)
            runner = AnalysisRunner(spark).on_data(df).add_analyzer(DataType(column))
            ours = runner.group_by(*groups).run
            inline(), ours()  # compile and warm up both
            inline_s, _ = timed(inline, args.repeat)
            ours_s, _ = timed(ours, args.repeat)
            measured.append(
                {"column": column, "grouped": bool(groups), "rows": args.rows,
                 "ours_seconds": ours_s, "inline_seconds": inline_s,
                 "speed_up": inline_s / ours_s}
            )  # fmt: skip
    print(f"\nDataType on {args.rows:,} text values, best of {args.repeat}")
    print_table(
        ["column", "grouped", "ours (projected), s", "type inside each count, s", "speed-up"],
        [[m["column"], m["grouped"], m["ours_seconds"], m["inline_seconds"],
          f"{m['speed_up']:.2f}x"] for m in measured],
    )  # fmt: skip
    print(f"\nwrote {write_results('data_type', {'results': measured})}")


if __name__ == "__main__":
    main()

"""Wide tables: the stacked scan works in passes of bounded size, and a JVM that dies ends the
run with a clear error instead of waiting on it."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from pyspark.sql import SparkSession
from pyspark.sql import functions as F

from anomaly import AnalysisRunner, AnalyzerContext
from anomaly.engine.stacked_scan import PASS_SLOTS
from anomaly.monitors import ColumnHealth
from tests.anomaly.engine.test_runner_passes import count_jobs
from tests.conftest import child_jvm_env

ROOT = Path(__file__).resolve().parents[3]


@pytest.mark.slow
def test_wide_tables_run_in_passes_of_bounded_size(spark: SparkSession) -> None:
    # 201 columns: two passes (one full, one of a single column), as a 10,000-column table
    # makes fifty. One more column than a pass holds shows the bound as well as 600 did (three
    # passes), in a third of the time.
    columns = PASS_SLOTS + 1
    df = spark.range(20).select(
        *[(F.col("id") * k).alias(f"c{k}") for k in range(columns - 1)],
        F.when(F.col("id") % 4 == 0, F.col("id")).alias("sparse"),
    )

    def runner(n: int) -> AnalysisRunner:
        analyzers = [ColumnHealth(c) for c in df.columns[:n]] + [ColumnHealth("sparse")]
        return AnalysisRunner(spark).on_data(df).add_analyzers(analyzers)

    # One pass's jobs, counted on two columns (a pass's job count does not depend on its width):
    # the 201 columns then take two passes exactly, neither one unbounded pass nor more.
    one_pass = count_jobs(spark, runner(1).run)
    contexts: list[AnalyzerContext] = []  # the counted runs' results: no third wide run
    passes = count_jobs(spark, lambda: contexts.append(runner(columns - 1).run()))
    assert passes == one_pass * 2
    context = contexts[-1]
    values = {a.column: m.value for (a, _), m in context.metrics.items()}  # type: ignore[attr-defined]
    assert len(values) == columns and all(v is not None for v in values.values())
    assert values["sparse"]["completeness"] == 0.25  # type: ignore[index]
    assert values["c3"]["maximum"] == 57.0  # type: ignore[index]


SCRIPT = """
import os, signal, sys, time
from anomaly import AnalysisRunner, build_session
from anomaly.monitors import ColumnHealth

spark = build_session(master="local[1]")
df = spark.range(10).selectExpr("id AS a", "id * 2 AS b", "id * 3 AS c")
_ = df.schema
os.kill(spark.sparkContext._gateway.proc.pid, signal.SIGKILL)  # the JVM dies (OOM killer...)
time.sleep(1)
started = time.monotonic()
try:
    AnalysisRunner(spark).on_data(df).add_analyzers([ColumnHealth(c) for c in "abc"]).run()
except Exception as error:
    print(type(error).__name__, error, f"after {time.monotonic() - started:.0f} s")
    sys.exit(3)
print("no error")
"""


def test_a_jvm_that_died_ends_the_run_with_a_clear_error(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(SCRIPT)],
        capture_output=True, text=True, timeout=600, cwd=tmp_path,
        env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin", "HOME": str(tmp_path),
             **_java()},
    )  # fmt: skip
    assert done.returncode == 3, done.stdout + done.stderr[-3000:]
    assert "SparkUnavailableError Spark's JVM stopped answering" in done.stdout, done.stdout


def _java() -> dict[str, str]:
    names = ("JAVA_HOME", "SPARK_HOME", "LANG", *child_jvm_env())
    return {k: v for k, v in os.environ.items() if k in names}

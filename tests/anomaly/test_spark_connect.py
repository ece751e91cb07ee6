"""The runner on a Spark Connect session (a local Connect server, in its own process)."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest

SCRIPT = textwrap.dedent(
    """
    import json
    from pyspark.sql import SparkSession
    from anomaly import (AnalysisRunner, ApproxQuantile, Completeness, Histogram, Mean, Size,
                         Uniqueness)
    from anomaly.spark import is_connect

    spark = SparkSession.builder.remote("local[1]").getOrCreate()
    df = spark.createDataFrame(
        [(1, "a", 1.0, "DE"), (2, "b", None, "DE"), (3, "b", 3.0, "US")],
        "id int, s string, x double, c string",
    )
    analyzers = [Size(), Completeness("x"), Mean("x"), ApproxQuantile("id", 0.5),
                 Uniqueness("s"), Histogram("s"), Mean("missing")]
    grouped = AnalysisRunner(spark).on_data(df).add_analyzers(analyzers).group_by("c").run()
    states = AnalysisRunner(spark).on_data(df).add_analyzers(analyzers).keep_states().run()
    print(json.dumps({
        "connect": is_connect(spark),
        "size_de": grouped.metric(Size(), ("DE",)).value,
        "mean_de": grouped.metric(Mean("x"), ("DE",)).value,
        "uniqueness": states[Uniqueness("s")].value,
        "missing": states[Mean("missing")].error,
        "state_kinds": sorted({s.kind for s in states.states.values()}),
    }))
    """
)


@pytest.mark.slow  # a Spark Connect server
def test_runner_works_on_a_spark_connect_session() -> None:
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT], capture_output=True, text=True, timeout=300, check=False
    )
    assert done.returncode == 0, done.stderr[-3000:]
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert result["connect"] is True
    assert result["size_de"] == 2.0
    assert result["mean_de"] == 1.0
    assert abs(result["uniqueness"] - 1 / 3) < 1e-12
    assert "column 'missing' does not exist" in result["missing"]
    assert result["state_kinds"] == ["count", "frequencies", "kll", "matches", "mean"]

"""Reading a source: errors that name the cause and the fix, and pandas' nanosecond Parquet."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pandas as pd
import pytest
from pyspark.sql import SparkSession

from anomaly.config.source_config import SourceConfig
from anomaly.sources.parquet_nanos import NANOS_AS_LONG
from anomaly.sources.read_errors import explain_read_error
from anomaly.sources.reading import SourceError, read_source
from anomaly.spark import runtime_conf

TIMES = ["2024-05-01 10:00:00.123456789", "2024-05-02 11:00:00.000001999"]


def pandas_parquet(path: Path, **options: object) -> Path:
    """A file as pandas writes it by default: nanosecond timestamps, with and without zone."""
    frame = pd.DataFrame(
        {
            "ts": pd.to_datetime(TIMES, utc=True),
            "local": pd.to_datetime(TIMES),
            "amount": [1.5, 2.5],
        }
    )
    frame.to_parquet(path, **options)  # type: ignore[call-overload]
    return path


def source(path: str) -> SourceConfig:
    return SourceConfig.model_validate({"path": path, "format": "parquet"})


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("s3a://lake/orders/", ["'s3a'", "hadoop-aws", "spark.jars.packages", "fs.s3a"]),
        ("s3://lake/orders/", ["'s3'", "hadoop-aws", "write the URL with s3a://"]),
        ("gs://lake/orders/", ["'gs'", "gcs-connector", "spark.jars.packages"]),
        ("abfss://c@acct.dfs.core.windows.net/o", ["'abfss'", "hadoop-azure"]),
        ("foo://lake/orders/", ["'foo'", "a Hadoop FileSystem for foo://"]),
    ],
)
def test_a_url_scheme_without_filesystem_names_the_package_that_provides_it(
    spark: SparkSession, url: str, expected: list[str]
) -> None:
    with pytest.raises(SourceError) as caught:
        read_source(spark, "orders", source(url))
    message = str(caught.value)
    assert "An error occurred while calling" not in message
    for part in expected:
        assert part in message, message
    hadoop = spark.sparkContext._jvm.org.apache.hadoop.util.VersionInfo.getVersion()  # type: ignore[union-attr]
    if "hadoop-" in expected[1]:
        assert f":{hadoop} " in message  # the version matching this Spark's Hadoop


def test_pandas_nanosecond_timestamps_are_read_as_microsecond_timestamps(
    spark: SparkSession, tmp_path: Path
) -> None:
    path = pandas_parquet(tmp_path / "orders.parquet")
    df = read_source(spark, "orders", source(str(path)))
    assert [(f.name, f.dataType.simpleString()) for f in df.schema.fields] == [
        ("ts", "timestamp"), ("local", "timestamp_ntz"), ("amount", "double"),
    ]  # fmt: skip
    rows = df.collect()
    assert [r.ts.astimezone(UTC) for r in rows] == [
        datetime(2024, 5, 1, 10, 0, 0, 123456, tzinfo=UTC),
        datetime(2024, 5, 2, 11, 0, 0, 1, tzinfo=UTC),
    ]
    assert [r.local for r in rows] == [
        datetime(2024, 5, 1, 10, 0, 0, 123456),
        datetime(2024, 5, 2, 11, 0, 0, 1),
    ]


def test_where_nanoseconds_cannot_be_read_the_error_gives_a_conversion_that_works(
    spark: SparkSession, tmp_path: Path
) -> None:
    path = pandas_parquet(tmp_path / "nanos.parquet")
    # What a remote file gets (no footer read beforehand): Spark's own error.
    with runtime_conf(spark, {NANOS_AS_LONG: "false"}), pytest.raises(Exception) as caught:
        spark.read.parquet(str(path)).collect()
    message = explain_read_error(caught.value, str(path), spark)
    assert "TIMESTAMP(NANOS,true)" in message and "coerce_timestamps='us'" in message
    # The conversion the message gives, applied as written, makes a file Spark reads.
    fixed = pandas_parquet(
        tmp_path / "fixed.parquet", coerce_timestamps="us", allow_truncated_timestamps=True
    )
    assert spark.read.parquet(str(fixed)).count() == 2

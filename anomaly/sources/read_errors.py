"""Why a source could not be read, in words that name the cause and the fix.

Spark reports a missing filesystem as "An error occurred while calling o37.load." (the cause
is in the Java stack trace), and nanosecond Parquet timestamps as ``PARQUET_TYPE_ILLEGAL``.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from anomaly.errors import job_error_message

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

HADOOP_AWS = "org.apache.hadoop:hadoop-aws:{hadoop}"
HADOOP_AZURE = "org.apache.hadoop:hadoop-azure:{hadoop}"
CONNECTORS: dict[str, tuple[str, str]] = {
    "s3a": ("the hadoop-aws package", HADOOP_AWS),
    "s3": ("the hadoop-aws package (Hadoop reads S3 as s3a://: write the URL with s3a://)",
           HADOOP_AWS),
    "s3n": ("the hadoop-aws package (s3n:// is gone: write the URL with s3a://)", HADOOP_AWS),
    "gs": ("Google's Cloud Storage connector",
           "com.google.cloud.bigdataoss:gcs-connector:hadoop3-<version>"),
    "abfs": ("the hadoop-azure package", HADOOP_AZURE),
    "abfss": ("the hadoop-azure package", HADOOP_AZURE),
    "wasb": ("the hadoop-azure package", HADOOP_AZURE),
    "wasbs": ("the hadoop-azure package", HADOOP_AZURE),
}  # fmt: skip
"""URL scheme -> (what provides its Hadoop filesystem, its Maven coordinate)."""
MISSING = (
    re.compile(r'No FileSystem for scheme "?([\w.+-]+)"?'),
    re.compile(r"Class org\.apache\.hadoop\.fs\.(\w+)\.\w+ not found"),
    re.compile(r"Class (com\.google\.cloud\.hadoop\.fs\.gcs)\.\w+ not found"),
)
NANOS = re.compile(r"TIMESTAMP\(NANOS,(true|false)\)")
NANOS_FIX = (
    "the file has nanosecond timestamps (pandas writes them by default), which Spark does not "
    "read as timestamps. Write them in microseconds: "
    "df.to_parquet(path, coerce_timestamps='us', allow_truncated_timestamps=True) in pandas, "
    "pyarrow.parquet.write_table(table, path, coerce_timestamps='us', "
    "allow_truncated_timestamps=True) in pyarrow; or read them as epoch nanoseconds with "
    "spark.sql.legacy.parquet.nanosAsLong=true"
)


def explain_read_error(error: BaseException, url: str, spark: SparkSession | None = None) -> str:
    """One line: Spark's root cause of failing to read `url`, and the fix when it is known.

    >>> print(explain_read_error(RuntimeError('No FileSystem for scheme "s3a"'), "s3a://lake/o/"))
    No FileSystem for scheme "s3a": no filesystem for URL scheme 's3a' is installed in this \
Spark. It comes with the hadoop-aws package, ...
    """
    cause = job_error_message(error)
    text = f"{cause}\n{error}"
    scheme = url.split("://", 1)[0] if "://" in url else None
    if scheme is not None and any(p.search(text) for p in MISSING):
        return f"{cause}: {missing_filesystem(scheme, hadoop_version(spark))}"
    if NANOS.search(text):
        return f"{cause}: {NANOS_FIX}"
    return cause


def missing_filesystem(scheme: str, hadoop: str | None) -> str:
    """What to install for URL `scheme`, for Spark's Hadoop version `hadoop`.

    >>> print(missing_filesystem("s3a", "3.4.1"))  # doctest: +NORMALIZE_WHITESPACE
    no filesystem for URL scheme 's3a' is installed in this Spark. It comes with the hadoop-aws
    package, matching Spark's Hadoop version: set spark.jars.packages to
    org.apache.hadoop:hadoop-aws:3.4.1 (the config file's spark.conf, spark-defaults.conf, or
    PYSPARK_SUBMIT_ARGS="--packages org.apache.hadoop:hadoop-aws:3.4.1 pyspark-shell" for
    'anomaly monitor'), and give the credentials as Hadoop settings (spark.hadoop.fs.s3a.*)
    or the provider's environment variables
    """
    provider, coordinate = CONNECTORS.get(
        scheme, (f"a Hadoop FileSystem for {scheme}://", "<its Maven coordinate>")
    )
    package = coordinate.format(hadoop=hadoop or "<Spark's Hadoop version>")
    settings = {"s3a": "fs.s3a", "s3": "fs.s3a", "s3n": "fs.s3a", "gs": "fs.gs"}
    prefix = settings.get(scheme, "fs.azure" if scheme in CONNECTORS else f"fs.{scheme}")
    return (
        f"no filesystem for URL scheme {scheme!r} is installed in this Spark. It comes with "
        f"{provider}, matching Spark's Hadoop version: set spark.jars.packages to {package} "
        "(the config file's spark.conf, spark-defaults.conf, or PYSPARK_SUBMIT_ARGS="
        f"\"--packages {package} pyspark-shell\" for 'anomaly monitor'), and give the "
        f"credentials as Hadoop settings (spark.hadoop.{prefix}.*) or the provider's "
        "environment variables"
    )


def hadoop_version(spark: SparkSession | None) -> str | None:
    """The Hadoop version of `spark`'s JVM (None for Spark Connect or when unknown)."""
    if spark is None:
        return None
    try:
        jvm = spark.sparkContext._jvm
        assert jvm is not None
        return str(jvm.org.apache.hadoop.util.VersionInfo.getVersion())
    except Exception:  # Spark Connect, or a JVM that is gone: the message says <version>
        return None

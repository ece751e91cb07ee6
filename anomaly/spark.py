"""Spark session handling: build a sensible local session from settings, or use the caller's."""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from anomaly.errors import AnomalyError, ConfigurationError, job_error_message

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

LOG_CONFIG = Path(__file__).with_name("log4j2.properties")
DEFAULT_CONF: dict[str, str] = {
    "spark.ui.enabled": "false",
    "spark.ui.showConsoleProgress": "false",
    # Metric queries aggregate to few rows: 200 shuffle partitions would only add overhead.
    "spark.sql.shuffle.partitions": "8",
    "spark.sql.session.timeZone": "UTC",
    "spark.driver.extraJavaOptions": f"-Dlog4j.configurationFile={LOG_CONFIG}",
    # PySpark's DataFrame debugging sends the Python call site of every Column and function
    # call to the JVM, for the query context of Spark's error messages: the expressions the
    # engine builds cost 2.6x the py4j round trips (a monitors scan of 30 columns: 3,900 ->
    # 1,500 a pass; passes 1.2-1.6x faster, bench/dataframe_debugging.py). The call sites would
    # point into this package, and a failed metric names its analyzer and column anyway.
    "spark.python.sql.dataFrameDebugging.enabled": "false",
}


def build_session(
    master: str | None = "local[*]",
    remote: str | None = None,
    app_name: str = "anomaly",
    conf: Mapping[str, str] | None = None,
) -> SparkSession:
    """Build (or reuse) a Spark session.

    Parameters
    ----------
    master
        Spark master URL; ``local[*]`` by default. Ignored when `remote` is given.
    remote
        Spark Connect URL (``sc://host:port``); when given a Connect session is built.
    app_name
        Application name shown in the Spark UI and logs.
    conf
        Extra Spark settings; they override `DEFAULT_CONF`. A session the process already has
        is reused with its own settings: only `conf` is applied to it. A local session runs its
        Python workers on this interpreter unless `conf` or ``PYSPARK_PYTHON`` names another
        (see `detectors.worker_python.worker_python`).
    """
    from pyspark.sql import SparkSession

    from detectors.worker_python import worker_python

    if remote is not None and not remote.startswith("sc://"):
        raise ConfigurationError(
            f"remote must be a Spark Connect URL 'sc://host:port', got {remote!r}"
        )
    builder = SparkSession.builder.appName(app_name)
    builder = builder.remote(remote) if remote else builder.master(master or "local[*]")
    settings = dict(DEFAULT_CONF)
    if remote:
        # Driver-side settings cannot be changed from a Connect client.
        settings = {k: v for k, v in settings.items() if k.startswith("spark.sql.")}
    elif SparkSession._instantiatedSession is not None:
        # getOrCreate would hand back the process's session (also from another thread, where it
        # is not "active") with our defaults written over the owner's settings.
        settings = {}
    settings.update(conf or {})
    for key, value in settings.items():
        builder = builder.config(key, value)
    session = builder.getOrCreate()
    python = None if remote else worker_python(master or "local[*]", conf or {})
    if python is not None:
        # PySpark hands this to the JVM with every Python function it ships (UDFs,
        # applyInPandas); in a session started from Python, `spark.pyspark.python` is not read.
        session.sparkContext.pythonExec = python
    quiet_spark_logging(session)
    prepare_error_loggers()
    return session


WIDE_CONF: dict[str, str] = {"spark.sql.codegen.maxFields": "100000"}
"""For queries over many columns: above `maxFields` (default 100) fields Spark drops whole-stage
codegen and the vectorized Parquet/ORC reader, and a 200-column aggregation costs ~4x per value."""


@contextmanager
def runtime_conf(spark: SparkSession, settings: Mapping[str, str]) -> Iterator[None]:
    """Runtime SQL `settings` for the jobs started inside the block, then the caller's again.

    A session the user brought keeps its own settings outside the block.
    """
    before = {key: spark.conf.get(key, None) for key in settings}
    for key, value in settings.items():
        spark.conf.set(key, value)
    try:
        yield
    finally:
        for key, old in before.items():
            if old is None:
                spark.conf.unset(key)
            else:
                spark.conf.set(key, old)


QUERY_CONTEXT_LOGGERS = ("SQLQueryContextLogger", "DataFrameQueryContextLogger")
"""The loggers PySpark writes a failed query's context to, with its own keyword arguments."""
_LOGGERS_LOCK = threading.Lock()


def prepare_error_loggers() -> None:
    """Create PySpark's query-context loggers once, before threads can raise Spark errors.

    PySpark creates them on a process's first Spark error by swapping the global logger class;
    two threads doing that at once can leave a plain ``logging.Logger``, and every later Spark
    error of the process then fails inside PySpark ("unexpected keyword argument
    'errorClass'"), hiding the real cause of a failed metric.

    >>> prepare_error_loggers()
    >>> import logging
    >>> type(logging.getLogger("SQLQueryContextLogger")).__name__
    'PySparkLogger'
    """
    from pyspark.logger import PySparkLogger

    with _LOGGERS_LOCK:  # PySparkLogger.getLogger itself swaps a process-wide setting
        for name in QUERY_CONTEXT_LOGGERS:
            known = logging.Logger.manager.loggerDict.get(name)
            if isinstance(known, logging.Logger) and not isinstance(known, PySparkLogger):
                # Left plain by such a race already: replaced, or every later error fails.
                del logging.Logger.manager.loggerDict[name]
            PySparkLogger.getLogger(name)


class SparkUnavailableError(AnomalyError):
    """Spark's JVM ran out of memory or died: no job of this session can run any more.

    >>> str(SparkUnavailableError("Spark's JVM ran out of memory"))
    "Spark's JVM ran out of memory"
    """


JVM_OUT_OF_MEMORY = ("java.lang.OutOfMemoryError", "Java heap space", "GC overhead limit exceeded")
JVM_GONE = (
    "Answer from Java side is empty",
    "Error while sending or receiving",
    "Error while receiving",
    "Connection refused",
    "SparkContext was shut down",
    "Cannot call methods on a stopped SparkContext",
    "Java gateway process exited",
)


def raise_if_unavailable(error: BaseException, doing: str) -> None:
    """Raise `SparkUnavailableError` when `error` says the JVM ran out of memory or is gone.

    Checked from the error's Python text and, for a Java error, its root cause's class and
    message (not its whole stack trace).

    >>> raise_if_unavailable(RuntimeError("division by zero"), "computing")
    >>> raise_if_unavailable(RuntimeError("java.lang.OutOfMemoryError: Java heap space"),
    ...                      "computing 200 column slots")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    anomaly.spark.SparkUnavailableError: Spark's JVM ran out of memory computing 200 column ...
    """
    from py4j.protocol import Py4JNetworkError

    text = " ".join(arg for arg in error.args if isinstance(arg, str))
    if hasattr(error, "java_exception") and not isinstance(error, Py4JNetworkError):
        text += " " + job_error_message(error)  # a Java error's root cause (OutOfMemoryError)
    if any(marker in text for marker in JVM_OUT_OF_MEMORY):
        raise SparkUnavailableError(
            f"Spark's JVM ran out of memory {doing}: give the driver more memory "
            "(spark.driver.memory in the config's spark.conf, or PYSPARK_SUBMIT_ARGS="
            '"--driver-memory 4g pyspark-shell"), or watch fewer columns (--include/--exclude, '
            "monitors.columns.exclude)"
        ) from None
    if isinstance(error, Py4JNetworkError | ConnectionError) or any(m in text for m in JVM_GONE):
        raise SparkUnavailableError(
            f"Spark's JVM stopped answering {doing} (it crashed or was killed; its log says "
            "why, often lack of memory): nothing more can run in this process; start again"
        ) from None


def resolve_session(spark: SparkSession | None = None) -> SparkSession:
    """The session to use: the one passed, else the active one, else a new local one.

    A local session the user built gets its Python workers on this interpreter, unless the
    user chose one (`detectors.worker_python.use_driver_python`).
    """
    from detectors.worker_python import use_driver_python

    if spark is not None:
        prepare_error_loggers()
        use_driver_python(spark)
        return spark
    from pyspark.sql import SparkSession

    active = SparkSession.getActiveSession()
    if active is None:
        return build_session()
    use_driver_python(active)
    return active


def is_connect(spark: SparkSession) -> bool:
    """Whether `spark` is a Spark Connect session (no SparkContext, no status tracker)."""
    return type(spark).__module__.startswith("pyspark.sql.connect")


def quiet_spark_logging(spark: SparkSession) -> None:
    """Silence Spark's own logging of errors we catch and turn into readable messages."""
    for name in ("DataFrameQueryContextLogger", "SQLQueryContextLogger"):
        logging.getLogger(name).disabled = True
    if not is_connect(spark):
        spark.sparkContext.setLogLevel("ERROR")

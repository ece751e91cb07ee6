"""Which interpreter a local Spark session's Python workers run on: the driver's, by default.

Spark starts its Python workers (``applyInPandas``, UDFs) with ``python3`` from the PATH unless
told otherwise. From a virtual environment that is not activated (cron, systemd, an IDE, a
``SparkSession`` built by hand in a notebook kernel), that is another interpreter, without the
environment's packages, and per-group detection fails with ``No module named 'detectors'``.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

PYTHON_CONF = "spark.pyspark.python"
DEFAULT_WORKER = "python3"
"""What PySpark runs workers with when neither ``PYSPARK_PYTHON`` nor the session says."""


def worker_python(
    master: str, conf: Mapping[str, str], environ: Mapping[str, str] = os.environ
) -> str | None:
    """The interpreter a local session's Python workers should run on, None to leave it.

    ``spark.pyspark.python`` when set, else this interpreter, unless ``PYSPARK_PYTHON`` is set
    (PySpark uses it) or the master is a cluster (its executors have their own interpreters).

    >>> worker_python("local[2]", {}, environ={}) == sys.executable
    True
    >>> worker_python("local[2]", {"spark.pyspark.python": "/opt/py"}, environ={})
    '/opt/py'
    >>> worker_python("local[*]", {}, environ={"PYSPARK_PYTHON": "/opt/py"}) is None
    True
    >>> worker_python("spark://host:7077", {}, environ={}) is None
    True
    """
    if not master.startswith("local"):
        return None
    if PYTHON_CONF in conf:
        return conf[PYTHON_CONF]
    if environ.get("PYSPARK_PYTHON") or not sys.executable:
        return None
    return sys.executable


def use_driver_python(spark: SparkSession, environ: Mapping[str, str] = os.environ) -> None:
    """Run `spark`'s Python workers on `worker_python`, unless the user chose an interpreter.

    Called by the entry points that ship Python to workers, for sessions built by the user
    too. A session whose workers already run on a chosen interpreter (``PYSPARK_PYTHON``,
    ``spark.pyspark.python``, or set by hand) is left as it is, and so are cluster and Spark
    Connect sessions.
    """
    if type(spark).__module__.startswith("pyspark.sql.connect"):
        return  # no SparkContext: the server's workers are configured there
    context = spark.sparkContext
    if context.pythonExec not in (DEFAULT_WORKER, None):
        return  # the user's choice (or ours, made once already)
    conf = {PYTHON_CONF: value} if (value := context.getConf().get(PYTHON_CONF)) else {}
    python = worker_python(context.master or "", conf, environ)
    if python is not None:
        # PySpark hands this to the JVM with every Python function it ships; a conf given to
        # the builder (`spark.pyspark.python`) is not read by a session started from Python.
        context.pythonExec = python

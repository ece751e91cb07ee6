"""Fan per-group detection out over Spark with ``applyInPandas``.

Each group's points travel to one Python worker, which runs the pandas detection
(:mod:`detectors.frame_pandas`) on them: the same code, rows and columns
(:mod:`detectors.frame_schema`, ``p_value`` included) as locally, for histories too many or
models too slow for one machine. pyspark is imported here only, so the package itself needs no
JVM.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import pandas as pd

from detectors.frame_pandas import detect_frame_pandas
from detectors.frame_schema import P_VALUE, spark_result_schema
from detectors.worker_python import use_driver_python

if TYPE_CHECKING:
    from pyspark.sql import DataFrame


def detect_frame_spark(
    frame: DataFrame,
    detector: object,
    by: str | Sequence[str] = (),
    time: str = "timestamp",
    value: str = "value",
    newest_only: bool = False,
    *,
    anomalies_only: bool = True,
) -> DataFrame:
    """:func:`~detectors.detect_frame` on a Spark DataFrame, one group per task; returns a
    Spark DataFrame with the same columns, ``p_value`` always (null where the detector computes
    none: a Spark schema is fixed before the detector runs). The detector is shipped to the
    workers by pickling, so it must be importable there (built-ins and module-level classes are).
    """
    use_driver_python(frame.sparkSession)  # else `run` fails to unpickle on another Python
    by = [by] if isinstance(by, str) else list(by)
    schema = spark_result_schema(frame.schema, by, time, value)
    names = [field.name for field in schema.fields]

    def run(group: pd.DataFrame) -> pd.DataFrame:
        result = detect_frame_pandas(
            group, detector, by, time, value, newest_only, anomalies_only=anomalies_only
        )
        if P_VALUE not in result.columns:  # the detector computes none: null in Spark
            result[P_VALUE] = float("nan")
        return result[names]

    return frame.groupBy(*by).applyInPandas(run, schema=schema)

"""Fan per-group detection out over Spark with ``applyInPandas``.

Each group's points travel to one Python worker, which runs :func:`detect_frame` on them:
the same code and results as locally, for histories too many or models too slow for one
machine. pyspark is imported here only, so the package itself needs no JVM.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import pandas as pd

from detectors.frame import detect_frame

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
    Spark DataFrame with the same columns. The detector is shipped to the workers by pickling,
    so it must be importable there (built-ins and module-level classes are).
    """
    from pyspark.sql import types as st

    by = [by] if isinstance(by, str) else list(by)
    schema = st.StructType(
        [
            *(frame.schema[c] for c in by),
            frame.schema[time],
            st.StructField(value, st.DoubleType()),
            st.StructField("status", st.StringType()),
            st.StructField("lower", st.DoubleType()),
            st.StructField("upper", st.DoubleType()),
            st.StructField("confidence", st.DoubleType()),
            st.StructField("detail", st.StringType()),
            st.StructField("history", st.LongType()),
        ]
    )
    names = [field.name for field in schema.fields]

    def run(group: pd.DataFrame) -> pd.DataFrame:
        result = detect_frame(
            group, detector, by, time, value, newest_only, anomalies_only=anomalies_only
        )
        return result[names]

    return frame.groupBy(*by).applyInPandas(run, schema=schema)

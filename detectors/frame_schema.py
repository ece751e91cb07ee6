"""The row schema of per-group detection results, shared by the local and the Spark path.

:func:`~detectors.detect_frame` on pandas and its Spark fan-out
(:func:`~detectors.detect_frame_spark`) both return one row per judged point with the group
columns, the time and value columns, then :data:`RESULT_COLUMNS` in this order. ``p_value`` is
filled by detectors that calibrate their band (NaN where they give none for a point); a pandas
result carries it only when the detector computes one, a Spark result always (a Spark schema is
fixed before any detector runs), null where the detector computes none.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pyspark.sql.types import StructType

P_VALUE = "p_value"

#: The columns after the group, time and value columns, with their kind.
RESULT_COLUMNS: tuple[tuple[str, str], ...] = (
    ("status", "string"),
    ("lower", "double"),
    ("upper", "double"),
    ("confidence", "double"),
    ("detail", "string"),
    ("history", "long"),
    (P_VALUE, "double"),
)


def result_columns(by: Sequence[str], time: str, value: str, *, p_value: bool) -> list[str]:
    """The names of a result's columns, in order.

    Examples
    --------
    >>> result_columns(["board"], "timestamp", "value", p_value=False)
    ['board', 'timestamp', 'value', 'status', 'lower', 'upper', 'confidence', 'detail', 'history']
    """
    kept = [name for name, _ in RESULT_COLUMNS if p_value or name != P_VALUE]
    return [*by, time, value, *kept]


def spark_result_schema(source: StructType, by: Sequence[str], time: str, value: str) -> StructType:
    """The Spark schema of a result on ``source`` (a frame's schema): the group and time columns
    keep their types, ``value`` becomes a double, then :data:`RESULT_COLUMNS`, ``p_value``
    included."""
    from pyspark.sql import types as st

    kinds = {"string": st.StringType(), "double": st.DoubleType(), "long": st.LongType()}
    return st.StructType(
        [
            *(source[c] for c in by),
            source[time],
            st.StructField(value, st.DoubleType()),
            *(st.StructField(name, kinds[kind]) for name, kind in RESULT_COLUMNS),
        ]
    )

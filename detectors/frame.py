"""Detection per group over a long frame of metric points, on pandas or fanned out on Spark.

Both paths return the rows of :mod:`detectors.frame_schema`; the pandas one is
:mod:`detectors.frame_pandas`, the Spark one :mod:`detectors.spark`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from detectors.frame_pandas import detect_frame_pandas


def detect_frame(
    frame: Any,
    detector: object,
    by: str | Sequence[str] = (),
    time: str = "timestamp",
    value: str = "value",
    newest_only: bool = False,
    *,
    anomalies_only: bool = True,
) -> Any:
    """Run ``detector`` on each group's series of ``frame`` (one row per point).

    Per group this is :func:`~detectors.detect_series` over the whole series, or only its
    newest point with ``newest_only`` (the rest is history). Returns the anomalies, or with
    ``anomalies_only=False`` every evaluated point, as rows of the group columns, ``time``,
    ``value``, ``status``, ``lower``, ``upper``, ``confidence``, ``detail`` and ``history``
    (the number of earlier points), sorted by group and time, plus ``p_value`` for detectors
    that compute one. Detectors that use timestamps (:class:`~detectors.base.TimeAware`) get
    each group's times.

    A Spark DataFrame is fanned out over the cluster with ``applyInPandas`` (see
    :func:`~detectors.spark.detect_frame_spark`) and a Spark DataFrame comes back.

    Examples
    --------
    >>> import pandas as pd
    >>> from detectors import SimpleThreshold
    >>> frame = pd.DataFrame({
    ...     "board": ["a", "a", "b", "b"],
    ...     "timestamp": pd.to_datetime(["2024-01-01", "2024-01-02"] * 2),
    ...     "value": [1.0, 5.0, 1.0, 2.0],
    ... })
    >>> result = detect_frame(frame, SimpleThreshold(upper_bound=3), by="board")
    >>> result[["board", "value", "status"]]
      board  value   status
    0     a    5.0  anomaly
    >>> detect_frame(frame, SimpleThreshold(upper_bound=3), by="board", newest_only=True,
    ...              anomalies_only=False)[["board", "status", "upper"]]
      board   status  upper
    0     a  anomaly    3.0
    1     b       ok    3.0
    """
    by = [by] if isinstance(by, str) else list(by)
    if type(frame).__module__.startswith("pyspark."):
        from detectors.spark import detect_frame_spark

        return detect_frame_spark(
            frame, detector, by, time, value, newest_only, anomalies_only=anomalies_only
        )
    return detect_frame_pandas(
        frame, detector, by, time, value, newest_only, anomalies_only=anomalies_only
    )

from __future__ import annotations

import math

import numpy as np

from detectors import Anomaly, Evaluation, SimpleThreshold, Status
from detectors.evaluation import judge


def test_judge_orders_missing_over_insufficient_over_the_band() -> None:
    values = np.array([math.nan, 5.0, 5.0, 0.5, 1.0])
    lower = np.zeros(5)
    upper = np.ones(5)
    ready = np.array([False, False, True, True, True])
    assert judge(values, lower, upper, ready).tolist() == [3, 2, 1, 0, 0]


def test_evaluation_views() -> None:
    evaluation = SimpleThreshold(upper_bound=1).evaluate([-1, 2, math.nan], (1, 3))
    assert isinstance(evaluation, Evaluation) and len(evaluation) == 2
    assert evaluation.index.tolist() == [1, 2]
    assert evaluation.status == [Status.ANOMALY, Status.MISSING]
    assert evaluation.anomalies() == [
        Anomaly(
            1, 2.0, 1.0, -math.inf, 1.0, "[SimpleThreshold] Value 2.0 is not in bounds [-inf, 1.0]."
        )
    ]
    frame = evaluation.to_frame()
    assert list(frame.columns) == [
        "index",
        "value",
        "status",
        "lower",
        "upper",
        "confidence",
        "detail",
    ]
    assert frame["status"].tolist() == ["anomaly", "missing"]
    assert frame["confidence"].iloc[0] == 1.0 and math.isnan(frame["confidence"].iloc[1])


def test_anomaly_fields_are_plain_python_types() -> None:
    (anomaly,) = SimpleThreshold(upper_bound=1).detect(np.array([3.0]))
    assert type(anomaly.index) is int and type(anomaly.value) is float

"""The values a metric can take, read from its analyzer."""

from __future__ import annotations

import math
from typing import Any

import pytest

from anomaly.analyzers import (
    ApproxCountDistinct,
    Completeness,
    Compliance,
    Correlation,
    CountDistinct,
    Distinctness,
    Entropy,
    Maximum,
    Mean,
    PatternMatch,
    Size,
    StandardDeviation,
    Sum,
    Uniqueness,
    UniqueValueRatio,
)
from anomaly.metric_domain import metric_domain
from anomaly.monitors.column_health import ColumnHealth


@pytest.mark.parametrize(
    ("analyzer", "domain"),
    [
        (Completeness("a"), (0.0, 1.0)),
        (Compliance("positive", "a > 0"), (0.0, 1.0)),
        (PatternMatch("a", r"\d+"), (0.0, 1.0)),
        (Distinctness(("a",)), (0.0, 1.0)),
        (Uniqueness(("a",)), (0.0, 1.0)),
        (UniqueValueRatio(("a",)), (0.0, 1.0)),
        (Size(), (0.0, math.inf)),
        (CountDistinct(("a",)), (0.0, math.inf)),
        (ApproxCountDistinct("a"), (0.0, math.inf)),
        (StandardDeviation("a"), (0.0, math.inf)),
        (Entropy("a"), (0.0, math.inf)),
        (Correlation("a", "b"), (-1.0, 1.0)),
        (Mean("a"), None),
        (Sum("a"), None),
        (Maximum("a"), None),
        (ColumnHealth("a"), None),  # completeness and means in one analyzer: no one domain
    ],
)
def test_a_metrics_domain_follows_its_kind(analyzer: Any, domain: Any) -> None:
    assert metric_domain(analyzer) == domain

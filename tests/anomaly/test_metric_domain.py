"""The domain of a metric, from its analyzer name, record name or metric id."""

from __future__ import annotations

import math
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

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
from anomaly.metric_domain import MetricDomain, analyzer_domain, metric_domain
from anomaly.monitors.column_health import ColumnHealth

KINDS = [
    ("Size(*)", "count", 0.0, None),
    ("Size", "count", 0.0, None),
    ("CountDistinct(country)", "count", 0.0, None),
    ("Completeness(price)", "share", 0.0, 1.0),
    ("Compliance(refund rate: status = 'refund')", "share", 0.0, 1.0),
    ("Uniqueness(id)", "share", 0.0, 1.0),
    ("ColumnHealth(email)[completeness]", "share", 0.0, 1.0),
    ("ColumnHealth.distinct_ratio", "share", 0.0, 1.0),
    ("ColumnHealth(city)[share:Paris]", "share", 0.0, 1.0),
    ("ColumnHealth(note)[max_length]", "count", 0.0, None),
    ("ColumnHealth(ts)[latest]", "time", None, None),
    ("ColumnHealth(amount)[mean]", "amount", None, None),
    ("Histogram(country)[ratio.DE]", "share", 0.0, 1.0),
    ("Histogram.abs.DE", "count", 0.0, None),
    ("Freshness(event_time)", "duration", 0.0, None),
    ("Timeliness(event_time, loaded_at)[p95]", "duration", 0.0, None),
    ("Timeliness(event_time, loaded_at, threshold: 3600s)[late_share]", "share", 0.0, 1.0),
    ("Correlation(a, b)", "correlation", -1.0, 1.0),
    ("Mean(price)", "amount", None, None),
    ("Sum(price)", "amount", None, None),
    ("SomethingNew(x)", "amount", None, None),
]


@pytest.mark.parametrize(("name", "kind", "lower", "upper"), KINDS)
def test_the_kind_and_bounds_come_from_the_name(
    name: str, kind: str, lower: float | None, upper: float | None
) -> None:
    domain = metric_domain(name)
    assert (domain.kind, domain.lower, domain.upper) == (kind, lower, upper)
    assert domain.unit == ("s" if kind == "duration" else None)


DOMAINS = sorted({metric_domain(name) for name, *_ in KINDS}, key=lambda d: d.kind)


@given(st.sampled_from(DOMAINS), st.floats(allow_nan=False))
def test_a_clipped_value_is_in_the_domain_and_a_value_inside_stays(
    domain: MetricDomain, value: float
) -> None:
    clipped = domain.clip(value)
    assert domain.contains(clipped)
    if domain.contains(value):
        assert clipped == value


def test_nan_is_no_value_of_any_domain() -> None:
    assert not any(domain.contains(math.nan) for domain in DOMAINS)
    assert math.isnan(metric_domain("Completeness").clip(math.nan))


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
def test_a_detector_is_told_its_analyzers_domain(analyzer: Any, domain: Any) -> None:
    assert analyzer_domain(analyzer) == domain

"""The values a metric can take, read from its name: shares in [0, 1], counts and durations
at least 0, correlations in [-1, 1], anything else unbounded.

Charts clip a detector's band to this domain (a band of a completeness below 0 says nothing
more than one down to 0) and show durations in human units; a detector can be given the same
domain. The module knows names only, so it imports nothing and works on stored series as well
as on analyzers: ``Completeness``, ``Completeness(price)``, ``Timeliness.late_share`` (a record's
name) and ``Timeliness(ts)[late_share]`` (its metric id) are all understood.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

__all__ = ["MetricDomain", "analyzer_domain", "metric_domain"]

_SHARES = frozenset(
    {
        "Accuracy",
        "Completeness",
        "Compliance",
        "Distinctness",
        "PatternMatch",
        "Predictability",
        "RecordCompleteness",
        "UniqueValueRatio",
        "Uniqueness",
    }
)
_COUNTS = frozenset(
    {
        "ApproxCountDistinct",
        "CountDistinct",
        "Entropy",
        "MutualInformation",
        "Size",
        "StandardDeviation",
    }
)
_DURATIONS = frozenset({"Freshness", "Timeliness"})
_CORRELATIONS = frozenset({"Correlation"})
# Parts of a multi-valued metric (``ColumnHealth.min_length``, ``Histogram.abs.DE``, ...).
_SHARE_PARTS = ("completeness", "distinct_ratio", "ratio", "share")
_COUNT_PARTS = ("abs", "matched", "total", "length", "size")
_TIME_PARTS = ("earliest", "latest")  # epoch seconds: a moment, not a duration


@dataclass(frozen=True)
class MetricDomain:
    """What a metric's values can be: ``kind`` (``share``, ``count``, ``duration``,
    ``correlation``, ``time`` or ``amount``), the bounds (None: unbounded) and the unit
    (``"s"`` for durations, else None).

    Examples
    --------
    >>> share = metric_domain("Completeness(price)")
    >>> share.kind, share.lower, share.upper, share.clip(-2.5), share.clip(0.4)
    ('share', 0.0, 1.0, 0.0, 0.4)
    >>> metric_domain("Freshness(*)").unit, metric_domain("Mean(price)").clip(-7.0)
    ('s', -7.0)
    """

    kind: str
    lower: float | None = None
    upper: float | None = None
    unit: str | None = None

    def clip(self, value: float) -> float:
        """`value` moved into the domain (NaN stays NaN)."""
        if self.lower is not None and value < self.lower:
            return self.lower
        if self.upper is not None and value > self.upper:
            return self.upper
        return value

    def contains(self, value: float) -> bool:
        """Whether `value` is a possible value (NaN is not).

        >>> metric_domain("Size(*)").contains(-1.0), metric_domain("Mean(x)").contains(1e300)
        (False, True)
        """
        if math.isnan(value):
            return False
        return (self.lower is None or value >= self.lower) and (
            self.upper is None or value <= self.upper
        )


SHARE = MetricDomain("share", 0.0, 1.0)
COUNT = MetricDomain("count", 0.0)
DURATION = MetricDomain("duration", 0.0, None, "s")
CORRELATION = MetricDomain("correlation", -1.0, 1.0)
TIME = MetricDomain("time")
AMOUNT = MetricDomain("amount")


def metric_domain(name: str) -> MetricDomain:
    """The domain of the metric called `name` (an analyzer's name, a record's name or a metric
    id); unknown names are unbounded amounts.

    Examples
    --------
    >>> [metric_domain(n).kind for n in ("Size(*)", "Timeliness(ts)[late_share]",
    ...     "Timeliness.p95", "ColumnHealth(city)[share:Paris]", "Histogram.abs.DE",
    ...     "ColumnHealth(ts)[latest]", "Correlation(a, b)", "Sum(price)")]
    ['count', 'share', 'duration', 'share', 'count', 'time', 'correlation', 'amount']
    """
    base, part = _split(str(name))
    if part:
        words = part.replace(":", "_").replace(".", "_").split("_")
        if any(w in _SHARE_PARTS for w in words) or part in _SHARE_PARTS:
            return SHARE
        if part in _TIME_PARTS:
            return TIME
        if any(w in _COUNT_PARTS for w in words):
            return COUNT
    if base in _SHARES:
        return SHARE
    if base in _COUNTS:
        return COUNT
    if base in _DURATIONS:
        return DURATION
    if base in _CORRELATIONS:
        return CORRELATION
    return AMOUNT


def analyzer_domain(analyzer: object) -> tuple[float, float] | None:
    """``(lower, upper)`` of the values `analyzer`'s metric can take, for a detector's band
    (``math.inf`` for an open side), or None when it can be any number or when one analyzer
    yields measures of different kinds (``ColumnHealth``). Read from the class names of the
    analyzer's type, most derived first. Durations are left open: a detector treats a value
    outside its domain as impossible, and a lateness can be below 0 when clocks disagree.

    >>> from anomaly.analyzers import Completeness, Mean, Size
    >>> analyzer_domain(Completeness("email")), analyzer_domain(Size()), analyzer_domain(Mean("x"))
    ((0.0, 1.0), (0.0, inf), None)
    """
    for cls in type(analyzer).__mro__:
        domain = metric_domain(cls.__name__)
        if domain.kind in ("share", "count", "correlation"):
            lower = -math.inf if domain.lower is None else domain.lower
            upper = math.inf if domain.upper is None else domain.upper
            return (lower, upper)
    return None


def _split(name: str) -> tuple[str, str]:
    """(analyzer name, part of a multi-valued metric or ''), from a metric id or a record name.

    >>> _split("Timeliness(ts, at)[p95]"), _split("Histogram.ratio.DE"), _split("Size(*)")
    (('Timeliness', 'p95'), ('Histogram', 'ratio.DE'), ('Size', ''))
    """
    if "(" in name:
        base, _, rest = name.partition("(")
        part = rest[rest.rfind(")[") + 2 : -1] if rest.endswith("]") and ")[" in rest else ""
        return base.strip(), part
    base, _, part = name.partition(".")
    return base.strip(), part

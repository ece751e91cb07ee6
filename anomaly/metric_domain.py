"""The values a metric can take, from its analyzer: shares in [0, 1], counts and spreads at least
0, correlations in [-1, 1]; ``None`` when the metric can be any number (a mean, a sum) or when
one analyzer yields measures of different kinds (``ColumnHealth``).

Dependency-free on purpose (the analyzer's class names are read, nothing is imported), so a
detector's band and a chart's band can both be cut to the same domain.

>>> from anomaly.analyzers import Completeness, Mean, Size
>>> metric_domain(Completeness("email")), metric_domain(Size()), metric_domain(Mean("price"))
((0.0, 1.0), (0.0, inf), None)
"""

from __future__ import annotations

import math
from typing import Any

Domain = tuple[float, float]

SHARE: Domain = (0.0, 1.0)
NON_NEGATIVE: Domain = (0.0, math.inf)
CORRELATION: Domain = (-1.0, 1.0)

DOMAINS: dict[str, Domain] = {
    # Shares of rows: Completeness, Compliance, PatternMatch, RecordCompleteness.
    "RowShareAnalyzer": SHARE,
    "Distinctness": SHARE,
    "Uniqueness": SHARE,
    "UniqueValueRatio": SHARE,
    "Size": NON_NEGATIVE,
    "CountDistinct": NON_NEGATIVE,
    "ApproxCountDistinct": NON_NEGATIVE,
    "StandardDeviation": NON_NEGATIVE,
    "Entropy": NON_NEGATIVE,
    "MutualInformation": NON_NEGATIVE,
    "Correlation": CORRELATION,
}
"""Analyzer class (or a base class) -> its metric's domain; the most derived class wins."""


def metric_domain(analyzer: Any) -> Domain | None:
    """``(lower, upper)`` of the values `analyzer`'s metric can take (``math.inf`` for an
    unbounded side), or ``None`` when it is unknown or can be any number."""
    for cls in type(analyzer).__mro__:
        if cls.__name__ in DOMAINS:
            return DOMAINS[cls.__name__]
    return None

"""The one place where judging defaults are resolved: a metric's detector, severity and
minimum history, from the most specific setting to the config's defaults.

Every judged series goes through `resolve_plan`: a scan's metrics, its monitors, a stream's
windows. ``has_no_anomalies`` keeps Deequ's rule (its detector decides from the first earlier
point, ``min_history=1``) because a pipeline check names its own detector.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from anomaly.analyzers import Analyzer
from anomaly.config.detector_spec import DetectorSpec
from anomaly.config.metric_spec import Severity
from anomaly.metric_domain import analyzer_domain

MIN_HISTORY = 7
"""Earlier points a series needs before it is judged, unless a metric, monitor, scan or the
config's ``defaults`` set ``min_history``: a daily metric is judged from its second week. Was
14; measured before lowering it (default detector, domains told): the monitors demo still
finds 7 of 7 injected problems with 0 other alarms, and a clean 1,000-group x 5-metric x
45-day table backfilled under one false alert a week raises 1 alert, as with 14
(``bench/clean_table.py --min-history``)."""
DEFAULT_SEVERITY: Severity = "error"
DEFAULT_DETECTOR = "Adaptive"
"""The detector of every series whose metric, scan and defaults name none."""


class JudgingLevel(Protocol):
    """A config entry that may set how its series are judged (unset: ``None``)."""

    @property
    def detector(self) -> DetectorSpec | None: ...

    @property
    def severity(self) -> Severity | None: ...

    @property
    def min_history(self) -> int | None: ...


@dataclass(frozen=True)
class MetricPlan:
    """A metric with how it is judged, after defaults are applied (`resolve_plan`).

    >>> from anomaly.analyzers import Size
    >>> MetricPlan(Size(), None, "none", "warning", 0).severity
    'warning'
    """

    analyzer: Analyzer[Any]
    detector: Any
    detector_label: str
    severity: Severity
    min_history: int

    @classmethod
    def recorded(cls, analyzer: Analyzer[Any]) -> MetricPlan:
        """A metric measured and stored, never judged (a monitor's helper measure)."""
        return cls(analyzer, None, "none", "warning", 0)


def resolve_plan(
    analyzer: Analyzer[Any],
    levels: Sequence[JudgingLevel | None],
    defaults: JudgingLevel | None = None,
    *,
    severity: Severity | None = None,
) -> MetricPlan:
    """`analyzer`'s plan: each setting from the first of `levels` (most specific first) that
    sets it, else `severity` (a kind's own severity, e.g. ``warning`` for column health), else
    the config's `defaults`, else the built-in defaults (`DEFAULT_DETECTOR`,
    `DEFAULT_SEVERITY`, `MIN_HISTORY`).

    >>> from anomaly.analyzers import Size
    >>> plan = resolve_plan(Size(), [None])
    >>> plan.detector_label, plan.severity, plan.min_history
    ('Adaptive', 'error', 7)
    """
    found = [level for level in (*levels, defaults) if level is not None]
    spec = _first(*(level.detector for level in found)) or default_detector()
    specific = [level.severity for level in levels if level is not None]
    fallback = None if defaults is None else defaults.severity
    chosen: Severity = _first(*specific, severity, fallback) or DEFAULT_SEVERITY
    history = _first(*(level.min_history for level in found))
    return MetricPlan(
        analyzer=analyzer,
        detector=within_domain(spec.detector, analyzer),
        detector_label=spec.label,
        severity=chosen,
        min_history=MIN_HISTORY if history is None else history,
    )


def default_detector() -> DetectorSpec:
    """The detector of series that name none (a new one each call: detectors keep state)."""
    return DetectorSpec.model_validate(DEFAULT_DETECTOR)


def within_domain(detector: Any, analyzer: Analyzer[Any]) -> Any:
    """`detector` told the values `analyzer`'s metric can take (`metric_domain`), when it can
    use them (``with_domain``: bands of a share stay in [0, 1], of a count at least 0).

    >>> from anomaly.analyzers import Completeness
    >>> from detectors import Adaptive
    >>> within_domain(Adaptive(), Completeness("email")).domain
    (0.0, 1.0)
    """
    domain = analyzer_domain(analyzer)
    if domain is None or not hasattr(detector, "with_domain"):
        return detector
    return detector.with_domain(*domain)


def _first(*values: Any) -> Any:
    return next((v for v in values if v is not None), None)

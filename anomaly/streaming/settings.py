"""The keyword settings every windowed stream takes, written once: how its windows are judged
(`detector`, `severity`, `min_history`), grouped, tagged, alerted and budgeted."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import timedelta
from typing import TYPE_CHECKING, Any, TypedDict

from anomaly.config.alert_config import AlertSinkConfig
from anomaly.config.plans import MetricPlan
from anomaly.streaming.judging import DEFAULT, metric_plans
from anomaly.streaming.stream import Listener
from anomaly.streaming.windows import Duration

if TYPE_CHECKING:
    from anomaly.analyzers import Analyzer
    from detectors import AlertBudget


class StreamSettings(TypedDict, total=False):
    """The settings of `StreamingMetrics` and `StreamingAccuracy` after their own (see
    `StreamingMetrics` for each; an absent one takes its default there)."""

    group_by: Sequence[str]
    tags: Mapping[str, str] | None
    detector: Any
    severity: str | None
    min_history: int | None
    sinks: Mapping[str, AlertSinkConfig] | None
    history_window: timedelta | None
    alert_budget: AlertBudget | None
    listener: Listener | None
    max_future: Duration


def judged_plans(
    metrics: Sequence[Analyzer[Any] | MetricPlan], settings: StreamSettings
) -> tuple[list[MetricPlan], dict[str, Any]]:
    """The plans of `metrics` judged as `settings` say (`metric_plans`), and the rest of the
    settings, which the windowed stream itself takes.

    >>> from anomaly.analyzers import Size
    >>> plans, rest = judged_plans([Size()], {"severity": "warning", "tags": {"team": "a"}})
    >>> plans[0].severity, rest
    ('warning', {'tags': {'team': 'a'}})
    """
    rest: dict[str, Any] = dict(settings)
    detector = rest.pop("detector", DEFAULT)
    plans = metric_plans(
        metrics, detector, rest.pop("severity", None), rest.pop("min_history", None)
    )
    return plans, rest

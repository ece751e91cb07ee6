"""A computed metric: a value (or failure) of one analyzer for one group."""

from __future__ import annotations

import datetime
import math
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from repository.records import MetricRecord

GroupKey = tuple[Any, ...]
MetricValue = float | Mapping[str, float]


@dataclass(frozen=True)
class Metric:
    """The outcome of one analyzer on one group: a value or a failure message (errors as values).

    Multi-valued metrics (histograms, quantile sets, data types) hold a mapping and flatten into one
    record per key, each with its own metric id ``<analyzer id>[<key>]``.

    Examples
    --------
    >>> m = Metric("Column", "price", "Mean", "Mean(price)", value=2.5)
    >>> m.succeeded, [r.value for r in m.records()]
    (True, [2.5])
    >>> failed = Metric("Column", "x", "Mean", "Mean(x)", error="column x not found")
    >>> failed.succeeded, next(failed.records()).error
    (False, 'column x not found')
    """

    entity: str
    instance: str
    name: str
    metric_id: str
    value: MetricValue | None = None
    error: str | None = None
    group: Mapping[str, str | None] = field(default_factory=dict)

    @property
    def succeeded(self) -> bool:
        """Whether the metric has a value."""
        return self.error is None

    def records(self) -> Iterator[MetricRecord]:
        """Flatten into repository records (one per key for multi-valued metrics)."""
        group = dict(self.group)
        if self.error is not None or self.value is None:
            message = self.error or "no value"
            yield MetricRecord(
                self.entity, self.instance, self.name, self.metric_id, None, group, message
            )
        elif isinstance(self.value, Mapping):
            for key, value in self.value.items():
                yield MetricRecord(
                    self.entity,
                    self.instance,
                    f"{self.name}.{key}",
                    f"{self.metric_id}[{key}]",
                    float(value),
                    group,
                )
        else:
            yield MetricRecord(
                self.entity, self.instance, self.name, self.metric_id, float(self.value), group
            )

    def judged_records(self) -> Iterator[MetricRecord]:
        """The records a scan judges for anomalies: all of them, unless a metric stores some
        only as context."""
        return self.records()


def group_labels(columns: tuple[str, ...], key: GroupKey) -> dict[str, str | None]:
    """Group column -> value as text (None stays None), the form the repository stores."""
    return {c: (None if v is None else str(v)) for c, v in zip(columns, key, strict=True)}


def group_key(values: Sequence[Any]) -> GroupKey:
    """A group key that is equal for equal groups, whichever pass produced it.

    Every NaN becomes the one `math.nan` object (NaN != NaN, so each NaN would be its own group;
    tuples compare identical items as equal), and time-zone-aware datetimes (Arrow) become the
    naive local datetimes Spark's ``collect`` returns.
    """
    return tuple(_canonical(v) for v in values)


def _canonical(value: Any) -> Any:
    if isinstance(value, float) and math.isnan(value):
        return math.nan
    if isinstance(value, datetime.datetime) and value.tzinfo is not None:
        return value.astimezone().replace(tzinfo=None)
    return value

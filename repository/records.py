"""Metric records: one metric point of one run (the unit the repository stores); a loaded run."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field

from repository.keys import ResultKey

ENTITIES = ("Dataset", "Column", "Multicolumn")


@dataclass(frozen=True)
class MetricRecord:
    """One metric value (or failure) for one group of one run.

    Parameters
    ----------
    entity
        ``Dataset``, ``Column`` or ``Multicolumn`` (as Deequ names it).
    instance
        ``*`` for the dataset, the column name, or ``a,b`` for several columns.
    name
        The metric name, e.g. ``Completeness`` or ``Histogram.abs.DE``.
    metric_id
        The stable id of the analyzer that produced it, e.g. ``Mean(price) where: x > 0``.
    value
        The value; ``None`` when the computation failed.
    group
        The segment the value belongs to: group column -> value as text (``None`` for a null
        group value); empty for the whole dataset.
    error
        Why the computation failed; ``None`` on success.

    Examples
    --------
    >>> MetricRecord("Column", "price", "Mean", "Mean(price)", 2.5).succeeded
    True
    >>> MetricRecord("Column", "x", "Mean", "Mean(x)", None, error="column x missing").succeeded
    False
    """

    entity: str
    instance: str
    name: str
    metric_id: str
    value: float | None
    group: Mapping[str, str | None] = field(default_factory=dict)
    error: str | None = None

    def __post_init__(self) -> None:
        if self.entity not in ENTITIES:
            raise ValueError(f"entity must be one of {ENTITIES}, got {self.entity!r}")
        if self.value is None and self.error is None:
            raise ValueError(f"metric {self.metric_id!r} has neither a value nor an error")
        if self.value is not None and not isinstance(self.value, int | float):
            raise ValueError(
                f"metric {self.metric_id!r} value must be a number, got {type(self.value).__name__}"
            )

    @property
    def succeeded(self) -> bool:
        """Whether the metric has a value (NaN counts as a value: e.g. the mean of nothing)."""
        return self.error is None and self.value is not None


@dataclass(frozen=True)
class RunResult:
    """The metric records of one stored run, with the run's key (what ``load().get()`` returns).

    Examples
    --------
    >>> run = RunResult(ResultKey(0, {"dataset": "d"}),
    ...                 (MetricRecord("Dataset", "*", "Size", "Size(*)", 3.0),))
    >>> [m.value for m in run], run.key.dataset
    ([3.0], 'd')
    """

    key: ResultKey
    metrics: tuple[MetricRecord, ...]

    def __iter__(self) -> Iterator[MetricRecord]:
        return iter(self.metrics)

    def __len__(self) -> int:
        return len(self.metrics)

"""Series to replay, read from a metrics repository with their annotations."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

import numpy as np

from anomaly.backtest.series import LabeledSeries
from repository import Annotation, MetricsRepository
from repository.keys import HasMetricId, TimeLike
from repository.query import metric_ids


def repository_series(
    repo: MetricsRepository,
    metrics: str | HasMetricId | Iterable[str | HasMetricId],
    *,
    tags: Mapping[str, str] | None = None,
    groups: Sequence[Mapping[str, str | None]] | None = None,
    name: str | None = None,
    until: TimeLike | None = None,
    labels: Sequence[Annotation] | None = None,
    exclude_annotated: bool = True,
) -> list[LabeledSeries]:
    """Every series (one per metric and group, ``groups=None``: all stored groups) up to
    ``until``, labelled by the repository's annotations, or by ``labels`` when given.

    Points covered by an ``excluded`` annotation (in the repository, or in ``labels``) are
    flagged ``excluded`` unless ``exclude_annotated`` is False.

    Examples
    --------
    >>> from repository import MetricRecord, ResultKey
    >>> repo = MetricsRepository(":memory:")
    >>> for day in range(3):
    ...     repo.save(ResultKey(day * 86_400_000, {"dataset": "d"}),
    ...               [MetricRecord("Dataset", "*", "Size", "Size(*)", 10.0 + day)])
    >>> _ = repo.annotate("incident", 86_400_000, metric="Size(*)")
    >>> [s.incident.tolist() for s in repository_series(repo, "Size(*)")]
    [[False, True, False]]
    >>> repo.close()
    """
    found = []
    for metric_id in metric_ids(metrics):
        wanted = groups if groups is not None else repo.groups(metric_id, tags=tags)
        for group in wanted:
            frame = repo.annotated_history(
                metric_id, tags=tags, group=dict(group), name=name, before=until
            )
            frame = frame[frame["value"].notna()]
            incident = frame["incident"].to_numpy(dtype=bool)
            expected = frame["expected"].to_numpy(dtype=bool)
            excluded = frame["excluded"].to_numpy(dtype=bool)
            if labels is not None:
                given = LabeledSeries.build(metric_id, frame["value"], group=group, labels=labels)
                incident, expected = given.incident, given.expected
                excluded = excluded | given.excluded
            if not exclude_annotated:
                excluded = np.zeros(len(frame), dtype=bool)
            found.append(
                LabeledSeries.build(
                    metric_id,
                    frame["value"],
                    group=group,
                    incident=incident,
                    expected=expected,
                    excluded=excluded,
                )
            )
    return found

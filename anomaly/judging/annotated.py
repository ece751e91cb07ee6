"""Which repository annotations cover a stored point: what scans leave out of history, and what
``anomaly history`` / ``anomaly anomalies`` mark.

The scope rules are the repository's (``repository/annotations.py``): the annotation's time
range (inclusive), its metric and group or all, and its tags a subset of the run's tags.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime

from repository import ANNOTATION_KINDS, Annotation
from repository.keys import to_epoch_ms


def of_run(
    annotations: Sequence[Annotation], at: datetime, tags: Mapping[str, str]
) -> list[Annotation]:
    """The annotations that may cover points of the run at `at` with `tags` (time and tags
    match; metric and group are left to `kinds`), so that each point checks only those.

    >>> from datetime import UTC
    >>> day = datetime(2024, 5, 1, tzinfo=UTC)
    >>> found = [Annotation("excluded", day, tags={"env": "prod"}), Annotation("incident", 0)]
    >>> [a.kind for a in of_run(found, day, {"dataset": "d", "env": "prod"})]
    ['excluded']
    """
    moment = to_epoch_ms(at)
    return [
        a
        for a in annotations
        if a.tags.items() <= tags.items()
        and to_epoch_ms(a.start) <= moment <= to_epoch_ms(a.end or a.start)
    ]


def kinds(
    applying: Sequence[Annotation], metric_id: str, group: Mapping[str, str | None], at: datetime
) -> tuple[str, ...]:
    """The kinds of the annotations of `applying` (see `of_run`) covering the point of
    `metric_id` and `group` at `at`, each once, in ``ANNOTATION_KINDS`` order.

    >>> kinds([Annotation("excluded", 0), Annotation("incident", 0, metric_id="Size(*)")],
    ...       "Size(*)", {}, datetime(1970, 1, 1))
    ('incident', 'excluded')
    """
    found = {a.kind for a in applying if a.covers(metric_id, group, at)}
    return tuple(kind for kind in ANNOTATION_KINDS if kind in found)

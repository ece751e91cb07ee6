"""One metric series to replay, with what is known about its points: incidents, expected changes
and exclusions."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike, NDArray

from anomaly.judging.tables import group_label
from detectors.series import Points, clean_series
from repository import Annotation

Flags = NDArray[np.bool_]


@dataclass(frozen=True, eq=False)
class LabeledSeries:
    """A clean series (sorted, unique times, no missing values) and one flag per point.

    ``incident`` points should alert, ``expected`` ones are neither right nor wrong to alert on,
    and ``excluded`` points are judged but never serve as history for later points.

    Examples
    --------
    >>> s = LabeledSeries.build("Size(*)", [1.0, 2.0, None, 9.0], incident=[False, False, True])
    >>> s.values.tolist(), s.incident.tolist(), s.group_label
    ([1.0, 2.0, 9.0], [False, False, True], '(all)')
    """

    metric_id: str
    group: Mapping[str, str | None]
    times: pd.Index
    values: NDArray[np.float64]
    incident: Flags
    expected: Flags
    excluded: Flags
    info: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for name in ("incident", "expected", "excluded"):
            flags = getattr(self, name)
            if len(flags) != len(self.values):
                raise ValueError(
                    f"{name} needs one flag per point ({len(self.values)}), got {len(flags)}"
                )

    @classmethod
    def build(
        cls,
        metric_id: str,
        points: Points,
        *,
        group: Mapping[str, str | None] | None = None,
        labels: Sequence[Annotation] = (),
        incident: ArrayLike | None = None,
        expected: ArrayLike | None = None,
        excluded: ArrayLike | None = None,
        info: Mapping[str, Any] | None = None,
    ) -> LabeledSeries:
        """From points (a ``pandas.Series`` by time, pairs, or bare values) and either per-point
        flags (for the points after cleaning) or annotations matched by metric, group and time
        (their tags are not checked: there are no runs here)."""
        series = clean_series(points)
        group = dict(group or {})
        flags: dict[str, Flags] = {}
        given = {"incident": incident, "expected": expected, "excluded": excluded}
        for kind, explicit in given.items():
            if explicit is not None:
                flags[kind] = np.asarray(explicit, dtype=bool)
            else:
                flags[kind] = np.array(
                    [
                        any(a.kind == kind and a.covers(metric_id, group, _ms(t)) for a in labels)
                        for t in series.index
                    ],
                    dtype=bool,
                )
        return cls(
            metric_id,
            group,
            series.index,
            series.to_numpy(dtype=np.float64),
            flags["incident"],
            flags["expected"],
            flags["excluded"],
            dict(info or {}),
        )

    @property
    def group_label(self) -> str:
        """``country=DE`` (``(all)`` for the whole dataset)."""
        return group_label(self.group)

    def __len__(self) -> int:
        return len(self.values)


def _ms(moment: Any) -> int:
    """Epoch milliseconds of a time (positions of bare values count as milliseconds)."""
    if isinstance(moment, int | np.integer):
        return int(moment)
    stamp = pd.Timestamp(moment)
    stamp = stamp.tz_localize("UTC") if stamp.tzinfo is None else stamp.tz_convert("UTC")
    return int(stamp.value // 1_000_000)

"""Anomaly verdicts: what a detector concluded about a metric point, stored with the run.

Re-saving a run's verdicts replaces that run's earlier verdicts of the same (metric id, detector)
pairs, all groups included. SQL view: ``anomaly_results``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from operator import attrgetter
from typing import TYPE_CHECKING

import pyarrow as pa

from repository.backends.base import Backend, Cursor
from repository.dimensions import UTC_MS, GroupKeys, replace_run_rows
from repository.filters import Where
from repository.frames import utc
from repository.keys import ResultKey, TimeLike, check_fields, check_tags, to_epoch_ms
from repository.run_rows import read_run_rows, stage_rows

if TYPE_CHECKING:  # pandas loads where a frame is built: read-only commands never need it
    import pandas as pd

VERDICT_STATUSES = ("normal", "anomaly", "held_back", "insufficient_history", "error")
"""Conventional statuses (``held_back``: an anomaly an alert budget did not alert on); any
non-empty text is stored."""
VERDICT_COLUMNS = (
    "timestamp",
    "metric_id",
    "value",
    "lower",
    "upper",
    "detector",
    "score",
    "detail",
    "status",
    "history_length",
    "run_timestamp",
    "group_key",
    "p_value",
)
"""The fixed columns of ``load_verdicts()``; group then tag columns follow (``group_key`` as in
``query.POINT_COLUMNS``)."""


@dataclass(frozen=True)
class AnomalyVerdict:
    """A detector's verdict on one point of one series.

    ``timestamp`` is the tested point's time (``None``: the run's); ``score`` the detector's
    confidence or anomaly score; ``history_length`` the number of points it had as history;
    ``p_value`` the calibrated detectors' probability of a value this far out on a normal day.
    It is the app's one type of a judged point (scans, streams, monitors, checks).

    Examples
    --------
    >>> v = AnomalyVerdict("Size(*)", "anomaly", "OnlineNormal", value=9.0, lower=1.0, upper=5.0)
    >>> v.status, v.group
    ('anomaly', {})
    """

    metric_id: str
    status: str
    detector: str
    value: float | None = None
    lower: float | None = None
    upper: float | None = None
    score: float | None = None
    detail: str | None = None
    history_length: int | None = None
    group: Mapping[str, str | None] = field(default_factory=dict)
    timestamp: TimeLike | None = None
    p_value: float | None = None
    severity: str | None = None
    """How much the verdict's metric matters to whoever judged it (``warning``, ``error``):
    set by the app while it reports and alerts; not stored."""

    @property
    def verdict(self) -> AnomalyVerdict:
        """Itself: a scan's finding used to wrap a verdict with its severity (deprecated)."""
        return self

    def __post_init__(self) -> None:
        check_fields(
            self,
            ("metric_id", "status", "detector"),
            ("value", "lower", "upper", "score", "p_value"),
        )


def stage_verdicts(
    key: ResultKey, verdicts: Iterable[AnomalyVerdict], groups: GroupKeys
) -> pa.Table:
    """Verdicts as Arrow columns (group keys registered in ``groups``)."""

    def millis(v: AnomalyVerdict) -> int:
        return key.epoch_ms if v.timestamp is None else to_epoch_ms(v.timestamp)

    return stage_rows(
        verdicts,
        AnomalyVerdict,
        "verdicts",
        [
            ("metric_id", pa.string(), attrgetter("metric_id")),
            ("group_key", pa.string(), lambda v: groups.key(v.group)),
            ("ts", UTC_MS, millis),
            ("value", pa.float64(), attrgetter("value")),
            ("lower", pa.float64(), attrgetter("lower")),
            ("upper", pa.float64(), attrgetter("upper")),
            ("detector", pa.string(), attrgetter("detector")),
            ("score", pa.float64(), attrgetter("score")),
            ("detail", pa.string(), attrgetter("detail")),
            ("status", pa.string(), attrgetter("status")),
            ("history_length", pa.int32(), attrgetter("history_length")),
            ("p_value", pa.float64(), attrgetter("p_value")),
        ],
    )


def write_verdicts(cur: Cursor, key: ResultKey, staged: pa.Table, groups: GroupKeys) -> None:
    """Insert staged verdicts for ``key``'s run, replacing its earlier ones of those metric ids
    and detectors."""
    replace_run_rows(
        cur,
        key,
        groups,
        {"staged_verdicts": staged},
        "DELETE FROM anomaly_verdicts WHERE run_id = ? AND (metric_id, detector) IN "
        "(SELECT DISTINCT metric_id, detector FROM staged_verdicts)",
        "INSERT INTO anomaly_verdicts SELECT ?, v.metric_id, k.group_id, v.ts, v.value, "
        "v.lower, v.upper, v.detector, v.score, v.detail, v.status, v.history_length, "
        "v.p_value FROM staged_verdicts v JOIN group_keys k USING (group_key)",
    )


def load_verdicts(
    connector: Backend,
    *,
    metrics: Sequence[str] | None = None,
    tags: Mapping[str, str] | None = None,
    group: Mapping[str, str | None] | None = None,
    statuses: Sequence[str] | None = None,
    after: TimeLike | None = None,
    before: TimeLike | None = None,
) -> pd.DataFrame:
    """Stored verdicts, oldest first: ``VERDICT_COLUMNS``, group columns, tag columns.

    ``after``/``before`` bound the verdict's (point) timestamp, inclusively.
    """
    checked = None if tags is None else check_tags(tags)
    where = (
        Where(connector.dialect)
        .tags("r.run_id", checked)
        .within("v.metric_id", metrics)
        .group_subset("v.group_id", group)
        .within("v.status", statuses)
        .time_range("v.ts", after, before)
    )
    frame = read_run_rows(
        connector,
        "anomaly_verdicts v",
        f"""{connector.dialect.epoch_ms("v.ts")} AS ts_ms, v.run_id, v.group_id, v.metric_id,
               v.value, v.lower, v.upper, v.detector, v.score, v.detail, v.status, v.history_length,
               r.ts AS run_timestamp, k.group_key, v.p_value""",
        where,
        "v.ts, r.run_id, v.metric_id, v.detector, k.group_key",
        VERDICT_COLUMNS,
        group_columns=group or (),
        tag_columns=checked or (),
    )
    frame["run_timestamp"] = utc(frame["run_timestamp"])
    return frame

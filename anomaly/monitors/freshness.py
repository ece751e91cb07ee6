"""Freshness: how late the newest data of a source is, in seconds.

With a time column a run measures one partition ``[start, end)``: the lag is ``end`` minus the
newest event time seen up to ``end`` (this partition's, or when it has no rows the newest of
the runs before it: a source that stopped shows a growing lag with nothing to profile). Without
one the lag is the run's time minus the newest modification time of the source's files.
"""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote, urlparse

from repository import MetricRecord
from repository.keys import canonical_key, group_of

if TYPE_CHECKING:
    from pyspark.sql import DataFrame

    from repository import MetricsRepository

LOG = logging.getLogger("anomaly.monitors")
NAME = "Freshness"
MODIFIED = "*"
"""The instance of the freshness of a source without time column (its files' change time)."""


def metric_id(column: str | None) -> str:
    """``Freshness(event_time)``, or ``Freshness(*)`` from modification times."""
    return f"{NAME}({column or MODIFIED})"


def record(column: str | None, lag: float, group: Mapping[str, str | None]) -> MetricRecord:
    """A freshness point: `lag` seconds."""
    return MetricRecord("Dataset", column or MODIFIED, NAME, metric_id(column), lag, dict(group))


def modified(df: DataFrame) -> datetime | None:
    """The newest modification time of the files `df` reads (None when it reads no files, or
    their file system cannot say: a SQL source, Spark Connect on remote storage)."""
    try:
        files = df.inputFiles()
    except Exception:  # not file-based (a query, a view over one)
        return None
    newest: float | None = None
    for uri in files:
        seconds = _mtime(df, uri)
        if seconds is not None and (newest is None or seconds > newest):
            newest = seconds
    return None if newest is None else datetime.fromtimestamp(newest).astimezone()


def _mtime(df: DataFrame, uri: str) -> float | None:
    parsed = urlparse(uri)
    if parsed.scheme in ("", "file"):
        try:
            return os.stat(unquote(parsed.path)).st_mtime
        except OSError:
            return None
    try:  # any Hadoop file system Spark reads (hdfs, s3a, abfs...)
        session: Any = df.sparkSession
        conf = session._jsc.hadoopConfiguration()
        path = session._jvm.org.apache.hadoop.fs.Path(uri)
        return float(path.getFileSystem(conf).getFileStatus(path).getModificationTime()) / 1e3
    except Exception:  # Spark Connect (no JVM here) or a file gone since the listing
        LOG.debug("no modification time for %s", uri, exc_info=True)
        return None


@dataclass
class NewestEvents:
    """The newest event time of each group up to the latest run it has seen, run after run.

    >>> newest = NewestEvents("day", {})
    >>> [r.value for r in newest.advance([latest("day", 1000.0)], end=3600.0)]
    [2600.0]
    >>> [r.value for r in newest.advance([], end=7200.0)]  # no rows: the lag grows
    [6200.0]
    >>> newest.advance([], end=10800.0)  # only once: a group gone for two runs is not judged
    []
    """

    column: str
    newest: dict[str, float]
    active: set[str] = field(default_factory=set)

    def advance(self, records: Iterable[MetricRecord], end: float) -> list[MetricRecord]:
        """Freshness records of the run ending at `end` (epoch seconds) from its records."""
        source = latest_id(self.column)
        seen = {}
        for r in records:
            if r.metric_id == source and r.value is not None:
                seen[canonical_key(r.group)] = float(r.value)
        for group, value in seen.items():
            self.newest[group] = max(value, self.newest.get(group, value))
        judged = set(seen) | self.active
        self.active = set(seen)
        return [
            record(self.column, end - self.newest[g], group_of(g))
            for g in sorted(judged)
            if g in self.newest
        ]

    @classmethod
    def stored(
        cls, repository: MetricsRepository, tags: Mapping[str, str], column: str, before: datetime
    ) -> NewestEvents:
        """Seeded with the newest event time per group stored in runs before `before`; the
        groups of the last such run are the active ones."""
        frame = repository.latest(
            latest_id(column), tags=tags, before=before - timedelta(milliseconds=1)
        )
        newest = {
            canonical_key(dict(json.loads(k))): float(v)
            for k, v in zip(frame["group_key"], frame["value"], strict=True)
        }
        last = frame["timestamp"].max() if len(frame) else None
        active = {
            canonical_key(dict(json.loads(k)))
            for k, t in zip(frame["group_key"], frame["timestamp"], strict=True)
            if t == last
        }
        return cls(column, newest, active)


def latest_id(column: str) -> str:
    """The record holding a run's newest event time: the time column's health."""
    return f"ColumnHealth({column})[latest]"


def latest(column: str, value: float, **group: str | None) -> MetricRecord:
    """A ``ColumnHealth(column)[latest]`` record (for examples and tests)."""
    return MetricRecord("Column", column, "ColumnHealth.latest", latest_id(column), value, group)

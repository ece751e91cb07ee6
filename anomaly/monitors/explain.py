"""Findings in words: which column, what changed, since when, and the history it was judged on."""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING

from anomaly.config.durations import format_duration
from anomaly.judging.report import ScanReport
from anomaly.judging.tables import group_label, number
from anomaly.monitors.schema_diff import SCHEMA_DETECTOR, around, describe, diff
from repository import AnomalyVerdict

if TYPE_CHECKING:
    from repository import MetricsRepository

HEALTH = re.compile(r"^ColumnHealth\((?P<column>.*)\)\[(?P<key>[^\]]*)\]$")
TIMELINESS = re.compile(r"^Timeliness\((?P<event>[^,]*), (?P<arrival>[^,)]*).*\)\[(?P<key>.*)\]$")
SHARES = ("completeness", "distinct_ratio", "top_share", "true_share")
SECONDS = ("mean", "max", "p50", "p95")


def explain(
    finding: AnomalyVerdict, report: ScanReport, repo: MetricsRepository, tags: Mapping[str, str]
) -> list[str]:
    """Lines explaining one finding of `report` (the first names the run, group and metric).

    Examples
    --------
    >>> what("ColumnHealth(email)[completeness]", 0.62)
    ('completeness of column email', '62.0%')
    >>> what("Freshness(event_time)", 172800.0)
    ('lag of the newest event_time', '2d')
    """
    verdict = finding
    group = "" if not verdict.group else f" [{group_label(verdict.group)}]"
    head = f"{report.when}{group} {(finding.severity or 'warning').upper()} {verdict.metric_id}"
    if verdict.detector == SCHEMA_DETECTOR:
        return [
            f"{head}: {(verdict.detail or '').split('. Previous schema')[0]}",
            *_schemas(repo, tags, report.time),
        ]
    if verdict.status != "anomaly":
        return [f"{head}: could not be computed: {verdict.detail}"]
    subject, value = what(verdict.metric_id, verdict.value)
    low, high = (what(verdict.metric_id, b)[1] for b in (verdict.lower, verdict.upper))
    expected = _band(verdict.lower, verdict.upper, low, high)
    history = repo.history(
        verdict.metric_id,
        tags=tags,
        group=dict(verdict.group),
        before=report.time - timedelta(milliseconds=1),
    )
    span = (
        f"{len(history)} earlier runs, {history.index[0]:%Y-%m-%d} .. {history.index[-1]:%Y-%m-%d}"
        if len(history)
        else "no earlier runs"
    )
    since = _since(verdict.metric_id, verdict.group, repo, tags, report.time)
    return [
        f"{head}: {subject} is {value}, expected {expected}",
        f"    judged by {verdict.detector} on {span}; {since}",
    ]


def what(metric_id: str, value: float | None) -> tuple[str, str]:
    """What a monitor metric measures, in words, and `value` in its unit."""
    if value is None or math.isnan(value):
        return metric_id, "-"
    if metric_id.startswith("Freshness("):
        subject = metric_id[len("Freshness(") : -1]
        thing = "the files' last change" if subject == "*" else f"the newest {subject}"
        return f"lag of {thing}", _duration(value)
    if metric_id == "Size(*)":
        return "row count", number(value)
    if match := TIMELINESS.match(metric_id):
        key = match["key"]
        subject = f"{key} latency from {match['event']} to {match['arrival']}"
        return subject, _duration(value) if key in SECONDS else _percent(value)
    if match := HEALTH.match(metric_id):
        key, column = match["key"], match["column"]
        if key.startswith("share:"):
            return f"share of {key[6:]!r} in column {column}", _percent(value)
        text = _percent(value) if key in SHARES or key.endswith("_share") else number(value)
        if key in ("earliest", "latest") and math.isfinite(value):
            text = f"{datetime.fromtimestamp(value, UTC):%Y-%m-%d %H:%M:%S} UTC"
        return f"{key.replace('_', ' ')} of column {column}", text
    return metric_id, number(value)


def _band(lower: float | None, upper: float | None, low: str, high: str) -> str:
    finite = [b is not None and math.isfinite(b) for b in (lower, upper)]
    if all(finite):
        return f"{low} .. {high}"
    if finite[1]:
        return f"at most {high}"
    return f"at least {low}" if finite[0] else "(no band)"


def _since(
    metric_id: str,
    group: Mapping[str, str | None],
    repo: MetricsRepository,
    tags: Mapping[str, str],
    when: datetime,
) -> str:
    """Since when the series is anomalous (the first run of the current streak)."""
    verdicts = repo.load_verdicts(metrics=[metric_id], tags=dict(tags), before=when)
    if group:
        keys = verdicts["group_key"].map(lambda k: k == _key(group))
        verdicts = verdicts[keys]
    statuses = verdicts.sort_values("timestamp")[["timestamp", "status"]].values.tolist()
    first, streak = when, 0
    for at, status in reversed(statuses):
        if status != "anomaly":
            break
        first, streak = at, streak + 1
    if streak <= 1:
        return "normal on the run before" if len(statuses) > 1 else "first judged run"
    return f"anomalous since {first:%Y-%m-%d} ({streak} runs in a row)"


def _key(group: Mapping[str, str | None]) -> str:
    from repository.keys import canonical_key

    return canonical_key(dict(group))


def _schemas(repo: MetricsRepository, tags: Mapping[str, str], when: datetime) -> list[str]:
    stored = repo.schemas(tags=dict(tags), before=when, last=2)
    if len(stored) < 2:
        return []
    old, new = stored
    changes = diff(old.schema, new.schema)
    paths = {c.path for c in changes} | {c.after or "" for c in changes if c.kind == "renamed"}
    shown = around(old.schema, paths) | around(new.schema, paths)
    if not shown:  # a reordering: the whole table
        return [
            f"    before ({old.timestamp:%Y-%m-%d}): {describe(old.schema)}",
            f"    after  ({new.timestamp:%Y-%m-%d}): {describe(new.schema)}",
        ]
    return [
        f"    before ({old.timestamp:%Y-%m-%d}): {describe(old.schema, shown)}",
        f"    after  ({new.timestamp:%Y-%m-%d}): {describe(new.schema, shown)}",
    ]


def _duration(seconds: float) -> str:
    if not math.isfinite(seconds):
        return number(seconds)
    if abs(seconds) >= 3600:
        rounded = round(seconds / 60) * 60.0  # minutes are precise enough for hours of lag
    else:
        rounded = round(seconds, 1 if abs(seconds) < 60 else None)
    sign = "-" if rounded < 0 else ""
    return sign + format_duration(timedelta(seconds=abs(rounded))) if rounded else "0s"


def _percent(value: float) -> str:
    return f"{100 * value:.1f}%"

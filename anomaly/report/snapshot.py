"""Everything the report shows, read from a repository into one JSON-ready snapshot.

The static file embeds it; the live UI builds it per request (cached while the repository file
is unchanged) and serves it at ``/api/snapshot``. Layout: ``docs/report.md``.
"""

from __future__ import annotations

import json
import time
from collections.abc import Mapping
from typing import Any

import pyarrow as pa

from anomaly.judging.fields import PROBLEMS
from anomaly.judging.tables import group_label
from anomaly.report import deliveries_section  # noqa: F401  (registers its section)
from anomaly.report.encoding import number, plain
from anomaly.report.overview import dataset_rows, scan_rows
from anomaly.report.reading import (
    KNOWN_VERDICT_COLUMNS,
    RepositoryContents,
    read_contents,
    records_of,
)
from anomaly.report.sections import collect_sections
from anomaly.report.series_payload import build_series
from repository import Annotation, MetricsRepository
from repository.keys import canonical_key, to_epoch_ms

SNAPSHOT_VERSION = 1
DEFAULT_TITLE = "Data quality report"
_VERDICT_HELPERS = {"ts", "run_ts", "scan", "sid"}


def collect_snapshot(
    repo: MetricsRepository,
    *,
    tags: Mapping[str, str] | None = None,
    title: str | None = None,
) -> dict[str, Any]:
    """The report's data for the runs whose tags include `tags` (all runs by default).

    Examples
    --------
    >>> from repository import AnomalyVerdict, MetricRecord, ResultKey
    >>> repo = MetricsRepository(":memory:")
    >>> for day, value in enumerate([10.0, 11.0, 30.0]):
    ...     status = "anomaly" if value > 20 else "normal"
    ...     repo.save(ResultKey(86_400_000 * day, {"dataset": "orders", "scan": "daily"}),
    ...               [MetricRecord("Dataset", "*", "Size", "Size(*)", value)],
    ...               verdicts=[AnomalyVerdict("Size(*)", status, "OnlineNormal", value, 8, 12)])
    >>> snapshot = collect_snapshot(repo)
    >>> [(d["dataset"], d["series"], d["open"]) for d in snapshot["datasets"]]
    [('orders', 1, 1)]
    >>> [(a["metric"], a["value"], a["open"]) for a in snapshot["anomalies"]]
    [('Size(*)', 30.0, True)]
    """
    contents = read_contents(repo, tags)
    payload = build_series(contents.points, contents.verdicts, contents.annotations)
    anomalies = anomaly_rows(contents, payload.verdict_series)
    open_by_series: dict[int, int] = {}
    for row in anomalies:
        if row["open"] and row["sid"] is not None:
            open_by_series[row["sid"]] = open_by_series.get(row["sid"], 0) + 1
    scans, scan_columns = scan_rows(contents)
    sections, problems = collect_sections(repo)
    return {
        "version": SNAPSHOT_VERSION,
        "title": title or DEFAULT_TITLE,
        "repository": repo.path,
        "filters": dict(tags or {}),
        "generated": int(time.time() * 1000),
        "timelines": payload.timelines,
        "series": payload.series,
        "datasets": dataset_rows(contents, payload.series, open_by_series),
        "scans": scans,
        "scanColumns": scan_columns,
        "anomalies": anomalies,
        "verdictColumns": _extra_verdict_columns(contents.verdicts),
        "outcomes": outcome_rows(contents, payload.series),
        "outcomeTotal": contents.outcome_total,
        "annotations": [annotation_row(a) for a in contents.annotations],
        "sections": sections,
        "problems": problems,
    }


def anomaly_rows(contents: RepositoryContents, series_ids: list[int]) -> list[dict[str, Any]]:
    """Verdicts that are anomalies or failed metrics, oldest first; ``open`` when the verdict
    is the newest of its series (the series has not been judged normal since)."""
    verdicts = records_of(contents.verdicts)
    if not verdicts:
        return []
    newest: dict[tuple[Any, ...], Any] = {}
    for row, sid in zip(verdicts, series_ids, strict=True):
        row["sid"] = sid
        key = (row["dataset"], row["scan"], row["metric_id"], row["group_key"])
        newest[key] = row["ts"] if key not in newest else max(newest[key], row["ts"])
    extra = _extra_verdict_columns(contents.verdicts)
    problems = [row for row in verdicts if row["status"] in PROBLEMS]
    is_open = [
        row["ts"] == newest[(row["dataset"], row["scan"], row["metric_id"], row["group_key"])]
        for row in problems
    ]
    rows = []
    for i, row in enumerate(problems):
        group = _group(row["group_key"])
        rows.append(
            {
                "sid": None if row["sid"] < 0 else int(row["sid"]),
                "ts": int(row["ts"]),
                "run": int(row["run_ts"]),
                "dataset": row["dataset"],
                "scan": row["scan"],
                "metric": row["metric_id"],
                "group": group_label(group),
                "value": number(row["value"]),
                "lower": number(row["lower"]),
                "upper": number(row["upper"]),
                "detector": row["detector"],
                "score": number(row["score"]),
                "detail": plain(row["detail"]),
                "status": row["status"],
                "history": plain(row["history_length"]),
                "open": bool(is_open[i]),
                "extra": {c: plain(row[c]) for c in extra},
            }
        )
    return rows


def outcome_rows(
    contents: RepositoryContents, series: list[dict[str, Any]]
) -> list[dict[str, Any]]:
    """The newest check outcomes, each linked to the chart of its metric and group if any."""
    chart = {
        (s["dataset"], s["scan"], s["metric"], canonical_key(s["group"])): s["id"]
        for s in reversed(series)
    }
    rows = []
    for row in records_of(contents.outcomes):
        key = (row["dataset"], row["scan"], row["metric_id"], row["group_key"])
        rows.append(
            {
                "sid": chart.get(key),
                "ts": int(row["ts"]),
                "dataset": row["dataset"],
                "scan": row["scan"],
                "check": row["check_name"],
                "constraint": row["constraint_name"],
                "level": plain(row["level"]),
                "status": row["status"],
                "message": plain(row["message"]),
                "metric": plain(row["metric_id"]),
                "value": number(row["value"]),
                "lower": number(row["lower"]),
                "upper": number(row["upper"]),
                "group": group_label(_group(row["group_key"])),
            }
        )
    return rows


def annotation_row(annotation: Annotation) -> dict[str, Any]:
    """An annotation, JSON-ready (``metric``/``group`` None: every metric/group)."""
    start, end = annotation.start, annotation.end or annotation.start
    return {
        "id": annotation.annotation_id,
        "kind": annotation.kind,
        "start": to_epoch_ms(start),
        "end": to_epoch_ms(end),
        "metric": annotation.metric_id,
        "group": None if annotation.group is None else group_label(annotation.group),
        "tags": dict(annotation.tags),
        "note": annotation.note,
    }


def _extra_verdict_columns(verdicts: pa.Table) -> list[str]:
    known = set(KNOWN_VERDICT_COLUMNS) | _VERDICT_HELPERS
    return [str(c) for c in verdicts.column_names if c not in known]


def _group(key: Any) -> dict[str, str | None]:
    return dict(json.loads(key)) if isinstance(key, str) else {}

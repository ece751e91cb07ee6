"""The CLI's query commands: ``history``, ``anomalies`` and ``plot`` (no Spark needed)."""

from __future__ import annotations

import argparse
import csv
import io
import json
import math
import re
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from anomaly.config.parameters import pairs
from anomaly.config.periods import parse_time
from anomaly.config.repository_option import open_repository
from anomaly.judging.fields import PROBLEMS, VERDICT_FIELDS, iso_time, renamed
from anomaly.judging.queries import Point, metric_points, verdict_rows
from anomaly.judging.tables import band, group_label, number, text_table
from repository.keys import group_of

WIDE_GROUPS = 8
"""Up to this many groups, ``history`` prints one column per group."""


def history_command(args: argparse.Namespace) -> int:
    """Print a metric's series per group as a table, CSV or JSON."""
    repo, tags = open_repository(args)
    group = dict(pairs(args.group, "--group")) or None
    since, until = _bounds(args)
    points = metric_points(repo, args.metric, tags, group, since, until)
    labels = [group_label(group_of(p.group)) for p in points]
    # Annotations get a column only when a shown point has one (outputs stay as they were).
    marked = any(p.annotations for p in points)
    extra = ["annotations"] if marked else []
    if args.format == "table":
        if not points:
            print(f"no points of {args.metric} in this range")
        elif len(set(labels)) <= WIDE_GROUPS:
            columns = sorted(set(labels))
            cells = {(p.timestamp, label): p.value for p, label in zip(points, labels, strict=True)}
            notes = _notes(points, labels, several=len(columns) > 1)
            rows = [
                [_time(t), *(number(cells.get((t, c))) for c in columns)]
                + [notes.get(t, "") for _ in extra]
                for t in sorted({p.timestamp for p in points})
            ]
            print(text_table(["timestamp", *columns, *extra], rows))
        else:
            rows = [
                [_time(p.timestamp), label, number(p.value), *(p.annotations for _ in extra)]
                for p, label in zip(points, labels, strict=True)
            ]
            print(text_table(["timestamp", "group", "value", *extra], rows))
        return 0
    records = []
    for p in points:
        # The HTTP API's names (`POINT_FIELDS`): a group object in JSON, its columns in CSV.
        values = group_of(p.group)
        record = {"time": iso_time(p.timestamp), "metric": args.metric}
        record.update({"group": values} if args.format == "json" else values)
        record["value"] = p.value
        if marked:
            record["annotations"] = _marks(p.annotations, args.format)
        records.append(record)
    _emit(records, args.format)
    return 0


def _notes(points: Sequence[Point], labels: Sequence[str], several: bool) -> dict[datetime, str]:
    """Per timestamp, the annotated points: their kinds, with the group unless every group
    shown then has the same ones."""
    marked: dict[datetime, list[tuple[str, str]]] = {}
    for point, label in zip(points, labels, strict=True):
        if point.annotations:
            marked.setdefault(point.timestamp, []).append((label, point.annotations))
    groups = len(set(labels))
    notes = {}
    for when, found in marked.items():
        same = len(found) == groups and len({kinds for _, kinds in found}) == 1
        if same or not several:
            notes[when] = found[0][1]
        else:
            notes[when] = "; ".join(f"{label}: {kinds}" for label, kinds in found)
    return notes


def _marks(text: str, kind: str) -> Any:
    """Annotation kinds for machine output: a list in JSON, the text in CSV."""
    return (text.split(", ") if text else []) if kind == "json" else text


def anomalies_command(args: argparse.Namespace) -> int:
    """Print recent verdicts (anomalies and failed metrics unless ``--status``)."""
    repo, tags = open_repository(args)
    group = dict(pairs(args.group, "--group")) or None
    statuses = args.status or list(PROBLEMS)
    if "all" in statuses:
        statuses = None
    since, until = _bounds(args)
    found = verdict_rows(repo, args.metric, tags, group, statuses, since, until)[: args.limit]
    marked = any(row["annotations"] for row in found)  # a column only when a verdict has one
    if args.format != "table":
        _emit([_verdict_record(row, args.format, marked) for row in found], args.format)
        return 0
    if not found:
        print("no verdicts match (anomalies and failed metrics are shown unless --status)")
        return 0
    rows = [
        [
            _time(row["timestamp"]),
            row["scan"] or "-",
            group_label(group_of(row["group"])),
            row["metric_id"],
            row["status"],
            number(row["value"]),
            band(row["lower"], row["upper"]),
            number(row["history_length"]),
            row["detector"],
            *([row["annotations"]] if marked else []),
        ]
        for row in found
    ]
    headers = [
        "time",
        "scan",
        "group",
        "metric",
        "status",
        "value",
        "expected",
        "history",
        "detector",
        *(["annotations"] if marked else []),
    ]
    print(text_table(headers, rows))
    return 0


def _verdict_record(row: dict[Any, Any], kind: str, marked: bool) -> dict[str, Any]:
    """A verdict in the JSON vocabulary of the HTTP API (`VERDICT_FIELDS`); in CSV the group
    is one column per group column."""
    named = renamed(row)
    named["time"] = iso_time(row["timestamp"])
    named["run_time"] = iso_time(row["run_time"])
    record = {field: named[field] for field in VERDICT_FIELDS}
    record["group"] = group_of(row["group"])
    if marked:
        record["annotations"] = _marks(row["annotations"], kind)
    if kind == "csv":
        values = record.pop("group")
        record.update(values)
    return record


def plot_command(args: argparse.Namespace) -> int:
    """Write a PNG of a metric's series, band and anomalies."""
    from anomaly.plots import plot_metric

    repo, tags = open_repository(args)
    group = dict(pairs(args.group, "--group")) or None
    output = args.output or f"{slug(args.metric)}.png"
    path = plot_metric(repo, args.metric, output, tags=tags, group=group, title=args.title)
    print(f"wrote {path}")
    return 0


def slug(text: str) -> str:
    """A file name from a metric id.

    >>> slug("Mean(price) where: country = 'DE'")
    'mean_price_where_country_de'
    """
    return re.sub(r"[^a-z0-9]+", "_", text.lower()).strip("_") or "metric"


def _bounds(args: argparse.Namespace) -> tuple[Any, Any]:
    since = parse_time(args.since) if args.since else None
    until = parse_time(args.until) if args.until else None
    return since, until


def _time(value: datetime) -> str:
    if value.hour == value.minute == value.second == 0:
        return value.strftime("%Y-%m-%d")
    return value.strftime("%Y-%m-%d %H:%M:%S")


def _emit(records: list[dict[str, Any]], kind: str) -> None:
    clean = [{k: _plain(v) for k, v in r.items()} for r in records]
    if kind == "json":
        print(json.dumps(clean, indent=2, default=str))
    else:
        print(csv_text(clean), end="")


def _plain(value: Any) -> Any:
    """JSON-safe: NaN and infinities become null."""
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    return value


def csv_text(records: Sequence[dict[str, Any]]) -> str:
    """`records` as CSV, one column per key in the order first seen, as pandas wrote them
    (``DataFrame.to_csv``, which the commands used before): a null is an empty field, and a
    column of whole numbers with a null in it is written as floats.

    >>> print(csv_text([{"a": 1, "b": "x,y"}, {"a": None, "c": 0.5}]), end="")
    a,b,c
    1.0,"x,y",
    ,,0.5
    """
    columns = list(dict.fromkeys(key for record in records for key in record))
    floats = {c for c in columns if _float_column([r.get(c) for r in records])}
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(columns)
    for record in records:
        row = [record.get(c) for c in columns]
        writer.writerow(
            "" if v is None else float(v) if c in floats else v
            for c, v in zip(columns, row, strict=True)
        )
    return out.getvalue()


def _float_column(values: list[Any]) -> bool:
    """Numbers (not booleans) with a float or a null among them: pandas' float64."""
    present = [v for v in values if v is not None]
    numbers = all(isinstance(v, int | float) and not isinstance(v, bool) for v in present)
    if not present or not numbers:
        return False
    return len(present) < len(values) or any(isinstance(v, float) for v in present)

"""The CLI's query commands: ``history``, ``anomalies`` and ``plot`` (no Spark needed)."""

from __future__ import annotations

import argparse
import json
import math
import re
from typing import Any

import numpy as np
import pandas as pd

from anomaly.config.loading import open_repository
from anomaly.config.parameters import pairs
from anomaly.config.periods import parse_time
from anomaly.judging.fields import VERDICT_FIELDS, iso_time, renamed
from anomaly.judging.history import group_of
from anomaly.judging.queries import metric_points, verdict_rows
from anomaly.judging.report import PROBLEMS
from anomaly.judging.tables import band, group_label, number, text_table

WIDE_GROUPS = 8
"""Up to this many groups, ``history`` prints one column per group."""


def history_command(args: argparse.Namespace) -> int:
    """Print a metric's series per group as a table, CSV or JSON."""
    repo, tags = open_repository(args)
    group = dict(pairs(args.group, "--group")) or None
    since, until = _bounds(args)
    frame = metric_points(repo, args.metric, tags, group, since, until)
    labels = frame["group"].map(lambda g: group_label(group_of(g)))
    # Annotations get a column only when a shown point has one (outputs stay as they were).
    marked = bool((frame["annotations"] != "").any())
    extra = ["annotations"] if marked else []
    if args.format == "table":
        if frame.empty:
            print(f"no points of {args.metric} in this range")
        elif labels.nunique() <= WIDE_GROUPS:
            wide = frame.assign(group=labels).pivot(index="timestamp", columns="group")["value"]
            notes = _notes(frame, labels, several=len(wide.columns) > 1)
            rows = [
                [_time(t), *(number(v) for v in row), *(notes.get(t, "") for _ in extra)]
                for t, row in wide.iterrows()
            ]
            print(text_table(["timestamp", *wide.columns, *extra], rows))
        else:
            points = zip(
                frame["timestamp"], labels, frame["value"], frame["annotations"], strict=True
            )
            rows = [[_time(t), g, number(v), *(a for _ in extra)] for t, g, v, a in points]
            print(text_table(["timestamp", "group", "value", *extra], rows))
        return 0
    records = []
    for g, t, v, a in frame[["group", "timestamp", "value", "annotations"]].itertuples(index=False):
        # The HTTP API's names (`POINT_FIELDS`): a group object in JSON, its columns in CSV.
        values = group_of(g)
        record = {"time": iso_time(t.to_pydatetime()), "metric": args.metric}
        record.update({"group": values} if args.format == "json" else values)
        record["value"] = v
        if marked:
            record["annotations"] = _marks(a, args.format)
        records.append(record)
    _emit(records, args.format)
    return 0


def _notes(frame: pd.DataFrame, labels: pd.Series, several: bool) -> dict[Any, str]:
    """Per timestamp, the annotated points: their kinds, with the group unless every group
    shown then has the same ones."""
    notes: dict[Any, str] = {}
    for when, points in frame.assign(label=labels).groupby("timestamp"):
        marked = points[points["annotations"] != ""]
        if marked.empty:
            continue
        same = len(marked) == labels.nunique() and marked["annotations"].nunique() == 1
        if same or not several:
            notes[when] = str(marked["annotations"].iloc[0])
        else:
            pairs = zip(marked["label"], marked["annotations"], strict=True)
            notes[when] = "; ".join(f"{label}: {marks}" for label, marks in pairs)
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
    frame = verdict_rows(repo, args.metric, tags, group, statuses, since, until).head(args.limit)
    marked = bool((frame["annotations"] != "").any())  # a column only when a verdict has one
    if args.format != "table":
        _emit([_verdict_record(row, args.format, marked) for row in frame.to_dict("records")],
              args.format)  # fmt: skip
        return 0
    if frame.empty:
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
        for row in frame.to_dict("records")
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
    named["time"] = iso_time(row["timestamp"].to_pydatetime())
    named["run_time"] = iso_time(_moment(row["run_time"]))
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


def _time(value: pd.Timestamp) -> str:
    if value.hour == value.minute == value.second == 0:
        return value.strftime("%Y-%m-%d")
    return value.strftime("%Y-%m-%d %H:%M:%S")


def _emit(records: list[dict[str, Any]], kind: str) -> None:
    clean = [{k: _plain(v) for k, v in r.items()} for r in records]
    if kind == "json":
        print(json.dumps(clean, indent=2, default=str))
    else:
        print(pd.DataFrame(clean).to_csv(index=False), end="")


def _plain(value: Any) -> Any:
    """JSON-safe: NaN and infinities become null, numpy scalars Python numbers."""
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, float | np.floating):
        return float(value) if math.isfinite(value) else None
    if isinstance(value, np.integer):
        return int(value)
    return value


def _moment(value: Any) -> Any:
    """A stored time as a datetime (pandas gives Timestamps, and NaT for none)."""
    return None if value is None or pd.isna(value) else pd.Timestamp(value).to_pydatetime()

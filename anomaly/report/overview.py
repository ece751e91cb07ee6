"""The overview: datasets with their freshness and open anomalies, scans with their last run.

Columns of the scan log beyond ``reading.KNOWN_SCAN_LOG_COLUMNS`` (e.g. alert budget use,
once scans record it) are passed through as they are, so the report shows them without knowing
them.

A scan log says ``warning`` or ``error`` both for a scan that found an anomaly and for one whose
metric could not be computed (the level is the exit code's); the overview shows what the
execution found instead (``anomaly`` or ``failed metric``, from the verdicts of the runs it
saved), keeping the stored word as ``stored``.
"""

from __future__ import annotations

from typing import Any

from anomaly.judging.fields import PROBLEMS
from anomaly.report.encoding import plain
from anomaly.report.reading import (
    KNOWN_SCAN_LOG_COLUMNS,
    RepositoryContents,
    columns_of,
    records_of,
)

RECENT_RUNS = 14
"""How many of each scan's latest executions the overview shows as a strip."""


def dataset_rows(
    contents: RepositoryContents, series: list[dict[str, Any]], open_by_series: dict[int, int]
) -> list[dict[str, Any]]:
    """One row per dataset: scans, metrics, groups, series, first and last point time,
    when its last run was saved, and its open anomalies."""
    points, runs = columns_of(contents.points), columns_of(contents.runs)
    names = sorted(set(points["dataset"]) | set(runs["dataset"]))
    rows = []
    for name in names:
        mine_points = [i for i, d in enumerate(points["dataset"]) if d == name]
        mine_runs = [i for i, d in enumerate(runs["dataset"]) if d == name]
        times = _present(points["ts"][i] for i in mine_points)
        saved = _present(runs["saved_at"][i] for i in mine_runs)
        mine = [s for s in series if s["dataset"] == name]
        rows.append(
            {
                "dataset": name,
                "scans": sorted({runs["scan"][i] for i in mine_runs if runs["scan"][i]}),
                "metrics": len(_present({points["metric_id"][i] for i in mine_points})),
                "groups": len(_present({points["group_key"][i] for i in mine_points})),
                "series": len(mine),
                "points": len(mine_points),
                "first": _millis(min(times, default=None)),
                "last": _millis(max(times, default=None)),
                "saved": _millis(max(saved, default=None)),
                "open": sum(open_by_series.get(s["id"], 0) for s in mine),
            }
        )
    return rows


def scan_rows(contents: RepositoryContents) -> tuple[list[dict[str, Any]], list[str]]:
    """Per scan (newest run first): its last execution, counts and the statuses of its recent
    runs; and the names of the extra scan-log columns shown with them."""
    extra = [c for c in contents.scan_log.column_names if c not in KNOWN_SCAN_LOG_COLUMNS]
    runs = columns_of(contents.runs)
    found_datasets: dict[str, set[str]] = {}
    for scan, dataset in zip(runs["scan"], runs["dataset"], strict=True):
        if scan != "" and scan is not None:
            found_datasets.setdefault(scan, set()).add(dataset)
    datasets = {scan: sorted(found_datasets[scan]) for scan in sorted(found_datasets)}
    problems = _problems(contents)
    by_scan: dict[str, list[dict[str, Any]]] = {}
    for entry in records_of(contents.scan_log):
        if entry["scan"] is not None:
            by_scan.setdefault(entry["scan"], []).append(entry)
    rows = []
    for scan, executions in by_scan.items():
        last = executions[0]
        found = _problems_of(problems, str(scan))
        read = [
            reading(str(r["status"]), found, r["started_at"], r["ended_at"])
            for r in executions[:RECENT_RUNS]
        ]
        rows.append(
            {
                "scan": str(scan),
                "datasets": list(datasets.get(scan, [])),
                "started": _millis(last["started_at"]),
                "ended": _millis(last["ended_at"]),
                "status": read[0],
                "stored": str(last["status"]),
                "error": plain(last["error"]),
                "runs": len(executions),
                "failed": sum(r["status"] == "failed" for r in executions),
                "recent": read[::-1],
                "extra": {c: plain(last[c]) for c in extra},
            }
        )
    for scan in sorted(set(datasets) - {r["scan"] for r in rows}):
        # Runs stored by a scan whose log was deleted, or by `backfill`/suites tagging a scan.
        rows.append(
            {
                "scan": scan,
                "datasets": list(datasets[scan]),
                "started": None,
                "ended": None,
                "status": "",
                "stored": "",
                "error": None,
                "runs": 0,
                "failed": 0,
                "recent": [],
                "extra": {},
            }
        )
    return rows, extra


def reading(status: str, problems: list[tuple[Any, str]], started: Any, ended: Any) -> str:
    """What a scan execution's stored `status` means: ``anomaly`` or ``failed metric`` for a
    ``warning``/``error`` whose runs, saved between `started` and `ended` (epoch ms), hold such
    verdicts (`problems`: their ``saved_at`` and ``status``); otherwise the stored word.

    Examples
    --------
    >>> found = [(1500, "error"), (1600, "anomaly")]
    >>> reading("error", found, 1000, 2000), reading("error", found[:1], 1000, 2000)
    ('anomaly', 'failed metric')
    >>> reading("error", found, 3000, 4000), reading("ok", found, 1000, 2000)
    ('error', 'ok')
    """
    if status not in ("warning", "error") or not problems or _missing(started):
        return status
    end = max(_present(saved for saved, _ in problems), default=None) if _missing(ended) else ended
    if end is None:
        return status
    within = [found for saved, found in problems if saved is not None and started <= saved <= end]
    if "anomaly" in within:
        return "anomaly"
    return "failed metric" if within else status


def _problems(contents: RepositoryContents) -> list[tuple[str, Any, str]]:
    """Anomaly and failed-metric verdicts (scan, save time of their run, status)."""
    verdicts, runs = columns_of(contents.verdicts), columns_of(contents.runs)
    if not verdicts["status"] or not runs["ts"]:
        return []
    saved_at: dict[tuple[Any, ...], list[Any]] = {}
    for key in zip(runs["dataset"], runs["scan"], runs["ts"], runs["saved_at"], strict=True):
        saved_at.setdefault(key[:3], []).append(key[3])
    found = []
    for dataset, scan, run_ts, status in zip(
        verdicts["dataset"], verdicts["scan"], verdicts["run_ts"], verdicts["status"], strict=True
    ):
        if status in PROBLEMS:
            found += [(scan, saved, status) for saved in saved_at.get((dataset, scan, run_ts), [])]
    return found


def _problems_of(problems: list[tuple[str, Any, str]], scan: str) -> list[tuple[Any, str]]:
    # A backfill logs as "<scan> backfill" and tags its runs with the scan's name.
    name = scan.removesuffix(" backfill")
    return [(saved, status) for found, saved, status in problems if found == name]


def _missing(value: Any) -> bool:
    return value is None or value != value  # NaN: an integer column holding a null


def _present(values: Any) -> list[Any]:
    return [v for v in values if not _missing(v)]


def _millis(value: Any) -> int | None:
    return None if _missing(value) else int(value)

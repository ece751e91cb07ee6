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

import pandas as pd

from anomaly.judging.fields import PROBLEMS
from anomaly.report.encoding import plain
from anomaly.report.reading import KNOWN_SCAN_LOG_COLUMNS, RepositoryContents

RECENT_RUNS = 14
"""How many of each scan's latest executions the overview shows as a strip."""


def dataset_rows(
    contents: RepositoryContents, series: list[dict[str, Any]], open_by_series: dict[int, int]
) -> list[dict[str, Any]]:
    """One row per dataset: scans, metrics, groups, series, first and last point time,
    when its last run was saved, and its open anomalies."""
    names = sorted(set(contents.points["dataset"]) | set(contents.runs["dataset"]))
    rows = []
    for name in names:
        points = contents.points[contents.points["dataset"] == name]
        runs = contents.runs[contents.runs["dataset"] == name]
        mine = [s for s in series if s["dataset"] == name]
        rows.append(
            {
                "dataset": name,
                "scans": sorted({s for s in runs["scan"] if s}),
                "metrics": int(points["metric_id"].nunique()),
                "groups": int(points["group_key"].nunique()),
                "series": len(mine),
                "points": len(points),
                "first": _millis(points["ts"].min()),
                "last": _millis(points["ts"].max()),
                "saved": _millis(runs["saved_at"].max()),
                "open": sum(open_by_series.get(s["id"], 0) for s in mine),
            }
        )
    return rows


def scan_rows(contents: RepositoryContents) -> tuple[list[dict[str, Any]], list[str]]:
    """Per scan (newest run first): its last execution, counts and the statuses of its recent
    runs; and the names of the extra scan-log columns shown with them."""
    log = contents.scan_log
    extra = [c for c in log.columns if c not in KNOWN_SCAN_LOG_COLUMNS]
    datasets = (
        contents.runs[contents.runs["scan"] != ""]
        .groupby("scan")["dataset"]
        .agg(lambda d: sorted(set(d)))
        if len(contents.runs)
        else pd.Series(dtype=object)
    )
    problems = _problems(contents)
    rows = []
    for scan, runs in log.groupby("scan", sort=False):
        last = runs.iloc[0]
        found = _problems_of(problems, str(scan))
        read = [
            reading(str(r.status), found, r.started_at, r.ended_at)
            for r in runs.head(RECENT_RUNS).itertuples(index=False)
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
                "runs": len(runs),
                "failed": int((runs["status"] == "failed").sum()),
                "recent": read[::-1],
                "extra": {c: plain(last[c]) for c in extra},
            }
        )
    for scan in sorted(set(datasets.index) - {r["scan"] for r in rows}):
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


def reading(status: str, problems: pd.DataFrame, started: Any, ended: Any) -> str:
    """What a scan execution's stored `status` means: ``anomaly`` or ``failed metric`` for a
    ``warning``/``error`` whose runs, saved between `started` and `ended` (epoch ms), hold such
    verdicts (`problems`: their ``saved_at`` and ``status``); otherwise the stored word.

    Examples
    --------
    >>> found = pd.DataFrame({"saved_at": [1500, 1600], "status": ["error", "anomaly"]})
    >>> reading("error", found, 1000, 2000), reading("error", found[:1], 1000, 2000)
    ('anomaly', 'failed metric')
    >>> reading("error", found, 3000, 4000), reading("ok", found, 1000, 2000)
    ('error', 'ok')
    """
    if status not in ("warning", "error") or problems.empty or pd.isna(started):
        return status
    end = problems["saved_at"].max() if pd.isna(ended) else ended
    within = problems[problems["saved_at"].between(started, end)]
    if (within["status"] == "anomaly").any():
        return "anomaly"
    return "failed metric" if len(within) else status


def _problems(contents: RepositoryContents) -> pd.DataFrame:
    """Anomaly and failed-metric verdicts with the scan and save time of their run."""
    verdicts = contents.verdicts
    columns = ["scan", "saved_at", "status"]
    if verdicts.empty or contents.runs.empty:
        return pd.DataFrame(columns=columns)
    found = verdicts.loc[verdicts["status"].isin(PROBLEMS), ["dataset", "scan", "run_ts", "status"]]
    runs = contents.runs.rename(columns={"ts": "run_ts"})
    return found.merge(runs, on=["dataset", "scan", "run_ts"], how="inner")[columns]


def _problems_of(problems: pd.DataFrame, scan: str) -> pd.DataFrame:
    # A backfill logs as "<scan> backfill" and tags its runs with the scan's name.
    name = scan.removesuffix(" backfill")
    return problems[problems["scan"] == name]


def _millis(value: Any) -> int | None:
    return None if value is None or pd.isna(value) else int(value)

"""``anomaly demo --monitors``: zero-config monitors on a 30-column table with injected problems.

The config has three lines for the table: its source (path and time column) and a scan with
``monitors: auto``. Days 0-45 are backfilled in one Spark job; each later day is scanned as a
daily schedule would, after the table changed (rows arrived, columns dropped, retyped, added).
"""

from __future__ import annotations

import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

from anomaly.config.loading import load_config
from anomaly.judging.report import ScanReport, ScanStatus
from anomaly.judging.tables import text_table
from anomaly.monitors.demo_data import (
    BACKFILLED,
    DAYS,
    PROBLEMS,
    START,
    Problem,
    orders,
    write_as_of,
)
from anomaly.monitors.explain import explain
from anomaly.service.backfill import backfill
from anomaly.service.progress import Progress
from anomaly.service.scan import ScanRunner
from repository import AnomalyVerdict

SCAN = "orders"
CONFIG = """\
# The monitors demo's config: three lines for the table, nothing per column or metric.
repository: metrics.duckdb
spark: {{master: "{master}"}}
sources:
  orders: {{path: data/orders, time_column: event_time}}
scans:
  orders: {{source: orders, monitors: auto}}
"""


def run_monitors_demo(
    directory: str | None = None, master: str = "local[*]", quiet: bool = False
) -> int:
    """Run the monitors demo in `directory` (default: a new temporary one); 0 when it ran."""
    started = time.monotonic()
    root = Path(directory or tempfile.mkdtemp(prefix="anomaly-monitors-")).resolve()
    root.mkdir(parents=True, exist_ok=True)
    progress = Progress.silent() if quiet else Progress.to_stream(sys.stderr)
    table = orders()
    data = root / "data" / "orders"
    rows = write_as_of(table, BACKFILLED - 1, data)
    config_path = root / "anomaly.yml"
    config_path.write_text(CONFIG.format(master=master), encoding="utf-8")
    progress.step(f"demo: {len(table):,} orders over {DAYS} days, 30 columns, in {data}")
    runner = ScanRunner(load_config(config_path), progress=progress)
    history = backfill(runner, SCAN, until=_day(BACKFILLED - 1))
    progress.step(history.headline())
    if history.error is not None:
        return int(ScanStatus.FAILED)
    reports = list(history.partitions)
    for day in range(BACKFILLED, DAYS):
        rows = write_as_of(table, day, data)
        runner.spark.catalog.refreshByPath(str(data))  # the files changed under Spark
        report = runner.run(SCAN, period=_day(day), alert=False)
        progress.step(f"{report.headline()} ({rows:,} rows in the table)")
        if report.error is not None:
            return int(ScanStatus.FAILED)
        reports.append(report)
    print(_summary(root, len(table), reports, runner, time.monotonic() - started))
    return 0


def _day(offset: int) -> datetime:
    return datetime.combine(START + timedelta(days=offset), datetime.min.time(), UTC)


def _summary(
    root: Path, rows: int, reports: list[ScanReport], runner: ScanRunner, seconds: float
) -> str:
    found: list[tuple[ScanReport, AnomalyVerdict, Problem | None]] = []
    for report in reports:
        for finding in report.problems:
            found.append((report, finding, _injected(report, finding)))
    caught = {p for _, _, p in found if p is not None}
    others = sum(p is None for _, _, p in found)
    table_rows = [
        [r.when, (f.severity or "warning").upper(), f.metric_id, p.description if p else "(other)"]
        for r, f, p in found
    ]
    lines = [
        "",
        f"anomaly demo --monitors: {rows:,} orders, {DAYS} days, 30 columns, config of three "
        "lines for the table",
        f"  backfill  days 1-{BACKFILLED} in one Spark job; then one scan per day",
        "",
        f"Findings ({len(caught)} of {len(PROBLEMS)} injected problems found, {others} other "
        f"alarm{'s' if others != 1 else ''}):",
        text_table(["day", "severity", "finding", "injected problem"], table_rows, indent="  ")
        if table_rows
        else "  none",
        "",
        "Explained:",
    ]
    tags = runner.tags(SCAN)
    for report, finding, _ in found:
        lines += [f"  {line}" for line in explain(finding, report, runner.repository, tags)]
    lines += [
        "",
        f"Files in {root}: anomaly.yml (the config), metrics.duckdb (the history), data/",
        f"  anomaly anomalies -c {root / 'anomaly.yml'}",
        f"Done in {seconds:.0f} s.",
    ]
    return "\n".join(lines)


def _injected(report: ScanReport, finding: AnomalyVerdict) -> Problem | None:
    metric = finding.metric_id
    return next(
        (p for p in PROBLEMS if p.when.isoformat() == report.when and p.explains(metric)), None
    )

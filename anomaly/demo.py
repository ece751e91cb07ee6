"""``anomaly demo``: the product's whole loop on generated data with the embedded defaults.

It writes 90 days of events (five countries, weekly seasonality, three injected incidents)
as Parquet, writes a config, backfills the history in one Spark job, scans the last day as
the daily schedule would, then prints the anomalies found and writes plots.
"""

from __future__ import annotations

import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

from anomaly.config.loading import load_config
from anomaly.demo_data import START, Incident, incidents, write_events
from anomaly.errors import ConfigurationError
from anomaly.judging.report import ScanReport, ScanStatus
from anomaly.judging.tables import band, group_label, number, text_table
from anomaly.report.page import write_report
from anomaly.service.backfill import backfill
from anomaly.service.progress import Progress
from anomaly.service.query_commands import slug
from anomaly.service.scan import ScanRunner
from repository import AnomalyVerdict

SCAN = "events_daily"
_STORAGE_AND_SOURCE = """\
repository: metrics.duckdb
spark:
  master: {master}
sources:
  events:
    path: data/events.parquet
    time_column: day              # one partition (point of history) per UTC day
"""
CONFIG = (
    """\
# The demo's config: generated events, local Spark, a DuckDB file next to this file.
# No detector is named: every metric is judged by the default (Adaptive: season found from the
# history, band calibrated to 1 false alarm in 1,000 normal days); the alert budget keeps the
# scan's false alerts to about one in ten weeks over all its series together.
"""
    + _STORAGE_AND_SOURCE
    + """\
scans:
  events_daily:
    source: events
    group_by: [country]           # one series per country
    schedule: {{cron: "0 6 * * *"}} # for `anomaly serve`: yesterday's partition at 06:00 UTC
    alert_budget: {{false_alerts_per_week: 0.1}}  # for all 20 series together
    metrics:
      - Size
      - {{analyzer: Completeness, column: price}}
      - {{analyzer: Mean, column: price}}
      - {{analyzer: Compliance, name: refund rate, predicate: "status = 'refund'",
         severity: warning}}
alerts:
  console: {{type: log}}
"""
)
TUNED_CONFIG = (
    """\
# The demo's config with a detector tuned per metric (anomaly demo --tuned), as before the
# calibrated default existed: it must find the same incidents.
"""
    + _STORAGE_AND_SOURCE
    + """\
scans:
  events_daily:
    source: events
    group_by: [country]
    schedule: {{cron: "0 6 * * *"}}
    min_history: 21
    detector: {{type: OnlineNormal, lower_deviation_factor: 5, upper_deviation_factor: 5}}
    metrics:
      - analyzer: Size
        # Weekly seasonality: a day is flagged only when it is off the same weekday of last
        # week by more than half AND outside the seasonal ARIMA forecast's 99% interval.
        detector:
          type: AllOf
          detectors:
            - {{type: RelativeRateOfChange, order: 7, max_rate_decrease: 0.5,
               max_rate_increase: 2.0}}
            - {{type: SeasonalArima, seasonal_order: [0, 1, 1, 7]}}
      - analyzer: Completeness     # only a drop matters: the upper side is unbounded
        column: price
        detector: {{type: OnlineNormal, lower_deviation_factor: 5, upper_deviation_factor: null}}
      - analyzer: Mean
        column: price
      - analyzer: Compliance
        name: refund rate
        predicate: "status = 'refund'"
        severity: warning
alerts:
  console: {{type: log}}
"""
)
MIN_DAYS = 60
KIND_METRICS = {"drop": "Size(*)", "nulls": "Completeness(price)", "spike": "Mean(price)"}


def run_demo(
    directory: str | None = None,
    days: int = 90,
    master: str = "local[*]",
    quiet: bool = False,
    tuned: bool = False,
) -> int:
    """Run the demo in `directory` (default: a new temporary one); 0 when it ran through.
    ``tuned`` uses the per-metric detectors of :data:`TUNED_CONFIG` instead of the default."""
    if days < MIN_DAYS:
        raise ConfigurationError(
            f"--days must be at least {MIN_DAYS} (six weeks of history before the first "
            f"incident), got {days}"
        )
    started = time.monotonic()
    root = Path(directory or tempfile.mkdtemp(prefix="anomaly-demo-")).resolve()
    root.mkdir(parents=True, exist_ok=True)
    progress = Progress.silent() if quiet else Progress.to_stream(sys.stderr)
    rows = write_events(root / "data" / "events.parquet", days)
    config_path = root / "anomaly.yml"
    config_path.write_text(
        (TUNED_CONFIG if tuned else CONFIG).format(master=master), encoding="utf-8"
    )
    progress.step(f"demo: {rows:,} events over {days} days in {root / 'data'}")
    runner = ScanRunner(load_config(config_path), progress=progress)
    spark_started = time.monotonic()
    _ = runner.spark
    spark_seconds = time.monotonic() - spark_started
    last = datetime.combine(START + timedelta(days=days - 1), datetime.min.time(), UTC)
    history = backfill(runner, SCAN, until=last - timedelta(days=1))
    progress.step(history.headline())
    if history.error is not None:
        return int(ScanStatus.FAILED)
    today = runner.run(SCAN, period=last)
    progress.step(today.headline())
    if today.error is not None:
        return int(ScanStatus.FAILED)
    found = [*history.partitions, today]
    plots = _plots(runner, root, found)
    report = write_report(runner.repository, root / "report.html", title="anomaly demo")
    timings = (spark_seconds, history.seconds or 0.0, time.monotonic() - started)
    print(_summary(root, rows, days, timings, today, found, plots))
    print(f"Report: {report} (open it in a browser; works offline)")
    return 0


def _plots(runner: ScanRunner, root: Path, reports: list[ScanReport]) -> list[Path]:
    from anomaly.plots import plot_metric

    metrics = sorted({f.metric_id for r in reports for f in r.problems})
    return [
        plot_metric(
            runner.repository,
            metric,
            root / "plots" / f"{slug(metric)}.png",
            tags=runner.tags(SCAN),
        )
        for metric in metrics
    ]


def _summary(
    root: Path,
    rows: int,
    days: int,
    timings: tuple[float, float, float],
    today: ScanReport,
    reports: list[ScanReport],
    plots: list[Path],
) -> str:
    spark_seconds, backfill_seconds, total_seconds = timings
    injected = {
        (i.day.isoformat(), i.country, KIND_METRICS[i.kind]): i for i in incidents(START, days)
    }
    found: list[tuple[ScanReport, AnomalyVerdict]] = [(r, f) for r in reports for f in r.problems]
    table_rows = []
    caught: set[Incident] = set()
    others = 0
    for report, finding in found:
        v = finding
        incident = injected.get((report.when, v.group.get("country") or "", v.metric_id))
        if incident is None:
            others += 1
        else:
            caught.add(incident)
        table_rows.append(
            [
                report.when,
                group_label(v.group),
                v.metric_id,
                number(v.value),
                band(v.lower, v.upper),
                number(v.history_length),
                incident.description if incident else "(false alarm)",
            ]
        )
    headers = ["day", "group", "metric", "value", "expected", "history", "injected incident"]
    lines = [
        "",
        f"anomaly demo: {rows:,} events, {days} days x 5 countries, 4 metrics per country and day",
        f"  spark     session started in {spark_seconds:.0f} s",
        f"  backfill  {days - 1} days in one Spark job, judged day by day in time order"
        f" ({backfill_seconds:.0f} s)",
        f"  scan      {today.headline()}",
        "",
        f"Anomalies found ({len(caught)} of {len(injected)} injected incidents, "
        f"{others} other alarm{'s' if others != 1 else ''}):",
        text_table(headers, table_rows, indent="  ") if table_rows else "  none",
        "",
        "Plots:",
        *(f"  {p}" for p in plots),
        "",
        f"Files in {root}: anomaly.yml (the config), metrics.duckdb (the history), data/, plots/,"
        " report.html",
        "Explore:",
        f"  anomaly anomalies -c {root / 'anomaly.yml'}",
        f"  anomaly history -c {root / 'anomaly.yml'} 'Size(*)'",
        f"  anomaly serve {root / 'anomaly.yml'} --ui 127.0.0.1:8080",
        f"Done in {total_seconds:.0f} s.",
    ]
    return "\n".join(lines)

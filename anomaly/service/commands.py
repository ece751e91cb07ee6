"""The CLI's run commands: ``scan``, ``serve``, ``backfill`` and ``validate-config``."""

from __future__ import annotations

import argparse
import json
import logging
import sys

from anomaly.config.config import ServiceConfig
from anomaly.config.durations import format_duration
from anomaly.config.loading import load_config
from anomaly.config.periods import parse_time
from anomaly.errors import ConfigurationError
from anomaly.judging.report import ScanStatus
from anomaly.service.backfill import backfill
from anomaly.service.exit_reason import exit_reason
from anomaly.service.progress import Progress
from anomaly.service.scan import ScanRunner
from anomaly.service.scheduler import ScanService
from repository.backends import describe

LOG = logging.getLogger("anomaly.service")


def runner_for(args: argparse.Namespace) -> ScanRunner:
    """The config's scan runner, with progress on stderr unless ``--quiet``."""
    config = load_config(args.config)
    for name in args.scan or []:
        config.scan(name)  # an unknown name fails before Spark starts
    quiet = getattr(args, "quiet", False)
    progress = Progress.silent() if quiet else Progress.to_stream(sys.stderr)
    return ScanRunner(config, progress=progress)


def scan_command(args: argparse.Namespace) -> int:
    """Run scans once; exit with the worst status (0 ok, 1 warning, 2 error, 3 failed)."""
    runner = runner_for(args)
    at = parse_time(args.at) if args.at else None
    partition = parse_time(args.partition) if args.partition else None
    names = args.scan or list(runner.config.scans)
    _ = runner.spark  # started before the scans, so their times are their own
    reports = [
        runner.run(name, at=at, period=partition, alert=not args.no_alerts) for name in names
    ]
    if args.format == "json":
        print(json.dumps([r.to_dict() for r in reports], indent=2))
    else:
        for report in reports:
            print(report.headline())
            table = report.table(indent="  ")
            if table:
                print(table)
    reason = exit_reason(reports)
    if reason is not None:
        print(f"anomaly scan: {reason}", file=sys.stderr)
    return int(max(r.status for r in reports))


def backfill_command(args: argparse.Namespace) -> int:
    """Compute and judge past partitions; 0 when stored (past anomalies are listed), else 3."""
    runner = runner_for(args)
    config = runner.config
    names = args.scan or [n for n, s in config.scans.items() if _timed(config, s.source)]
    if not names:
        raise ConfigurationError("no scan reads a source with a time_column: nothing to backfill")
    since = parse_time(args.since) if args.since else None
    until = parse_time(args.until) if args.until else None
    _ = runner.spark
    status = ScanStatus.OK
    for name in names:
        report = backfill(runner, name, since, until)
        print(report.headline())
        table = report.table()
        if table:
            print(table)
        status = max(status, report.status)
    return int(status)


def serve_command(args: argparse.Namespace) -> int:
    """Run the scheduled scans until SIGTERM/SIGINT (with ``--ui``, the web UI beside them)."""
    from anomaly.report.cli import start_ui

    runner = runner_for(args)
    service = ScanService(runner, args.scan)
    ui = start_ui(args, runner.config.repository)  # None without --ui
    LOG.info("serving %d scheduled scan(s): %s", len(service.names), ", ".join(service.names))
    if service.streams.names:
        LOG.info(
            "serving %d stream scan(s): %s",
            len(service.streams.names),
            ", ".join(service.streams.names),
        )
    try:
        return service.serve_forever()
    finally:
        if ui is not None:
            ui.stop()


def validate_command(args: argparse.Namespace) -> int:
    """Check a config file without running anything (no Spark)."""
    config = load_config(args.config)
    print(f"{args.config}: OK")
    print(f"  repository  {describe(config.repository)}")
    for name, scan in config.scans.items():
        source = config.sources[scan.source]
        when = scan.schedule.describe() if scan.schedule else "not scheduled"
        if scan.stream is not None:
            window = format_duration(scan.stream.window)
            when = f"streaming, {window} windows, micro-batches every {scan.stream.trigger}"
        watched = f" and monitors {', '.join(scan.monitors.enabled)}" if scan.monitors else ""
        print(f"  scan {name}: {len(scan.metrics)} metrics{watched} on {source.describe()}, {when}")
    if config.alerts:
        sinks = ", ".join(f"{n} ({s.type})" for n, s in config.alerts.items())
        print(f"  alerts      {sinks}")
    return 0


def _timed(config: ServiceConfig, source: str) -> bool:
    found = config.sources[source]
    return found.time_column is not None and found.stream is None

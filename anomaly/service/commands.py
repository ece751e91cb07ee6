"""The CLI's run commands: ``scan``, ``serve``, ``backfill`` and ``validate-config``."""

from __future__ import annotations

import argparse
import json
import logging
import signal
import sys
import threading
from collections.abc import Sequence
from typing import TYPE_CHECKING

from anomaly.config.durations import format_duration
from anomaly.config.loading import load_config
from anomaly.config.periods import parse_time
from anomaly.errors import ConfigurationError
from repository.backends import describe

if TYPE_CHECKING:  # the scan machinery (Spark) is imported by the commands that run scans
    from anomaly.config.config import ServiceConfig
    from anomaly.judging.report import ScanReport
    from anomaly.service.scan import ScanRunner
    from anomaly.service.session import StopRequested

LOG = logging.getLogger("anomaly.service")


def runner_for(args: argparse.Namespace) -> ScanRunner:
    """The config's scan runner, with progress on stderr unless ``--quiet``."""
    from anomaly.service.progress import Progress
    from anomaly.service.scan import ScanRunner

    config = load_config(args.config)
    for name in args.scan or []:
        config.scan(name)  # an unknown name fails before Spark starts
    quiet = getattr(args, "quiet", False)
    progress = Progress.silent() if quiet else Progress.to_stream(sys.stderr)
    return ScanRunner(config, progress=progress)


def scan_command(args: argparse.Namespace) -> int:
    """Run scans once; exit with the worst status (0 ok, 1 warning, 2 error, 3 failed)."""
    from anomaly.service.session import StopRequested, stop_signals

    runner = runner_for(args)
    at = parse_time(args.at) if args.at else None
    partition = parse_time(args.partition) if args.partition else None
    names = args.scan or list(runner.config.scans)
    _ = runner.spark  # started before the scans, so their times are their own
    try:
        with stop_signals():
            reports = [
                runner.run(name, at=at, period=partition, alert=not args.no_alerts)
                for name in names
            ]
    except StopRequested as stop:
        return stopped("scan", stop)
    if args.format == "json":
        print(json.dumps([r.to_dict() for r in reports], indent=2))
    else:
        for report in reports:
            print(report.headline())
            table = report.table(indent="  ")
            if table:
                print(table)
    return _exit(args, reports)


def backfill_command(args: argparse.Namespace) -> int:
    """Compute and judge past partitions; 0 when stored (past anomalies are listed), else 3."""
    from anomaly.service.backfill import backfill
    from anomaly.service.session import StopRequested, stop_signals

    runner = runner_for(args)
    config = runner.config
    names = args.scan or [n for n, s in config.scans.items() if _timed(config, s.source)]
    if not names:
        raise ConfigurationError("no scan reads a source with a time_column: nothing to backfill")
    since = parse_time(args.since) if args.since else None
    until = parse_time(args.until) if args.until else None
    _ = runner.spark
    reports = []
    try:
        with stop_signals():
            for name in names:
                report = backfill(runner, name, since, until)
                print(report.headline())
                table = report.table()
                if table:
                    print(table)
                reports.append(report)
    except StopRequested as stop:
        return stopped("backfill", stop)
    failed = [f"{r.scan}: {r.error}" for r in reports if r.error is not None]
    if failed:  # past anomalies do not fail a backfill; an error does, and says which
        print(f"anomaly backfill: exit 3 (failed): {'; '.join(failed)}", file=sys.stderr)
    return int(max((r.status for r in reports), default=0))


def stopped(command: str, stop: StopRequested) -> int:
    """Say that a signal stopped `command` (its running scan is recorded abandoned); the
    exit code a shell gives for that signal (143 for SIGTERM)."""
    print(f"anomaly {command}: {stop}; the running scan was abandoned", file=sys.stderr)
    return 128 + int(getattr(signal, stop.name))


def serve_command(args: argparse.Namespace) -> int:
    """Run the scheduled scans until SIGTERM/SIGINT (with ``--ui``, the web UI beside them).

    With ``--ui`` and no scheduled or streaming scan, only the UI is served: no Spark starts.
    """
    from anomaly.report.cli import start_ui
    from anomaly.report.health import scheduler_running

    config = load_config(args.config)
    chosen = [config.scan(name) for name in args.scan or config.scans]
    if getattr(args, "ui", None) and not any(s.schedule or s.stream for s in chosen):
        ui = start_ui(args, config.repository)
        LOG.info("no scheduled scan: serving the UI only (no Spark)")
        try:
            _wait_for_signal()
        finally:
            ui.stop()
        return 0
    from anomaly.service.scheduler import ScanService

    runner = runner_for(args)
    service = ScanService(runner, args.scan)
    # None without --ui; /api/health also fails while the scheduler does not run
    ui = start_ui(args, runner.config.repository, [scheduler_running(service.scheduler)])
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


def _wait_for_signal() -> None:
    """Block until SIGTERM or SIGINT."""
    stop = threading.Event()
    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, lambda *_: stop.set())
    while not stop.wait(1.0):
        pass
    LOG.info("stopped")


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
    for warning in config.warnings:  # e.g. an alert's unset variable: only sending needs it
        print(f"warning: {warning.render()}", file=sys.stderr)
    return 0


def _exit(args: argparse.Namespace, reports: Sequence[ScanReport]) -> int:
    """The worst status as the exit code, its reasons said on stderr."""
    from anomaly.judging.exit_reason import exit_reason

    reason = exit_reason(args.command, reports)
    if reason:
        print(reason, file=sys.stderr)
    return int(max((r.status for r in reports), default=0))


def _timed(config: ServiceConfig, source: str) -> bool:
    found = config.sources[source]
    return found.time_column is not None and found.stream is None

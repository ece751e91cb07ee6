"""The ``anomaly`` command line (``anomaly --help``; every sub-command has ``--help``).

Exit codes, as Soda's: 0 ok, 1 warnings, 2 anomalies or errors at ERROR level, 3 usage or
runtime failure. Errors print one line, never a traceback (``--debug`` shows it).
"""

from __future__ import annotations

import argparse
import logging
import sys
from collections.abc import Callable
from importlib import import_module
from typing import Any, cast

from anomaly.cli_options import add_group_filter, add_run_filters
from anomaly.errors import AnomalyError

EXIT_OK, EXIT_WARNING, EXIT_ERROR, EXIT_FAILURE = 0, 1, 2, 3
EPILOG = "exit codes: 0 ok, 1 warnings, 2 anomalies or errors at ERROR level, 3 failure"
TIME = "ISO date or time, UTC unless it has an offset (2026-03-31, 2026-03-31T06:00Z), or "
TIME += "now, today, yesterday"
RUN = "anomaly.service.commands:"
QUERY = "anomaly.service.query_commands:"
"""Where the handlers live, imported only when their command runs (``handler_of``)."""


def build_parser() -> argparse.ArgumentParser:
    """The argument parser with every sub-command."""
    parser = argparse.ArgumentParser(
        prog="anomaly",
        description="Data-quality metrics on Spark, stored as histories, checked for anomalies.",
        epilog=EPILOG,
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("-q", "--quiet", action="store_true", help="no progress lines")
    common.add_argument("--debug", action="store_true", help="tracebacks and debug logging")

    def command(name: str, text: str, handler: str) -> Any:
        sub = commands.add_parser(
            name, help=text, description=text, epilog=EPILOG, parents=[common]
        )
        sub.set_defaults(handler=handler)
        return sub

    from anomaly.report.cli import add_ui_arguments

    scan = command(
        "scan", "run scans once, store metrics and verdicts, alert", RUN + "scan_command"
    )
    _config_and_scans(scan)
    when = scan.add_mutually_exclusive_group()
    when.add_argument("--at", metavar="TIME", help=f"the scan's time (default now); {TIME}")
    when.add_argument(
        "--partition",
        metavar="START",
        help="for sources with a time_column: the partition "
        "(day or hour) starting at START (default: the last complete one)",
    )
    scan.add_argument("--format", choices=("text", "json"), default="text", help="output")
    scan.add_argument("--no-alerts", action="store_true", help="do not send alerts")

    serve = command("serve", "run the scheduled scans until SIGTERM/SIGINT", RUN + "serve_command")
    _config_and_scans(serve)
    add_ui_arguments(serve)

    fill = command(
        "backfill",
        "compute and judge past partitions (sources with a time_column)",
        RUN + "backfill_command",
    )
    _config_and_scans(fill)
    fill.add_argument("--since", metavar="TIME", help=f"first partition (default: all); {TIME}")
    fill.add_argument("--until", metavar="TIME", help="last partition (default: the last complete)")

    history = command("history", "print a metric's series per group", QUERY + "history_command")
    _repository(history, metric=True)
    _filters(history)
    _format(history)

    anomalies = command(
        "anomalies", "list recent anomalies and failed metrics", QUERY + "anomalies_command"
    )
    _repository(anomalies)
    anomalies.add_argument("--metric", action="append", help="only this metric id (repeatable)")
    anomalies.add_argument(
        "--status",
        action="append",
        choices=("anomaly", "error", "normal", "held_back", "insufficient_history", "all"),
        help="verdict statuses (default: anomaly and error; "
        "held_back: anomalies an alert budget did not alert on)",
    )
    anomalies.add_argument("--limit", type=int, default=50, help="newest N rows (default 50)")
    _filters(anomalies)
    _format(anomalies)

    plot = command(
        "plot", "write a PNG of a metric's series, band and anomalies", QUERY + "plot_command"
    )
    _repository(plot, metric=True)
    plot.add_argument("--group", action="append", metavar="COLUMN=VALUE", help="one group only")
    plot.add_argument("-o", "--output", metavar="FILE", help="PNG path (default: from METRIC)")
    plot.add_argument("--title", help="figure title (default: the metric id)")

    check = command("validate-config", "check a config file (no Spark)", RUN + "validate_command")
    check.add_argument("config", metavar="CONFIG", help="the YAML config file")

    demo = command(
        "demo",
        "run the whole loop on generated data (local Spark, DuckDB file)",
        "anomaly.cli:demo",
    )
    demo.add_argument(
        "--dir",
        metavar="DIR",
        help="where to write data, config, repository and "
        "plots (default: a new temporary directory)",
    )
    demo.add_argument("--days", type=int, default=90, help="days of generated history (>= 60)")
    demo.add_argument("--master", default="local[*]", help="Spark master (default local[*])")
    demo.add_argument(
        "--tuned", action="store_true", help="judge with per-metric detectors, not the default"
    )
    demo.add_argument(
        "--monitors",
        action="store_true",
        help="zero-config monitors instead: 60 days of a "
        "30-column table with schema drift, a stale day, late data...",
    )

    from anomaly.backtest.cli import register as register_backtest
    from anomaly.report.cli import register as register_report
    from anomaly.service.monitor_command import register as register_monitor
    from anomaly.suggestion.cli import register as register_suggest

    register_suggest(commands)
    register_backtest(commands)
    register_report(commands)
    register_monitor(commands)
    return parser


def _config_and_scans(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("config", metavar="CONFIG", help="the YAML config file")
    parser.add_argument(
        "--scan", action="append", metavar="NAME", help="only this scan (repeatable; default: all)"
    )


def _repository(parser: argparse.ArgumentParser, metric: bool = False) -> None:
    """Where the repository is (``-c`` or ``-r``), the run filters, and METRIC if asked."""
    where = parser.add_mutually_exclusive_group(required=True)
    where.add_argument("-c", "--config", metavar="CONFIG", help="use the config's repository")
    where.add_argument(
        "-r",
        "--repository",
        metavar="PATH_OR_URL",
        help="a DuckDB repository file, or a postgresql://USER@HOST:PORT/DB URL "
        "(the password from PGPASSWORD or ~/.pgpass)",
    )
    add_run_filters(parser)
    if metric:
        parser.add_argument("metric", metavar="METRIC", help="a metric id, e.g. 'Size(*)'")


def _filters(parser: argparse.ArgumentParser) -> None:
    add_group_filter(parser)
    parser.add_argument("--since", metavar="TIME", help=f"from this time on; {TIME}")
    parser.add_argument("--until", metavar="TIME", help="up to this time (inclusive)")


def _format(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--format",
        choices=("table", "csv", "json"),
        default="table",
        help="output format (default table)",
    )


def demo(args: argparse.Namespace) -> int:
    if args.monitors:
        from anomaly.demo_monitors import run_monitors_demo

        return run_monitors_demo(directory=args.dir, master=args.master, quiet=args.quiet)
    from anomaly.demo import run_demo

    return run_demo(
        directory=args.dir, days=args.days, master=args.master, quiet=args.quiet, tuned=args.tuned
    )


def main(argv: list[str] | None = None) -> int:
    """Entry point of the `anomaly` console script; returns the exit code."""
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exit_:
        return EXIT_OK if exit_.code in (0, None) else EXIT_FAILURE
    debug = getattr(args, "debug", False)
    _logging(debug)
    try:
        return int(handler_of(args)(args))
    except KeyboardInterrupt:
        print(f"anomaly {args.command}: interrupted", file=sys.stderr)
        return EXIT_FAILURE
    except Exception as error:
        if debug:
            raise
        if _expected(error):
            print(f"anomaly {args.command}: error: {error}", file=sys.stderr)
            return EXIT_FAILURE
        print(
            f"anomaly {args.command}: unexpected {type(error).__name__}: {error} "
            "(run with --debug for the traceback)",
            file=sys.stderr,
        )
        return EXIT_FAILURE


def _expected(error: Exception) -> bool:
    """An error raised on purpose, whose message is the whole story (no traceback needed).

    The repository's and the detectors' error classes are imported here, once one was raised:
    ``repository`` loads pandas and DuckDB, which ``validate-config`` does not need.
    """
    from detectors.errors import DetectorError
    from repository.errors import RepositoryError

    return isinstance(error, AnomalyError | RepositoryError | DetectorError | OSError)


def handler_of(args: argparse.Namespace) -> Callable[[argparse.Namespace], int]:
    """The sub-command's function, its module imported only now: a parser names its handler
    as ``"module:function"`` so that ``anomaly history`` never imports what ``scan`` needs."""
    handler = args.handler
    if callable(handler):
        return cast(Callable[[argparse.Namespace], int], handler)
    module, _, name = str(handler).partition(":")
    return cast(Callable[[argparse.Namespace], int], getattr(import_module(module), name))


def _logging(debug: bool) -> None:
    """Our log lines on stderr (INFO, DEBUG with --debug); APScheduler's only when it warns."""
    logging.basicConfig(
        level=logging.DEBUG if debug else logging.INFO,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
        datefmt="%Y-%m-%d %H:%M:%S",
        stream=sys.stderr,
    )
    for noisy in ("apscheduler", "py4j", "matplotlib", "urllib3"):
        logging.getLogger(noisy).setLevel(logging.WARNING)


if __name__ == "__main__":
    sys.exit(main())

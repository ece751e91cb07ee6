"""``anomaly monitor PATH_OR_TABLE``: zero-config monitors from the command line, no config file.

The source is a path (parquet, CSV, JSON) when one exists there or it has a scheme
(``s3a://...``), else a table Spark knows. History goes to the default repository:
``$ANOMALY_REPOSITORY``, else ``metrics.duckdb`` in the current directory.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from anomaly.errors import ConfigurationError

REPOSITORY_VARIABLE = "ANOMALY_REPOSITORY"
DEFAULT_REPOSITORY = "metrics.duckdb"


def register(commands: Any) -> argparse.ArgumentParser:
    """Add the ``monitor`` sub-command to an argparse sub-parsers object."""
    parser: argparse.ArgumentParser = commands.add_parser(
        "monitor",
        help="judge yesterday's partition of a table (--at TIME for another): volume, "
        "freshness, schema and columns, no config needed",
        description="Judge yesterday's partition of PATH_OR_TABLE (with --time-column: the last "
        "complete day, or hour; without, the whole table as of now) for volume, freshness, "
        "schema changes and column health; history goes to the default repository. For "
        "historical data give --at with the partition's start (--at 2026-03-31), or --backfill "
        "to judge every earlier partition first.",
        epilog="exit codes: 0 ok, 1 warnings, 2 anomalies or errors at ERROR level, 3 failure",
    )
    parser.add_argument(
        "source", metavar="PATH_OR_TABLE", help="files (parquet, csv, json) or a table name"
    )
    parser.add_argument("--time-column", help="event time column: one run per day (or hour)")
    parser.add_argument(
        "--partition",
        choices=("day", "hour"),
        help="with --time-column: the partition length (default day)",
    )
    parser.add_argument(
        "--at",
        metavar="TIME",
        help="with --time-column: the partition starting "
        "at TIME (default: the last complete one); else the run's time",
    )
    parser.add_argument(
        "--backfill",
        action="store_true",
        help="with --time-column: first compute and judge every earlier partition (one Spark job)",
    )
    parser.add_argument(
        "--monitors",
        default="auto",
        help="comma-separated: volume, freshness, schema, columns, timeliness (default auto: all)",
    )
    parser.add_argument(
        "--include",
        action="append",
        metavar="GLOB",
        help="columns to watch (repeatable; default all)",
    )
    parser.add_argument("--exclude", action="append", metavar="GLOB", help="columns not to watch")
    parser.add_argument(
        "--group-by", action="append", metavar="COLUMN", help="per value of COLUMN (repeatable)"
    )
    parser.add_argument(
        "--name", help="the dataset name in the history (default: from the path or table)"
    )
    parser.add_argument(
        "--input-format",
        choices=("parquet", "csv", "json"),
        help="how to read a path (default: by its extension)",
    )
    parser.add_argument(
        "-r",
        "--repository",
        help=f"DuckDB file (default ${REPOSITORY_VARIABLE} or ./{DEFAULT_REPOSITORY})",
    )
    parser.add_argument("--master", default="local[*]", help="Spark master (default local[*])")
    parser.add_argument("--format", choices=("text", "json"), default="text", help="output")
    parser.add_argument("-q", "--quiet", action="store_true", help="no progress lines")
    parser.add_argument("--debug", action="store_true", help="tracebacks and debug logging")
    parser.set_defaults(handler=monitor_command)
    return parser


def monitor_command(args: argparse.Namespace) -> int:
    """Run the monitors once (after an optional backfill); exit with the run's status."""
    from pydantic import ValidationError

    from anomaly.config.config import ServiceConfig
    from anomaly.config.periods import parse_time
    from anomaly.config.problems import from_pydantic
    from anomaly.judging.exit_reason import exit_reason
    from anomaly.monitors.explain import explain
    from anomaly.service.backfill import backfill
    from anomaly.service.progress import Progress
    from anomaly.service.scan import ScanRunner

    timed = args.time_column is not None
    if args.backfill and not timed:
        raise ConfigurationError("--backfill needs --time-column (partitions of event time)")
    try:
        config = ServiceConfig.model_validate(config_of(args))
    except ValidationError as error:
        problems = [from_pydantic(e).render() for e in error.errors()]
        raise ConfigurationError("; ".join(problems)) from None
    name = next(iter(config.scans))
    progress = Progress.silent() if args.quiet else Progress.to_stream(sys.stderr)
    runner = ScanRunner(config, progress=progress)
    at = parse_time(args.at) if args.at else None
    if args.backfill:
        _ = runner.spark
        last = runner.run_time(name, datetime.now(UTC), at)
        history = backfill(runner, name, until=last - timedelta(seconds=1))
        progress.step(history.headline())
    report = runner.run(name, at=None if timed else at, period=at if timed else None, alert=False)
    if args.format == "json":
        print(json.dumps(report.to_dict(), indent=2))
    else:
        print(report.headline())
        for finding in report.problems:
            for line in explain(finding, report, runner.repository, runner.tags(name)):
                print(f"  {line}")
        progress.step(f"history in {runner.repository.path}")
    reason = exit_reason("monitor", [report])
    if reason:
        print(reason, file=sys.stderr)
    return int(report.status)


def config_of(args: argparse.Namespace) -> dict[str, Any]:
    """The config of a one-scan service for these arguments.

    >>> args = argparse.Namespace(source="/data/orders.csv", time_column=None, partition=None,
    ...     monitors="volume,schema", include=None, exclude=None, group_by=None, name=None,
    ...     input_format=None, repository="m.duckdb", master="local[2]")
    >>> config = config_of(args)
    >>> config["sources"], config["scans"]["orders"]["monitors"]
    ({'orders': {'path': '/data/orders.csv'}}, ['volume', 'schema'])
    """
    from anomaly.config.monitor_config import KINDS  # pydantic models: not for --help

    if args.partition and not args.time_column:
        raise ConfigurationError("--partition needs --time-column")
    is_path = (
        "://" in args.source
        or "/" in args.source
        or Path(args.source).suffix.lower() in (".parquet", ".csv", ".json", ".jsonl")
        or Path(args.source).exists()
    )
    source: dict[str, Any] = (
        {"path": str(Path(args.source).resolve()) if "://" not in args.source else args.source}
        if is_path
        else {"table": args.source}
    )
    if args.input_format:
        source["format"] = args.input_format
    if args.time_column:
        source["time_column"] = args.time_column
    if args.partition:
        source["partition"] = args.partition
    name = args.name or _name(args.source, is_path)
    chosen = [m.strip() for m in args.monitors.split(",") if m.strip()]
    monitors: Any = chosen[0] if chosen == ["auto"] else chosen
    if args.include or args.exclude:
        if monitors != "auto" and "columns" not in monitors:
            raise ConfigurationError(
                "--include and --exclude choose the columns of the columns "
                "monitor, which --monitors leaves out"
            )
        options = {"include": args.include or ["*"], "exclude": args.exclude or []}
        names = list(KINDS) if monitors == "auto" else monitors
        monitors = [m for m in names if m != "columns"] + [{"columns": options}]
    scan: dict[str, Any] = {"source": name, "monitors": monitors}
    if args.group_by:
        scan["group_by"] = args.group_by
    repository = args.repository or os.environ.get(REPOSITORY_VARIABLE) or DEFAULT_REPOSITORY
    return {
        "repository": str(Path(repository).expanduser().resolve()),
        "spark": {"master": args.master},
        "sources": {name: source},
        "scans": {name: scan},
    }


def _name(source: str, is_path: bool) -> str:
    """A dataset name: a path's last part without extension, a table's name without database.

    >>> _name("s3a://lake/raw/orders.parquet/", True), _name("sales.daily orders", False)
    ('orders', 'daily_orders')
    """
    last = re.split(r"[/\\]", source.rstrip("/"))[-1]
    stem = last.split(".")[0] if is_path else last.split(".")[-1]
    cleaned = re.sub(r"[^A-Za-z0-9_.-]", "_", stem).strip("_.-")
    return cleaned or "source"

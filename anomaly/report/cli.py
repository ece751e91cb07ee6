"""``anomaly report`` (the HTML file) and the ``--ui`` options of ``anomaly serve``."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import Any

from anomaly.cli_options import add_run_filters
from anomaly.errors import ConfigurationError


def register(commands: Any) -> argparse.ArgumentParser:
    """Add the ``report`` sub-command to an argparse sub-parsers object."""
    parser: argparse.ArgumentParser = commands.add_parser(
        "report",
        help="write the HTML report of a repository (one self-contained file, works offline)",
        description="Write one self-contained HTML file with the repository's datasets, scans, "
        "series, anomalies, check outcomes and annotations (no Spark needed).",
    )
    parser.add_argument("config", nargs="?", metavar="CONFIG", help="the YAML config file")
    parser.add_argument(
        "-r", "--repository", metavar="FILE|URL", help="a repository file or PostgreSQL URL instead"
    )
    parser.add_argument(
        "-o",
        "--output",
        default="report.html",
        metavar="FILE",
        help="where to write the report (default report.html)",
    )
    add_run_filters(parser)
    parser.add_argument("--title", help="the report's title")
    parser.add_argument("-q", "--quiet", action="store_true", help="print nothing on success")
    parser.add_argument("--debug", action="store_true", help="tracebacks and debug logging")
    parser.set_defaults(handler=report_command)
    return parser


def report_command(args: argparse.Namespace) -> int:
    """Write the report and print its path and size."""
    from anomaly.report.page import write_report

    repo = _repository_of(args)
    tags = _tags(args)
    path = write_report(repo, args.output, tags=tags, title=args.title)
    if not args.quiet:
        print(f"wrote {path} ({path.stat().st_size / 1e6:.1f} MB)")
    return 0


def add_ui_arguments(parser: argparse.ArgumentParser) -> None:
    """``--ui [HOST:PORT]`` and ``--ui-token-env`` for ``anomaly serve``."""
    from anomaly.report.ui_defaults import DEFAULT_ADDRESS, TOKEN_VARIABLE

    parser.add_argument(
        "--ui",
        nargs="?",
        const=DEFAULT_ADDRESS,
        metavar="HOST:PORT",
        help=f"also serve the read-only web UI and JSON API (default {DEFAULT_ADDRESS}; "
        "loopback unless a HOST is given)",
    )
    parser.add_argument(
        "--ui-token-env",
        default=TOKEN_VARIABLE,
        metavar="VARIABLE",
        help=f"environment variable holding the UI's bearer token (default {TOKEN_VARIABLE}; "
        "no token when unset)",
    )


def start_ui(args: argparse.Namespace, repository: str, checks: Sequence[Any] = ()) -> Any:
    """The started `UIServer` when ``--ui`` was given, else None (``checks``: more liveness
    checks for ``/api/health``, e.g. ``health.scheduler_running``)."""
    if not getattr(args, "ui", None):
        return None
    from anomaly.report.opening import open_for_reading as open_path
    from anomaly.report.serving import UIServer, parse_address, token_from_environment

    host, port = parse_address(args.ui)
    token = token_from_environment(args.ui_token_env)
    return UIServer(open_path(repository), host, port, token=token, health_checks=checks).start()


def _repository_of(args: argparse.Namespace) -> Any:
    """The repository of CONFIG or ``--repository`` (exactly one, a file or a PostgreSQL URL),
    opened to read."""
    from anomaly.config.repository_option import repository_of_config
    from anomaly.report.opening import open_for_reading as open_path

    if (args.config is None) == (args.repository is None):
        raise ConfigurationError("give either CONFIG or --repository FILE|URL (exactly one)")
    location = repository_of_config(args.config) if args.config else args.repository
    return open_path(location)


def _tags(args: argparse.Namespace) -> dict[str, str]:
    from anomaly.config.parameters import pairs
    from anomaly.config.tags import SCAN_TAG

    tags = dict(pairs(args.tag, "--tag"))
    if args.scan:
        tags[SCAN_TAG] = args.scan
    return tags

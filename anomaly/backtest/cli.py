"""``anomaly backtest``: replay detectors over stored histories and score them against labels.

Wire it with ``register(commands)`` on the CLI's sub-parsers; the handler returns the exit
code (0, or 3 through the CLI's error handling for bad arguments).
"""

from __future__ import annotations

import argparse
import ast
import json
import re
from typing import Any

from anomaly.cli_options import add_group_filter, add_run_filters
from anomaly.errors import ConfigurationError
from detectors.errors import DetectorLoadError

WRAPPERS = ("AlertFatigue", "AllOf", "AnyOf", "KOfLastN")
"""Detectors of detectors, by name (in ``detectors``)."""
DEFAULT_DETECTORS = ("Adaptive()", "OnlineNormal(4, 4, ignore_anomalies=False)")
TIME = "ISO date or time, UTC unless it has an offset (2026-03-31, 2026-03-31T06:00Z)"


def register(commands: Any) -> argparse.ArgumentParser:
    """Add ``backtest`` to the CLI's sub-parsers (``parser.add_subparsers()``)."""
    text = "replay detectors over stored histories, day by day, and score them against labels"
    parser: argparse.ArgumentParser = commands.add_parser(
        "backtest",
        help=text,
        description=text,
        epilog="exit codes: 0 ok, 3 failure (bad arguments, unknown metric or repository)",
    )
    parser.set_defaults(handler=backtest_command)
    where = parser.add_mutually_exclusive_group(required=True)
    where.add_argument("-c", "--config", metavar="CONFIG", help="use the config's repository")
    where.add_argument("-r", "--repository", metavar="PATH", help="a DuckDB repository file")
    add_run_filters(parser)
    parser.add_argument("metrics", nargs="+", metavar="METRIC", help="metric ids, e.g. 'Size(*)'")
    parser.add_argument(
        "-d",
        "--detector",
        action="append",
        metavar="SPEC",
        help="a detector as Python call syntax, repeatable, compared side by side: "
        "'OnlineNormal', 'RobustMAD(window=28)', "
        "'AlertFatigue(OnlineNormal(), first_of_run=True, cooldown=3)', "
        f"'package.module:Class(x=1)' (default: {', '.join(DEFAULT_DETECTORS)})",
    )
    add_group_filter(parser)
    parser.add_argument("--since", metavar="TIME", help=f"first point to judge; {TIME}")
    parser.add_argument("--until", metavar="TIME", help="last point to judge (inclusive)")
    parser.add_argument(
        "--labels",
        default="repository",  # backtest.run.FROM_REPOSITORY, not imported: it loads numba
        metavar="SOURCE",
        help="'repository' (annotations, default), 'none', or a CSV file "
        "(kind,start,end,metric_id,group,note)",
    )
    parser.add_argument(
        "--include-excluded",
        action="store_true",
        help="let points annotated 'excluded' serve as history",
    )
    parser.add_argument(
        "--format",
        choices=("table", "json"),
        default="table",
        help="output on stdout (default table)",
    )
    parser.add_argument("--totals-only", action="store_true", help="no per-series rows")
    parser.add_argument(
        "--curve",
        action="store_true",
        help="print each detector's operating curve instead: recall at 0.05, 0.1, 0.3 and 1 "
        "false alerts per 100 clean checks, sweeping its sensitivity (needs labels)",
    )
    parser.add_argument("--json", metavar="FILE", help="also write the result as JSON")
    parser.add_argument("--plot", metavar="FILE", help="also write a PNG with alerts marked")
    parser.add_argument("-q", "--quiet", action="store_true", help="no progress lines")
    parser.add_argument("--debug", action="store_true", help="tracebacks and debug logging")
    return parser


def backtest_command(args: argparse.Namespace) -> int:
    """Run the backtest the arguments describe and print it; returns the exit code."""
    from anomaly.backtest.run import backtest
    from anomaly.config.parameters import pairs
    from anomaly.config.periods import parse_time
    from anomaly.config.repository_option import open_repository

    detectors = {spec: parse_detector(spec) for spec in args.detector or DEFAULT_DETECTORS}
    repo, tags = open_repository(args)
    group = dict(pairs(args.group, "--group"))
    labels = None if args.labels == "none" else args.labels
    options: dict[str, Any] = {
        "metrics": args.metrics,
        "tags": tags or None,
        "groups": [group] if group else None,
        "since": parse_time(args.since) if args.since else None,
        "until": parse_time(args.until) if args.until else None,
        "labels": labels,
        "exclude_annotated": not args.include_excluded,
    }
    if args.curve:
        return _curve(repo, detectors, options, args.format)
    result = backtest(repo, detectors, **options)
    if not result.series:
        raise ConfigurationError(
            f"no stored points of {', '.join(args.metrics)} match these filters "
            f"(tags {tags or 'any'}, group {group or 'any'})"
        )
    print(result.to_json() if args.format == "json" else result.table(not args.totals_only))
    if args.json:
        result.to_json(args.json)
    if args.plot:
        result.plot(args.plot)
    return 0


def _curve(repo: Any, detectors: dict[str, Any], options: dict[str, Any], form: str) -> int:
    """Print the operating curve of each detector (``curve.py``)."""
    from anomaly.backtest.curve import operating_curve

    try:
        curve = operating_curve(repo, detectors, **options)
    except ValueError as error:
        raise ConfigurationError(f"--curve: {error}") from None
    if curve.clean_checks == 0 and curve.incidents == 0:
        raise ConfigurationError(
            f"--curve: no judged points of {', '.join(options['metrics'])} match these filters"
        )
    print(json.dumps(curve.to_dict(), indent=2) if form == "json" else curve.table())
    return 0


def parse_detector(spec: str) -> Any:
    """A detector from Python call syntax; only literal arguments and nested detectors.

    Examples
    --------
    >>> parse_detector("AlertFatigue(RobustMAD(window=28), cooldown=3)")
    AlertFatigue(detector=RobustMAD(..., window=28, min_history=5), ..., cooldown=3)
    >>> parse_detector("OnlineNormal(upper_deviation_factor=4)").upper_deviation_factor
    4
    >>> parse_detector("Bogus(1)")
    Traceback (most recent call last):
    anomaly.errors.ConfigurationError: detector 'Bogus(1)': unknown detector 'Bogus': use one of ...
    """
    from detectors.registry import detector_factory

    text = spec.strip()
    try:
        path = re.fullmatch(r"([\w.]+:[\w.]+)\s*(?:\((.*)\))?", text, re.DOTALL)
        if path:  # a user detector by import path: its arguments only are parsed
            call = ast.parse(f"f({path[2] or ''})", mode="eval").body
            assert isinstance(call, ast.Call)
            return _call(detector_factory(path[1]), call)
        return _build(ast.parse(text, mode="eval").body)
    except (SyntaxError, ValueError, TypeError, DetectorLoadError) as error:
        raise ConfigurationError(f"detector {spec!r}: {error}") from None


def _factory(name: str) -> Any:
    if name in WRAPPERS:
        import detectors

        return getattr(detectors, name)
    from detectors.registry import BUILTINS

    if name in BUILTINS:
        return BUILTINS[name]
    known = ", ".join(sorted([*BUILTINS, *WRAPPERS]))
    raise ValueError(f"unknown detector {name!r}: use one of {known} or 'package.module:Class'")


def _build(node: ast.expr) -> Any:
    if isinstance(node, ast.Name):
        return _factory(node.id)()
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
        return _call(_factory(node.func.id), node)
    raise ValueError("expected a detector such as OnlineNormal or RobustMAD(window=28)")


def _call(factory: Any, node: ast.Call) -> Any:
    args = [_argument(a) for a in node.args]
    kwargs = {k.arg: _argument(k.value) for k in node.keywords if k.arg is not None}
    return factory(*args, **kwargs)


def _argument(node: ast.expr) -> Any:
    if isinstance(node, ast.Name | ast.Call):
        return _build(node)
    return ast.literal_eval(node)

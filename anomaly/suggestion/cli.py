"""``anomaly suggest PATH [--sample 0.1] [--format code|json|table]``: suggest constraints."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from anomaly.errors import ConfigurationError

READERS = ("csv", "parquet", "json")
FORMATS = ("code", "json", "table")
"""``render.FORMATS``, named here: importing ``render`` loads the analyzers and pandas, which
``anomaly --help`` does not need (tests/anomaly/test_cli_imports.py checks they agree)."""


def register(commands: Any) -> argparse.ArgumentParser:
    """Add the ``suggest`` sub-command to an argparse sub-parsers object."""
    parser: argparse.ArgumentParser = commands.add_parser(
        "suggest",
        help="suggest data-quality constraints for a data set (Deequ's rules)",
        description="Profile a sample of PATH and print suggested Check constraints.",
    )
    parser.add_argument(
        "path",
        help="a CSV (read with a header, every column as text), parquet or JSON file or directory",
    )
    parser.add_argument(
        "--sample", type=float, default=0.1, help="fraction of rows to profile (0.1; 1 for all)"
    )
    parser.add_argument("--format", choices=FORMATS, default="table", help="output format")
    parser.add_argument(
        "--input-format", choices=READERS, help="how to read PATH (default: by its extension)"
    )
    parser.add_argument("--table", help="table name for the column-name model (default: stem)")
    parser.add_argument(
        "--evaluate", action="store_true", help="also measure coverage on the rows not sampled"
    )
    parser.add_argument("--master", default="local[*]", help="Spark master (default local[*])")
    parser.set_defaults(handler=suggest_command)
    return parser


def suggest_command(args: argparse.Namespace) -> int:
    """Run the suggestion and print it; 0 on success (errors raise `AnomalyError`)."""
    from pyspark.sql import SparkSession

    from anomaly.spark import build_session
    from anomaly.suggestion.render import reader_code, render
    from anomaly.suggestion.runner import ConstraintSuggestionRunner

    path = Path(args.path)
    if not path.exists():
        raise ConfigurationError(f"PATH {str(path)!r} does not exist")
    if not 0.0 < args.sample <= 1.0:
        raise ConfigurationError(f"--sample must be in (0, 1], got {args.sample}")
    if args.evaluate and args.sample >= 1.0:
        raise ConfigurationError(
            "--evaluate needs --sample below 1 (coverage is measured on the rest)"
        )
    kind = args.input_format or {".csv": "csv", ".json": "json"}.get(path.suffix.lower(), "parquet")
    spark = SparkSession.getActiveSession() or build_session(master=args.master)
    reader = spark.read.option("header", "true") if kind == "csv" else spark.read
    try:
        df = getattr(reader, kind)(str(path))
    except Exception as error:
        from anomaly.errors import spark_error_message

        raise ConfigurationError(
            f"cannot read {str(path)!r} as {kind}: {spark_error_message(error)}"
        ) from error
    table = args.table or path.stem
    runner = ConstraintSuggestionRunner().on_data(df).table(table)
    if args.sample < 1.0:
        runner = runner.sample(args.sample)
    result = runner.evaluate_on_rest(args.evaluate).run()
    print(render(result, args.format, reader_code(kind, str(path.resolve()))))
    return 0

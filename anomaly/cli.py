"""The `anomaly` command line. Exit codes: 0 ok, 1 warnings, 2 errors/anomalies, 3 failure."""

from __future__ import annotations

import argparse
import sys

from anomaly.errors import AnomalyError

EXIT_OK, EXIT_WARNING, EXIT_ERROR, EXIT_FAILURE = 0, 1, 2, 3


def build_parser() -> argparse.ArgumentParser:
    """The argument parser with every sub-command."""
    parser = argparse.ArgumentParser(
        prog="anomaly", description="Data-quality metrics on Spark, anomaly detection on history."
    )
    commands = parser.add_subparsers(dest="command", required=True)
    demo = commands.add_parser(
        "demo", help="run the whole loop on generated data with the embedded defaults"
    )
    demo.add_argument("--days", type=int, default=90, help="days of generated history")
    demo.add_argument("--master", default="local[*]", help="Spark master (default local[*])")
    demo.set_defaults(handler=_demo)
    return parser


def _demo(args: argparse.Namespace) -> int:
    from anomaly.demo import run_demo

    return run_demo(days=args.days, master=args.master)


def main(argv: list[str] | None = None) -> int:
    """Entry point of the `anomaly` console script."""
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exit_:
        return EXIT_OK if exit_.code == 0 else EXIT_FAILURE
    try:
        code: int = args.handler(args)
    except AnomalyError as error:
        print(f"anomaly {args.command}: {error}", file=sys.stderr)
        return EXIT_FAILURE
    return code


if __name__ == "__main__":
    sys.exit(main())

"""Command-line options that several ``anomaly`` sub-commands share, each written once.

The sub-commands that read stored runs (``history``, ``anomalies``, ``plot``, ``report``,
``backtest``...) narrow them the same way: by scan, by tags, by group.

>>> import argparse
>>> parser = argparse.ArgumentParser()
>>> add_run_filters(parser)
>>> add_group_filter(parser)
>>> parser.parse_args(["--tag", "env=prod", "--group", "country=DE"])
Namespace(scan=None, tag=['env=prod'], group=['country=DE'])
"""

from __future__ import annotations

import argparse


def add_run_filters(parser: argparse.ArgumentParser) -> None:
    """``--scan NAME`` and ``--tag NAME=VALUE`` (repeatable): only the runs they match."""
    parser.add_argument("--scan", metavar="NAME", help="only runs of this scan")
    parser.add_argument(
        "--tag", action="append", metavar="NAME=VALUE", help="only runs with this tag (repeatable)"
    )


def add_group_filter(parser: argparse.ArgumentParser) -> None:
    """``--group COLUMN=VALUE``, repeatable for a group of several columns."""
    parser.add_argument(
        "--group",
        action="append",
        metavar="COLUMN=VALUE",
        help="only this group (repeatable for several columns)",
    )

"""The repository a query command reads: the config's (``-c``) or a path or URL (``-r``).

A module of its own so that ``anomaly history -r FILE`` never loads the config's models:
they are imported only when ``-c`` names a config file.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from anomaly.config.parameters import pairs
from anomaly.config.tags import SCAN_TAG
from anomaly.errors import ConfigurationError
from repository import MetricsRepository
from repository.backends import is_url


def open_repository(args: argparse.Namespace) -> tuple[MetricsRepository, dict[str, str]]:
    """The repository of ``--config`` or ``--repository`` and the tag filter (``--scan``,
    ``--tag``).

    >>> args = argparse.Namespace(config=None, repository=":memory:", tag=["env=prod"],
    ...                           scan="daily")
    >>> repo, tags = open_repository(args)
    >>> tags
    {'env': 'prod', 'scan': 'daily'}
    """
    if args.config:
        from anomaly.config.loading import load_config

        path = load_config(args.config).repository
    else:
        path = args.repository
    if path != ":memory:" and not is_url(path) and not Path(path).exists():
        raise ConfigurationError(f"repository {path!r} does not exist (run a scan first)")
    tags = dict(pairs(args.tag, "--tag"))
    if args.scan:
        tags[SCAN_TAG] = args.scan
    return MetricsRepository(path), tags

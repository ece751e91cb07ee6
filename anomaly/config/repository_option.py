"""The repository a query command reads: the config's (``-c``) or a path or URL (``-r``).

A module of its own so that the query commands never load the config's models: ``-c`` reads
only the file's ``repository`` key (`anomaly.config.repository_path`).
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
    path = repository_of_config(args.config) if args.config else args.repository
    if path != ":memory:" and not is_url(path) and not Path(path).exists():
        raise ConfigurationError(f"repository {path!r} does not exist (run a scan first)")
    tags = dict(pairs(args.tag, "--tag"))
    if args.scan:
        tags[SCAN_TAG] = args.scan
    return MetricsRepository(path), tags


def repository_of_config(path: str) -> str:
    """The repository the config file names, read without validating the rest of the file;
    when that key cannot be read so, the whole file is validated (`load_config`) for the
    error, with its line."""
    from anomaly.config.repository_path import configured_repository  # YAML: for -c only

    found = configured_repository(path)
    if found is None:
        from anomaly.config.loading import load_config

        found = load_config(path).repository
    return found

"""Where a config's repository is: the one rule (relative paths are relative to the config
file), and a reader that finds it without validating the rest of the file.

The query commands (``history -c``, ``anomalies -c``, ``report CONFIG``) need nothing else of
the config: reading only its ``repository`` key spares them the config's models (pydantic,
every section's validation) and a scan section's mistake does not stop a query.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from anomaly.config.interpolation import InterpolationError, interpolate_tree
from anomaly.config.yaml_file import read_yaml

DEFAULT_REPOSITORY = "metrics.duckdb"
REPOSITORY = "repository"


def resolve_repository(value: str, base_dir: Path | None) -> str:
    """`value` relative to the config's directory `base_dir`; ``:memory:`` and URLs as they are.

    >>> resolve_repository("postgresql://q@db/metrics", Path("/etc"))
    'postgresql://q@db/metrics'
    >>> resolve_repository("data/metrics.duckdb", Path("/srv/quality"))
    '/srv/quality/data/metrics.duckdb'
    """
    if base_dir is None or value == ":memory:" or _is_url(value):  # a postgresql:// URL
        return value
    return str((Path(base_dir) / Path(value).expanduser()).resolve())


def _is_url(value: str) -> bool:
    """`repository.backends.is_url`, imported for text with ``://`` only (the backends load
    DuckDB and Arrow, which validating a config with a file path does not need)."""
    if "://" not in value:
        return False
    from repository.backends import is_url

    return is_url(value)


def configured_repository(
    path: str | os.PathLike[str], env: Mapping[str, str] | None = None
) -> str | None:
    """The repository the config file `path` names (its ``${VAR}`` resolved), or None when
    the file is not a mapping or that key is not plain text: `load_config` then says why, with
    the line. A file that cannot be read or parsed raises `ConfigFileError` as `load_config`
    does.

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     config = Path(tmp) / "anomaly.yml"
    ...     _ = config.write_text("repository: ${DIR}/m.duckdb\\nscans: {broken: 3}\\n")
    ...     configured_repository(config, {"DIR": "/data"})
    '/data/m.duckdb'
    """
    file = Path(path)
    data, _ = read_yaml(file)
    if not isinstance(data, dict):
        return None
    try:
        value = interpolate_tree(
            data.get(REPOSITORY, DEFAULT_REPOSITORY),
            os.environ if env is None else env,
            (REPOSITORY,),
        )
    except InterpolationError:
        return None
    return resolve_repository(value, file.parent) if isinstance(value, str) else None

"""Opening a repository only to read it: the report and the UI never create or write one."""

from __future__ import annotations

from pathlib import Path

from anomaly.errors import ConfigurationError
from repository import MetricsRepository


def open_for_reading(path: str) -> MetricsRepository:
    """The repository at `path`, which must exist (a missing file is an error, never created).

    Reads attach the file read-only under the shared lock; a file of an older schema version
    is upgraded on open, as by every reader of this release (``docs/repository.md``).

    >>> open_for_reading("/nonexistent/metrics.duckdb")
    Traceback (most recent call last):
    anomaly.errors.ConfigurationError: repository '/nonexistent/metrics.duckdb' does not exist ...
    """
    if path == ":memory:":
        raise ConfigurationError(
            "an in-memory repository belongs to the process that made it: give a file"
        )
    if "://" not in path and not Path(path).expanduser().exists():
        raise ConfigurationError(f"repository {path!r} does not exist (run a scan first)")
    return MetricsRepository(str(Path(path).expanduser()) if "://" not in path else path)

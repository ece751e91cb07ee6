"""Opening a repository only to read it: the report and the UI never create or write one."""

from __future__ import annotations

from pathlib import Path

from anomaly.errors import ConfigurationError
from repository import MetricsRepository
from repository.backends import Cursor, describe, is_url, open_backend
from repository.schema import schema_version


def open_for_reading(location: str) -> MetricsRepository:
    """The repository at `location`, a file or a PostgreSQL URL, which must hold one already (a
    missing file, or a schema without a repository, is an error: nothing is ever created).

    Reads attach the file read-only under the shared lock, or run in read-only transactions on
    PostgreSQL; a repository of an older schema version is upgraded on open, as by every reader
    of this release (``docs/repository.md``). Messages never show a URL's password.

    >>> open_for_reading("/nonexistent/metrics.duckdb")
    Traceback (most recent call last):
    anomaly.errors.ConfigurationError: repository '/nonexistent/metrics.duckdb' does not exist ...
    """
    if location == ":memory:":
        raise ConfigurationError(
            "an in-memory repository belongs to the process that made it: give a file"
        )
    if is_url(location):
        _holds_a_repository(location)
        return MetricsRepository(location)
    if "://" in location:  # an unsupported scheme: the repository's own error names it
        return MetricsRepository(location)
    path = Path(location).expanduser()
    if not path.exists():
        raise ConfigurationError(f"repository {location!r} does not exist (run a scan first)")
    return MetricsRepository(str(path))


def _holds_a_repository(url: str) -> None:
    """Raise unless the schema of ``url`` holds a repository, looking without writing (opening
    a ``MetricsRepository`` on an empty schema would create one there)."""
    versions: list[int] = []

    def look(cur: Cursor, writable: bool) -> bool:
        versions.append(schema_version(cur))  # raises for a schema of something else's tables
        return True  # never create nor migrate here

    # The backend's own checks: a bad URL, refused credentials or an unreachable server fail
    # here with their messages, the password masked.
    open_backend(url, 30.0, look).close()
    if versions == [0]:
        raise ConfigurationError(
            f"{describe(url)} holds no metrics repository (its schema has no tables): run a scan "
            "first, or check the URL's database and search_path"
        )

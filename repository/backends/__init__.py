"""Where a repository lives: a DuckDB file (embedded) or a PostgreSQL database (a server).

``open_backend(location)`` picks the backend from the location: a ``postgresql://`` (or
``postgres://``) URL opens ``PostgresBackend``, anything else without a ``scheme://`` is a DuckDB
file path (or ``":memory:"``). Both implement ``base.Backend`` and ``base.Cursor``; their SQL
differs only where ``dialects`` says. A third store is a new subpackage with those three pieces
and a branch in ``open_backend``.
"""

from __future__ import annotations

import os
import re
from typing import TYPE_CHECKING

from repository.backends.postgres.url import SCHEMES, is_url, mask_passwords
from repository.errors import RepositoryURLError
from repository.lazy_names import lazy_names

if TYPE_CHECKING:  # loaded when used: `describe` and `is_url` need neither DuckDB nor Arrow
    from repository.backends.base import Backend, Cursor, OnOpen, SqlCursor
    from repository.backends.dialects import Dialect
else:
    __getattr__, __dir__ = lazy_names(__name__)

_SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*)://")


def open_backend(location: str | os.PathLike[str], lock_timeout: float, on_open: OnOpen) -> Backend:
    """The backend of ``location``, opened (``on_open`` checks or migrates its schema)."""
    if is_url(location):
        from repository.backends.postgres.backend import PostgresBackend  # loads psycopg

        return PostgresBackend(str(location), lock_timeout, on_open)
    text = os.fspath(location)
    if scheme := _SCHEME.match(text):
        raise RepositoryURLError(
            f"{describe(text)}: {scheme.group(1)!r} is not a supported store; give a DuckDB "
            f"file path or a {' or '.join(f'{s}://' for s in SCHEMES)} URL"
        )
    from repository.backends.duckdb import DuckDBBackend

    return DuckDBBackend(location, lock_timeout, on_open)


def describe(location: str | os.PathLike[str]) -> str:
    """``location`` as it may be shown or logged: a URL with its password masked.

    >>> describe("postgresql://ana:s3cret@db:5432/metrics"), describe("metrics.duckdb")
    ('postgresql://ana:***@db:5432/metrics', 'metrics.duckdb')
    """
    text = os.fspath(location)
    return mask_passwords(text)[0] if _SCHEME.match(text) else text


__all__ = [
    "SCHEMES",
    "Backend",
    "Cursor",
    "Dialect",
    "SqlCursor",
    "describe",
    "is_url",
    "open_backend",
]

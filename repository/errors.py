"""Errors of the metrics repository; messages name the file, the value and what is allowed."""

from __future__ import annotations


class RepositoryError(Exception):
    """Base class of every error the repository raises on purpose.

    Examples
    --------
    >>> issubclass(RepositoryLockedError, RepositoryOpenError), issubclass(
    ...     RepositoryLockedError, TimeoutError)
    (True, True)
    """


class RepositoryOpenError(RepositoryError):
    """The file could not be opened as a metrics repository."""


class RepositoryLockedError(RepositoryOpenError, TimeoutError):
    """Another process kept the repository file locked for longer than ``lock_timeout``."""


class NotARepositoryError(RepositoryOpenError):
    """The file is not a DuckDB database, or a DuckDB database that is not a metrics repository."""


class CorruptRepositoryError(RepositoryOpenError):
    """DuckDB found the file damaged (e.g. a block checksum does not match)."""


class SchemaVersionError(RepositoryOpenError):
    """The file was written by a newer version of this package than the one running."""


class MigrationError(RepositoryError):
    """A forward migration failed; the file was left at its previous version."""


class AmbiguousSeriesError(RepositoryError, ValueError):
    """A query that must return one series matched several (metric names, groups or runs)."""

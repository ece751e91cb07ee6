"""Errors of the metrics repository; messages name the file or server (never a password), the
value and what is allowed."""

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
    """The file or database could not be opened as a metrics repository."""


class RepositoryURLError(RepositoryOpenError, ValueError):
    """The repository URL is malformed or names no supported store."""


class RepositoryAuthenticationError(RepositoryOpenError):
    """The database server refused the credentials (a wrong or missing password)."""


class RepositoryUnavailableError(RepositoryOpenError, ConnectionError):
    """The database server could not be reached, or the connection to it was lost."""


class RepositoryLockedError(RepositoryOpenError, TimeoutError):
    """Another process kept the repository locked for longer than ``lock_timeout`` (the file's
    lock, or a PostgreSQL repository's write lock)."""


class NotARepositoryError(RepositoryOpenError):
    """The file is not a DuckDB database, or a DuckDB database that is not a metrics repository."""


class CorruptRepositoryError(RepositoryOpenError):
    """DuckDB found the file damaged: a block checksum does not match, or the file is shorter
    than its own contents say (cut mid-way by a copy, a sync or a disk)."""


class RepositoryIOError(RepositoryError, OSError):
    """Reading or writing the repository's file failed (an I/O error of the disk, a read-only
    file system, a permission): the failed operation wrote nothing."""


class RepositoryFullError(RepositoryIOError):
    """The disk (or the PostgreSQL server's disk) is full: the failed write was rolled back and
    earlier runs are intact; free space and retry."""


class SchemaVersionError(RepositoryOpenError):
    """The repository was written by a newer version of this package than the one running."""


class MigrationError(RepositoryError):
    """A forward migration failed; the repository was left at its previous version."""


class UnstorableValueError(RepositoryError, ValueError):
    """A value the store cannot hold (PostgreSQL text cannot contain NUL characters)."""


class AmbiguousSeriesError(RepositoryError, ValueError):
    """A query that must return one series matched several (metric names, groups or runs)."""

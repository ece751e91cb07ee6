"""PostgreSQL and psycopg failures as repository errors that say what to do, never a password."""

from __future__ import annotations

import psycopg
import psycopg.errors

from repository.backends.postgres.url import Location
from repository.errors import (
    RepositoryAuthenticationError,
    RepositoryError,
    RepositoryFullError,
    RepositoryLockedError,
    RepositoryOpenError,
    RepositoryUnavailableError,
    RepositoryURLError,
    UnstorableValueError,
)

_AUTHENTICATION = (
    "password authentication failed",
    "no password supplied",
    "authentication failed",
    "pg_hba.conf",
    'role "',  # role "x" does not exist
)
_UNREACHABLE = (
    "connection refused",
    "could not connect",
    "timeout expired",
    "could not translate host name",  # libpq's DNS failure
    "failed to resolve host",  # psycopg 3.3's (it resolves names itself before libpq)
    "name or service not known",
    "temporary failure in name resolution",
    "server closed the connection",
    "network is unreachable",
    "no route to host",
    "could not receive data",
    "could not send data",
    "connection timed out",
    "the database system is",  # starting up / shutting down / in recovery mode
    "terminating connection",
    "consuming input failed",
)


def open_failure(location: Location, exc: psycopg.Error) -> RepositoryOpenError:
    """The repository error for a failed connection attempt to ``location``."""
    said = location.scrub(str(exc).strip().removeprefix("connection failed: "))
    lowered = said.lower()
    where = location.display
    malformed = "invalid" in lowered and any(
        word in lowered for word in ("dsn", "uri", "connection option")
    )
    if isinstance(exc, psycopg.ProgrammingError) or malformed:
        return RepositoryURLError(f"{where} is not a usable PostgreSQL URL: {said}")
    if any(marker in lowered for marker in _AUTHENTICATION):
        return RepositoryAuthenticationError(
            f"the server of {where} refused the credentials: {said}. Give the password in the "
            "environment (PGPASSWORD, or a ~/.pgpass file); a config file can take it as ${VAR}"
        )
    if "database" in lowered and "does not exist" in lowered:
        return RepositoryOpenError(
            f"{where}: {said}. Create the database first (e.g. createdb); the repository "
            "creates its tables itself"
        )
    if any(marker in lowered for marker in _UNREACHABLE):
        return RepositoryUnavailableError(f"cannot reach the PostgreSQL server of {where}: {said}")
    return RepositoryOpenError(f"cannot open {where} as a metrics repository: {said}")


def operation_failure(
    location: Location, exc: psycopg.Error, lock_timeout: float, statement_timeout: float = 0.0
) -> RepositoryError | None:
    """The repository error for a failure during an operation (None: not the store's fault,
    e.g. an error in SQL a user wrote; raise the driver's error as it is)."""
    said = location.scrub(str(exc).strip())
    if isinstance(exc, psycopg.errors.QueryCanceled) and "statement timeout" in said.lower():
        return RepositoryUnavailableError(
            f"the PostgreSQL server of {location.display} cancelled a statement that ran longer "
            f"than {statement_timeout:g} s (statement_timeout; waiting for the write lock may "
            f"add lock_timeout): the server is overloaded, or the operation is too large. "
            "Nothing of the operation was written; retry later, or give a larger "
            f"statement_timeout in the URL (PostgreSQL said: {said})"
        )
    if isinstance(exc, psycopg.errors.DiskFull):
        return RepositoryFullError(
            f"the PostgreSQL server of {location.display} has no space left on its disk: the "
            "write was rolled back and earlier runs are intact. Free space on the server, then "
            f"retry (PostgreSQL said: {said})"
        )
    if isinstance(exc, psycopg.errors.LockNotAvailable):
        return RepositoryLockedError(
            f"{location.display}: another writer held the repository's write lock for "
            f"{lock_timeout:g} s (lock_timeout); retry later or pass a larger lock_timeout "
            f"(PostgreSQL said: {said})"
        )
    if isinstance(exc, psycopg.DataError):
        return UnstorableValueError(
            f"{location.display} cannot store a value given: {said}; nothing was written"
        )
    if isinstance(exc, psycopg.OperationalError):
        return RepositoryUnavailableError(
            f"lost the connection to the PostgreSQL server of {location.display}: {said}"
        )
    return None

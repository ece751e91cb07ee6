"""The process's DuckDB instance, the repository files attached to it, and file helpers.

One in-memory DuckDB instance per process hosts every repository file (``ATTACH``-ed per
operation by ``backend.DuckDBBackend``); an ``Attachment`` records how one file is attached.
"""

from __future__ import annotations

import itertools
import os
import threading
from dataclasses import dataclass, field

import duckdb

from repository.backends.duckdb.locking import FileLock
from repository.errors import (
    CorruptRepositoryError,
    NotARepositoryError,
    RepositoryError,
    RepositoryFullError,
    RepositoryIOError,
    RepositoryLockedError,
    RepositoryOpenError,
)

MEMORY = ":memory:"
# Never download or load extensions implicitly: a SQLite file would otherwise make DuckDB fetch
# its sqlite extension over the network just to open it. Never resolve an unknown table name to a
# Python variable of the same name (DuckDB's replacement scans): only registered tables are seen.
_CONFIG: dict[str, str | bool | int | float | list[str]] = {
    "autoload_known_extensions": False,
    "autoinstall_known_extensions": False,
    "python_enable_replacements": False,
}


@dataclass(eq=False)
class Attachment:
    """One repository file of this process: how it is attached, locked and used.

    Examples
    --------
    >>> Attachment("/data/metrics.duckdb", "repo_1").writable is None  # not attached yet
    True
    """

    target: str
    alias: str
    # Guards everything below; waited on for running operations to finish.
    state: threading.Condition = field(default_factory=threading.Condition)
    writer: threading.Lock = field(default_factory=threading.Lock)
    writable: bool | None = None  # None: detached
    users: int = 0  # sessions and operations holding the file
    running: int = 0  # operations running (a session alone is not one)
    draining: bool = False  # a thread waits for the running operations to re-attach the file
    lock: FileLock | None = None
    # The file as this process left it; unchanged since means no need to check its schema again.
    left: tuple[int, ...] | None = None


class Registry:
    """The process's DuckDB instance and the files attached to it.

    Examples
    --------
    >>> registry = Registry()
    >>> registry.cursor().execute("SELECT 1").fetchone()
    (1,)
    >>> registry.attachment("/data/m.duckdb", "/data/m.duckdb").alias
    'repo_1'
    """

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.host: duckdb.DuckDBPyConnection | None = None
        self.attachments: dict[str, Attachment] = {}
        self.aliases = itertools.count(1)

    def attachment(self, key: str, target: str) -> Attachment:
        """The (shared) attachment record of a file, created on first use."""
        with self.lock:
            if key not in self.attachments:
                self.attachments[key] = Attachment(target, f"repo_{next(self.aliases)}")
            return self.attachments[key]

    def forget(self, key: str) -> None:
        """Drop the record of an in-memory database."""
        with self.lock:
            self.attachments.pop(key, None)

    def cursor(self) -> duckdb.DuckDBPyConnection:
        """A new cursor on the process's DuckDB instance (started on first use)."""
        with self.lock:
            if self.host is None:
                self.host = duckdb.connect(MEMORY, config=_CONFIG)
                self.host.execute("SET TimeZone = 'UTC'")
                # Every file is checkpointed when released anyway: checkpointing at commit
                # instead of first appending to the write-ahead log saves one synced write.
                self.host.execute("SET checkpoint_threshold = '0b'")
            return self.host.cursor()


_registry = Registry()
_inherited: list[Registry] = []


def _forget_after_fork() -> None:
    # The parent's DuckDB threads do not exist in a forked child: never use or finalise its
    # instance there (finalising could hang), start afresh instead.
    global _registry
    _inherited.append(_registry)
    _registry = Registry()


os.register_at_fork(after_in_child=_forget_after_fork)


def registry() -> Registry:
    """The registry of this process (a forked child gets a fresh one)."""
    return _registry


def identity(target: str) -> tuple[int, ...] | None:
    """Device, inode, size and modification time of a file (None if it is missing)."""
    if target == MEMORY:
        return None
    try:
        info = os.stat(target)
    except OSError:
        return None
    return info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns


def fsync(path: str) -> None:
    """Flush a file (or a directory's entries) to disk."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def open_error(target: str, exc: duckdb.Error, timeout: float) -> RepositoryError:
    """The repository error for DuckDB's refusal to attach ``target``."""
    said = str(exc)
    lowered = said.lower()
    if "could not set lock" in lowered:
        return RepositoryLockedError(
            f"{target} stayed locked for {timeout:g} s (lock_timeout) by a DuckDB client outside "
            f"this package (a shell or notebook keeps the file open); close it or pass a larger "
            f"lock_timeout. DuckDB said: {said}"
        )
    if "not a valid duckdb database" in lowered or ("extension" in lowered and "sqlite" in lowered):
        return NotARepositoryError(
            f"{target} is not a DuckDB database file (another format, or damaged beyond "
            f"recognition); point the repository at a new path. DuckDB said: {said}"
        )
    return file_error(target, exc) or RepositoryOpenError(
        f"cannot open {target} as a DuckDB database: {said}. Check that the path names a "
        "repository file this user may read (and, to write, write)"
    )


def file_error(target: str, exc: duckdb.Error) -> RepositoryError | None:
    """The repository error for DuckDB's failure to read or write ``target`` (None: not the
    file's fault, e.g. an error in SQL a user wrote: raise DuckDB's error as it is)."""
    said = str(exc)
    lowered = said.lower()
    if any(words in lowered for words in ("no space left", "disk quota", "file too large")):
        return RepositoryFullError(
            f"{target}: the disk holding it is full. The write was rolled back and earlier runs "
            "are intact. Free space on that disk (a save needs room for the blocks it changes, "
            f"compact() for a whole copy of the file) and retry. DuckDB said: {said}"
        )
    if any(words in lowered for words in ("could not read enough bytes", "corrupt", "checksum")):
        return CorruptRepositoryError(
            f"{target} is damaged: it ends before its own contents do, or a block does not "
            "match its checksum (the file was cut mid-way, e.g. by an interrupted copy, or "
            "overwritten). Restore it from a backup or an export_parquet() copy, or point the "
            f"repository at a new path. DuckDB said: {said}"
        )
    if isinstance(exc, duckdb.IOException) or "invalidated" in lowered:
        return RepositoryIOError(
            f"reading or writing {target} failed; the operation wrote nothing. Check the disk "
            "and the file's permissions (writing needs write access to the file and its "
            f"folder), then retry. DuckDB said: {said}"
        )
    return None

"""The DuckDB file backend: the file is opened for one operation at a time, safely across threads
and processes.

DuckDB lets one process open a file read-write, or several processes open it read-only, and a
process that keeps the file open blocks the others. So every operation holds the file only while
it runs:

* each process keeps one in-memory DuckDB instance (starting one costs ~10 ms) and ``ATTACH``-es
  the repository file to it for an operation (~0.5 ms), then ``DETACH``-es it. Reads attach it
  ``READ_ONLY``, writes read-write. A commit checkpoints straight into the file
  (``checkpoint_threshold`` 0), so an idle file never depends on a write-ahead log beside it;
* across processes, ``locking.FileLock`` is held from before ``ATTACH`` until after ``DETACH``:
  shared by readers, exclusive by writers. Readers therefore never wait for each other and only
  ever see a file that no writer has open, i.e. committed, checkpointed runs. (Without a lock,
  plain ``duckdb.connect()``/``close()`` per operation from 4 processes lost 1 or 2 of 1,000
  writes in each of our trials: a process opened the file while another was still finishing its
  checkpoint.) A foreign DuckDB client (a shell, a notebook) holding the file is retried with
  jittered backoff like the lock; both raise ``RepositoryLockedError`` after ``lock_timeout``;
* within a process, threads share the attached file (reference counted) and each gets its own
  cursor; write transactions are serialised by a per-file lock, so threads never hit DuckDB's
  write-write conflicts; reads run concurrently on MVCC snapshots. A write while the file is
  attached read-only (by a session or another thread's read) waits for the running operations,
  then re-attaches the file read-write under the exclusive lock; it stays so until released;
* the schema check (``on_open``) is skipped when the file is exactly as this process left it
  (same inode, size and modification time). A read that finds no file, or an older schema,
  opens the file read-write instead, to create or migrate it.

``DuckDBBackend.session()`` keeps the file attached across many operations (faster, but writers of
other processes wait meanwhile, and everyone once the session has written). ``":memory:"``
databases are attached read-write once and kept until ``close()``; they are private to the
process that made them.
"""

from __future__ import annotations

import contextlib
import os
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import duckdb

from repository.backends.base import Backend, OnOpen
from repository.backends.dialects import DUCKDB
from repository.backends.duckdb.compaction import copy_database, sort_points
from repository.backends.duckdb.cursor import DuckDBCursor
from repository.backends.duckdb.host import (
    MEMORY,
    Attachment,
    file_error,
    fsync,
    identity,
    open_error,
    registry,
)
from repository.backends.duckdb.locking import FIRST_DELAY, FileLock, backoff
from repository.errors import RepositoryError, RepositoryIOError

_running_here = threading.local()  # per thread: attachment key -> operations it is running
# A forked child starts with no attachment (see ``host``): none of its operations is running.
os.register_at_fork(after_in_child=lambda: _running_here.__dict__.clear())


class DuckDBBackend(Backend):
    """Leases the repository file to operations; see the module docstring for the protocol.

    Examples
    --------
    >>> backend = DuckDBBackend(":memory:", lock_timeout=1.0, on_open=lambda cur, writable: True)
    >>> with backend.cursor() as cur:
    ...     cur.execute("SELECT 42").fetchall()
    [(42,)]
    >>> backend.close()
    """

    dialect = DUCKDB

    def __init__(self, path: str | os.PathLike[str], lock_timeout: float, on_open: OnOpen) -> None:
        if lock_timeout < 0:
            raise ValueError(f"lock_timeout must be >= 0 seconds, got {lock_timeout!r}")
        text = os.fspath(path)
        self.in_memory = text == MEMORY
        self.target = MEMORY if self.in_memory else os.path.realpath(text)
        self.lock_timeout = lock_timeout
        self._key = f"{MEMORY}{uuid.uuid4().hex}" if self.in_memory else self.target
        self._on_open = on_open
        self._pinned = False
        if not self.in_memory:
            self._remove_leftovers()
        # Open once now: a locked, foreign, damaged or newer file fails here, not on first use.
        attachment = self._acquire(write=self.in_memory, operation=False)
        if self.in_memory:
            self._pinned = True
        else:
            self._release(attachment, operation=False)

    def close(self) -> None:
        """Release an in-memory database (its data is gone); file repositories hold nothing."""
        if self._pinned:
            self._pinned = False
            self._release(self._attachment(), operation=False)
            registry().forget(self._key)

    @contextmanager
    def session(self) -> Iterator[None]:
        """Keep the file attached for several operations: read-only (shared with other readers)
        until the first write, read-write (exclusive) from then on."""
        attachment = self._acquire(write=False, operation=False)
        try:
            yield
        finally:
            self._release(attachment, operation=False)

    @contextmanager
    def cursor(self) -> Iterator[DuckDBCursor]:
        """A cursor for reading: the file is attached read-only unless a write holds it."""
        attachment = self._acquire(write=False, operation=True)
        try:
            with self._cursor(attachment) as cur:
                yield cur
        finally:
            self._release(attachment, operation=True)

    @contextmanager
    def sql_cursor(self) -> Iterator[duckdb.DuckDBPyConnection]:
        """DuckDB's own cursor, reading (see ``cursor``)."""
        with self.cursor() as cur:
            yield cur.native

    @contextmanager
    def transaction(self) -> Iterator[DuckDBCursor]:
        """A cursor inside one write transaction: committed on success, rolled back on error."""
        attachment = self._acquire(write=True, operation=True)
        try:
            with attachment.writer, self._cursor(attachment) as cur, cur.atomic():
                yield cur
        finally:
            self._release(attachment, operation=True)

    def compact(self, recluster: bool) -> None:
        """Copy the file into a fresh one that replaces it (see ``compaction``); an in-memory
        database is only re-sorted in place."""
        if self.in_memory:
            if recluster:
                with self.transaction() as cur:
                    sort_points(cur)
            return
        self.rewrite(lambda cur, old, new: copy_database(cur, old, new, recluster))

    def rewrite(self, build: Callable[[DuckDBCursor, str, str], object]) -> None:
        """Replace the file by a rebuilt copy: ``build(cursor, old_alias, new_alias)`` fills a
        fresh database file from the attached one; it then atomically takes the file's place.

        Runs under the exclusive lock with no other operation of this process running, so no
        process has the old file open when it is replaced. On any error the old file stays.
        """
        if self.in_memory:
            raise ValueError("an in-memory repository has no file to rewrite")
        attachment = self._acquire(write=True, operation=True)
        try:
            with attachment.state:
                self._drain(attachment, own=1)
                try:
                    self._rewrite(attachment, build)
                finally:
                    attachment.draining = False
                    attachment.state.notify_all()
        finally:
            self._release(attachment, operation=True)

    def _rewrite(
        self, attachment: Attachment, build: Callable[[DuckDBCursor, str, str], object]
    ) -> None:
        folder = os.path.dirname(self.target)
        for leftover in _leftovers(self.target):
            os.remove(leftover)
        copy = f"{self.target}.compact-{uuid.uuid4().hex}"
        cur = registry().cursor()
        try:
            quoted = copy.replace("'", "''")
            cur.execute(f"ATTACH '{quoted}' AS {attachment.alias}_new")
            try:
                build(DuckDBCursor(cur), attachment.alias, f"{attachment.alias}_new")
            finally:
                cur.execute(f"DETACH {attachment.alias}_new")  # checkpoints the copy
            fsync(copy)
            self._detach(attachment)
            attachment.left = None
            try:
                os.replace(copy, self.target)
                fsync(folder)
            finally:
                try:
                    self._attach(attachment, time.monotonic() + self.lock_timeout)
                except BaseException:
                    attachment.writable = None  # released: the next operation opens it afresh
                    _unlock(attachment)
                    raise
        finally:
            cur.close()
            for path in (copy, f"{copy}.wal"):
                with contextlib.suppress(FileNotFoundError):
                    os.remove(path)

    def _remove_leftovers(self) -> None:
        """Delete the copies of compactions that were killed (each as large as the file), if
        no process has the file open now: a running compaction holds it exclusively."""
        if not _leftovers(self.target):
            return
        attachment = self._attachment()
        with attachment.state:
            # A second descriptor of the lock file would drop this process's own record locks
            # when closed: probe only while this process has the file closed.
            if attachment.writable is not None or attachment.draining:
                return
            probe = FileLock(self.target)
            try:
                probe.acquire(exclusive=True, deadline=time.monotonic(), timeout=0.0)
            except RepositoryError:  # in use (a compaction may be running), or not writable
                return
            try:
                for leftover in _leftovers(self.target):
                    with contextlib.suppress(FileNotFoundError):
                        os.remove(leftover)
            finally:
                probe.release()

    def _attachment(self) -> Attachment:
        return registry().attachment(self._key, self.target)

    @contextmanager
    def _cursor(self, attachment: Attachment) -> Iterator[DuckDBCursor]:
        cur = registry().cursor()
        try:
            cur.execute(f"USE {attachment.alias}")
            yield DuckDBCursor(cur)
        except duckdb.Error as exc:
            mapped = file_error(self.target, exc)
            if mapped is None:
                raise
            raise mapped from exc
        finally:
            cur.close()

    def _acquire(self, *, write: bool, operation: bool) -> Attachment:
        attachment = self._attachment()
        running: dict[str, int] = _running_here.__dict__.setdefault("counts", {})
        with attachment.state:
            while attachment.draining:
                attachment.state.wait()
            if attachment.writable is None:
                self._open(attachment, write)
            elif write and not attachment.writable:
                if running.get(self._key):
                    raise RepositoryError(
                        f"{self.target}: cannot write while this thread is reading the "
                        "repository (inside sql() or a cursor); finish reading first"
                    )
                self._drain(attachment, own=0)
                try:
                    self._close(attachment)
                    self._open(attachment, True)
                finally:
                    attachment.draining = False
                    attachment.state.notify_all()
            attachment.users += 1
            if operation:
                attachment.running += 1
                running[self._key] = running.get(self._key, 0) + 1
        return attachment

    def _release(self, attachment: Attachment, *, operation: bool) -> None:
        with attachment.state:
            attachment.users -= 1
            if operation:
                attachment.running -= 1
                _running_here.counts[self._key] -= 1
            try:
                if attachment.users == 0:
                    self._close(attachment)
            finally:
                attachment.state.notify_all()

    def _drain(self, attachment: Attachment, own: int) -> None:
        """Stop new operations and wait (holding ``state``) until only ``own`` ones run."""
        attachment.draining = True
        while attachment.running > own:
            attachment.state.wait()

    def _open(self, attachment: Attachment, write: bool) -> None:
        deadline = time.monotonic() + self.lock_timeout
        # Creating the file needs write access. (A write-ahead log left by a crash does not:
        # a read-only attach replays it in memory, and the next writer checkpoints it.)
        write = write or self.in_memory or not os.path.exists(self.target)
        if not self.in_memory:
            attachment.lock = FileLock(self.target)
            attachment.lock.acquire(exclusive=write, deadline=deadline, timeout=self.lock_timeout)
        try:
            attachment.writable = write
            self._attach(attachment, deadline)
            if attachment.left is not None and attachment.left == identity(self.target):
                return
            try:
                with self._cursor(attachment) as cur:
                    current = self._on_open(cur, write)
            except RepositoryError as exc:
                self._detach(attachment)
                raise type(exc)(f"{self.target}: {exc}") from exc
            except BaseException:
                self._detach(attachment)
                raise
        except BaseException:
            attachment.writable = None
            _unlock(attachment)
            raise
        if not current:  # an older schema: migrate it under the exclusive lock
            self._close(attachment)
            attachment.left = None
            try:
                self._open(attachment, True)
            except RepositoryIOError as exc:
                raise RepositoryIOError(
                    f"{self.target} was written by an older release and must be migrated to "
                    "this release's schema once, which needs write access: open it once where "
                    f"it can be written. {exc}"
                ) from exc

    def _close(self, attachment: Attachment) -> None:
        if attachment.writable is None:
            return
        attachment.left = None
        try:
            self._detach(attachment)
            attachment.left = identity(self.target)
        finally:
            attachment.writable = None
            _unlock(attachment)

    def _attach(self, attachment: Attachment, deadline: float) -> None:
        quoted = self.target.replace("'", "''")
        options = "" if attachment.writable else " (READ_ONLY)"
        delay = FIRST_DELAY
        while True:
            cur = registry().cursor()
            try:
                cur.execute(f"ATTACH '{quoted}' AS {attachment.alias}{options}")
                return
            except duckdb.Error as exc:
                if "Could not set lock" not in str(exc) or time.monotonic() >= deadline:
                    raise open_error(self.target, exc, self.lock_timeout) from exc
            finally:
                cur.close()
            delay = backoff(delay, deadline)

    def _detach(self, attachment: Attachment) -> None:
        cur = registry().cursor()
        try:
            cur.execute(f"DETACH {attachment.alias}")  # checkpoints a file attached to write
        except duckdb.Error as exc:
            raise file_error(self.target, exc) or open_error(self.target, exc, 0) from exc
        finally:
            cur.close()


def _leftovers(target: str) -> list[str]:
    """Copies left beside ``target`` by compactions (a killed one leaves its copy)."""
    folder, name = os.path.split(target)
    try:
        return [
            os.path.join(folder, entry)
            for entry in os.listdir(folder)
            if entry.startswith(f"{name}.compact-")
        ]
    except OSError:
        return []


def _unlock(attachment: Attachment) -> None:
    lock, attachment.lock = attachment.lock, None
    if lock is not None:
        lock.release()

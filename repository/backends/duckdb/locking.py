"""The cross-process reader-writer lock on ``<file>.lock``: shared to read, exclusive to write.

DuckDB allows one process to open a file read-write, or several processes to open it read-only,
never both: a read-only open fails while another process holds the file read-write, and the
reverse. So a process holds this lock from before it attaches the file until after it detaches
it, shared when it attaches read-only and exclusive when it attaches read-write; DuckDB's own
lock then never refuses a repository user.

Two POSIX record locks on the lock file implement it:

* byte 1, the *data* lock: readers hold it shared, writers exclusive;
* byte 0, the *turnstile*: a writer holds it exclusive while it waits for the data lock, and a
  reader must pass it (take it shared, release it at once) before taking the data lock. A waiting
  writer therefore stops new readers, so a stream of overlapping readers cannot starve it.

Record locks, rather than ``flock``, give two locks on one file. They belong to the process and
the kernel drops them when the process closes *any* descriptor of the lock file: only this module
opens it, once per attached repository, and ``backend`` keeps one holder per file per process.
They are not inherited by forked children, and die with their process, even by ``SIGKILL``. The
lock file is never deleted (deleting lock files races).
"""

from __future__ import annotations

import errno
import os
import random
import time

from repository.errors import RepositoryIOError, RepositoryLockedError

try:
    import fcntl
except ImportError:  # Windows: only DuckDB's own lock (with the same retries) protects the file.
    fcntl = None  # type: ignore[assignment]

FIRST_DELAY, MAX_DELAY = 0.001, 0.02
_TURNSTILE, _DATA = 0, 1


def backoff(delay: float, deadline: float) -> float:
    """Sleep a jittered ``delay`` (never past ``deadline``); returns the next, doubled, delay."""
    time.sleep(max(0.0, min(delay * random.uniform(0.5, 1.0), deadline - time.monotonic())))
    return min(delay * 2, MAX_DELAY)


class FileLock:
    """Shared or exclusive access to one repository file for this process.

    Examples
    --------
    >>> import tempfile, time
    >>> target = tempfile.mkdtemp() + "/metrics.duckdb"
    >>> lock = FileLock(target)
    >>> lock.acquire(exclusive=False, deadline=time.monotonic() + 1, timeout=1.0)
    >>> lock.held
    'shared'
    >>> lock.release()
    >>> lock.held is None
    True
    """

    def __init__(self, target: str) -> None:
        self.target = target
        self.held: str | None = None
        self._fd: int | None = None

    def acquire(self, *, exclusive: bool, deadline: float, timeout: float) -> None:
        """Take the lock, retrying with jittered backoff; ``RepositoryLockedError`` at
        ``deadline`` (``timeout`` is the configured wait, quoted in the message)."""
        if self._fd is not None:
            raise RuntimeError(f"{self.target}.lock is already held ({self.held})")
        fd = _open_lock_file(f"{self.target}.lock", exclusive)
        self._fd = fd
        self.held = "exclusive" if exclusive else "shared"
        if fcntl is None or fd is None:
            return
        started, delay, turnstile = time.monotonic(), FIRST_DELAY, False
        try:
            while True:
                if exclusive:
                    turnstile = turnstile or _try(fd, fcntl.LOCK_EX, _TURNSTILE)
                    if turnstile and _try(fd, fcntl.LOCK_EX, _DATA):
                        _unlock(fd, _TURNSTILE)  # the data lock is ours: let others queue
                        return
                elif _try(fd, fcntl.LOCK_SH, _TURNSTILE):
                    taken = _try(fd, fcntl.LOCK_SH, _DATA)
                    _unlock(fd, _TURNSTILE)
                    if taken:
                        return
                if time.monotonic() >= deadline:
                    waited = time.monotonic() - started
                    raise RepositoryLockedError(
                        f"{self.target} stayed locked by another process for {timeout:g} s "
                        f"(lock_timeout): waited {waited:.2f} s for {self.held} access "
                        f"({'to write' if exclusive else 'to read; a write is running'}). "
                        "Retry later or pass a larger lock_timeout."
                    )
                delay = backoff(delay, deadline)
        except BaseException:
            self.release()  # closing the descriptor drops the turnstile too
            raise

    def release(self) -> None:
        """Drop the lock (closing the descriptor releases every record lock on it)."""
        fd, self._fd, self.held = self._fd, None, None
        if fd is not None:
            os.close(fd)


_UNWRITABLE = (errno.EROFS, errno.EACCES, errno.EPERM)


def _open_lock_file(path: str, exclusive: bool) -> int | None:
    """The lock file, opened (created if missing) for writing; to read, opened read-only where
    it cannot be written (a shared record lock needs only read access), or None where it can
    neither be created nor opened: a read-only file system, where no one can write the file."""
    try:
        return os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    except OSError as exc:
        if exclusive or exc.errno not in _UNWRITABLE:
            raise _unwritable(path, exc) from exc
    try:
        return os.open(path, os.O_RDONLY)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise _unwritable(path, exc) from exc


def _unwritable(path: str, exc: OSError) -> RepositoryIOError:
    target = path.removesuffix(".lock")
    return RepositoryIOError(
        f"{target}: cannot open its lock file {path} ({exc.strerror}). Writing needs write "
        "access to the folder (to create the lock file) and to both files; reading needs only "
        "read access, on a read-only file system too. Fix the permissions or the mount, or "
        "copy the repository somewhere writable"
    )


def _try(fd: int, mode: int, byte: int) -> bool:
    try:
        fcntl.lockf(fd, mode | fcntl.LOCK_NB, 1, byte)
        return True
    except OSError as exc:
        if exc.errno in (errno.EAGAIN, errno.EACCES):  # held elsewhere (the code varies by OS)
            return False
        raise


def _unlock(fd: int, byte: int) -> None:
    fcntl.lockf(fd, fcntl.LOCK_UN, 1, byte)

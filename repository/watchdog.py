"""Client-side deadlines of blocking socket operations: ``Watchdog`` breaks the connection of an
operation that has waited too long for its peer.

A server that is frozen (``SIGSTOP``, a hung host) or cut off by a network partition never
answers, and neither PostgreSQL's ``statement_timeout`` (the server must run to apply it) nor
TCP keepalives (the peer's kernel still answers them) end the wait. So one thread per process
watches the armed operations; when one has had no answer for its ``seconds``, it shuts the
connection's socket down: the blocked read returns at once, psycopg raises, the pool discards the
connection, and the server rolls the open transaction back when it sees the closed socket. An
operation renews its alarm whenever the server answers (each statement, each batch read), so the
deadline bounds a silent wait, not a long export. The app's webhook alerts arm the same watchdog
on their sockets with the delivery's total deadline (never renewed): a server trickling its
answer is cut off when the deadline passes.
"""

from __future__ import annotations

import contextlib
import os
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

Target = int | socket.socket
"""What an alarm breaks: a socket's file descriptor, or the socket itself."""


class Alarm:
    """The deadline of one operation on one connection (``fired`` once it broke it).

    ``target`` is the connection's socket, or its file descriptor where a library owns the
    socket (libpq): the descriptor is only touched while the alarm is armed.

    Examples
    --------
    >>> with WATCHDOG.armed(-1, seconds=None) as alarm:  # no deadline
    ...     alarm.renew()
    >>> alarm.fired
    False
    """

    def __init__(self, target: Target, seconds: float | None) -> None:
        self.target = target
        self.seconds = seconds
        self.fired = False
        self.due = float("inf") if seconds is None else time.monotonic() + seconds

    def renew(self) -> None:
        """The server answered: the wait starts again."""
        if self.seconds is not None:
            self.due = time.monotonic() + self.seconds


class Watchdog:
    """Breaks the connections of armed operations past their deadline (one thread, started on
    first use in each process)."""

    def __init__(self) -> None:
        self._lock = threading.Condition()
        self._armed: set[Alarm] = set()
        self._pid = 0
        os.register_at_fork(after_in_child=self._forget)

    def _forget(self) -> None:
        # A forked child has none of the parent's threads or operations (its lock may have been
        # held by one of them): start afresh.
        self._lock = threading.Condition()
        self._armed = set()
        self._pid = 0

    @contextmanager
    def armed(self, target: Target, seconds: float | None) -> Iterator[Alarm]:
        """An alarm on the connection with socket (or socket descriptor) ``target`` for the
        duration of the block (``seconds`` None: no deadline)."""
        alarm = Alarm(target, seconds)
        if seconds is None:
            yield alarm
            return
        with self._lock:
            if self._pid != os.getpid():  # first use in this process: start the thread
                self._pid = os.getpid()
                watcher = threading.Thread(target=self._watch, name="repository-watchdog")
                watcher.daemon = True
                watcher.start()
            self._armed.add(alarm)
            self._lock.notify()
        try:
            yield alarm
        finally:
            with self._lock:  # after this, the socket is never touched: it may be reused
                self._armed.discard(alarm)

    def _watch(self) -> None:
        with self._lock:
            while True:
                now = time.monotonic()
                for alarm in [a for a in self._armed if a.due <= now]:
                    self._armed.discard(alarm)
                    alarm.fired = True
                    _shut_down(alarm.target)
                due = min((a.due for a in self._armed), default=now + 60.0)
                # Renewals move deadlines later, never earlier: waking at the earliest is enough.
                self._lock.wait(max(0.0, due - now) + 0.01)


def _shut_down(target: Target) -> None:
    """End both directions of a socket that another thread may be blocked on (closing the
    descriptor would not wake it, and would free the number while libpq still uses it)."""
    if isinstance(target, socket.socket):
        with contextlib.suppress(OSError):  # already closed: the operation ended on its own
            target.shutdown(socket.SHUT_RDWR)
        return
    try:
        sock = socket.socket(fileno=os.dup(target))
    except OSError:
        return
    try:
        sock.shutdown(socket.SHUT_RDWR)
    except OSError:
        pass
    finally:
        sock.close()


WATCHDOG = Watchdog()
"""The process's watchdog."""

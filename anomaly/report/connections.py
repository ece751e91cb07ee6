"""Slow and idle clients never exhaust the process: a connection cap, a header timeout and a
stalled-write timeout on uvicorn's HTTP protocol.

The UI runs in the scheduler's process, so each connection it holds is a file descriptor the
scans cannot use: 1,100 idle connections once made every scan fail with "Too many open files".
So the UI holds at most ``max_connections`` connections, and the kernel's accept queue (at most
``backlog`` more, which cost no descriptor of this process) does the waiting; a connection over
the cap is closed as soon as it is accepted. A connection must send a request's whole header
within ``header_timeout`` seconds (a silent or trickling client is closed), may stay idle
``keep_alive`` seconds between requests, and one whose client stops reading a response is closed
after ``stall_timeout`` seconds. Refusals and timeouts are counted and logged at most once a
minute, without tracebacks.
"""

from __future__ import annotations

import asyncio
import logging
import time
from dataclasses import dataclass, replace
from typing import Any

from uvicorn.protocols.http.h11_impl import H11Protocol

LOG = logging.getLogger("anomaly.report")
_HEAD_END = b"\r\n\r\n"
_LOG_EVERY = 60.0


@dataclass(frozen=True)
class ConnectionLimits:
    """How many connections the UI holds and how long it waits for their clients.

    Examples
    --------
    >>> limits = ConnectionLimits()
    >>> limits.max_connections, limits.header_timeout, limits.descriptors
    (100, 10.0, 164)
    >>> ConnectionLimits(max_connections=0)
    Traceback (most recent call last):
    ValueError: max_connections must be from 1 to 10000, got 0
    """

    max_connections: int = 100
    """Open connections at most; more are closed on accept."""
    backlog: int = 64
    """Connections the kernel queues before the UI accepts them (no descriptor of ours)."""
    header_timeout: float = 10.0
    """Seconds from the connection (or the end of the previous request) to a complete header."""
    keep_alive: float = 5.0
    """Seconds an idle connection is kept between requests."""
    stall_timeout: float = 30.0
    """Seconds a response may wait for a client that does not read it."""

    def __post_init__(self) -> None:
        for name, low, high in (("max_connections", 1, 10_000), ("backlog", 1, 4_096)):
            value = getattr(self, name)
            if not isinstance(value, int) or not low <= value <= high:
                raise ValueError(f"{name} must be from {low} to {high}, got {value!r}")
        for name in ("header_timeout", "keep_alive", "stall_timeout"):
            value = getattr(self, name)
            if not isinstance(value, int | float) or not 0 < value <= 3600:
                raise ValueError(f"{name} must be from 0 to 3600 seconds (not 0), got {value!r}")

    def within(self, available: int) -> ConnectionLimits:
        """These limits, lowered so the UI takes at most a quarter of `available` descriptors
        (the process's limit: the rest stays for the scans).

        >>> ConnectionLimits().within(256).descriptors
        64
        """
        budget = max(2, available // 4)
        if self.descriptors <= budget:
            return self
        backlog = max(1, budget * self.backlog // self.descriptors)
        return replace(self, max_connections=max(1, budget - backlog), backlog=backlog)

    @property
    def descriptors(self) -> int:
        """File descriptors the UI's connections can take at most (accepted in one burst, then
        closed over the cap)."""
        return self.max_connections + self.backlog


class ConnectionGuard:
    """Counts the UI's connections and makes the uvicorn protocol class that enforces `limits`.

    Examples
    --------
    >>> guard = ConnectionGuard(ConnectionLimits(max_connections=2))
    >>> guard.open, guard.refused, guard.timed_out
    (0, 0, 0)
    >>> issubclass(guard.protocol_class(), H11Protocol)
    True
    """

    def __init__(self, limits: ConnectionLimits) -> None:
        self.limits = limits
        self.open = 0
        self.refused = 0
        self.timed_out = 0
        self._logged_at = -_LOG_EVERY
        self._logged = (0, 0)

    def note(self) -> None:
        """Log what was refused or timed out since the last note, at most once a minute."""
        now = time.monotonic()
        if now - self._logged_at < _LOG_EVERY:
            return
        refused, timed_out = self.refused - self._logged[0], self.timed_out - self._logged[1]
        self._logged_at, self._logged = now, (self.refused, self.timed_out)
        LOG.warning(
            "UI: %d connection(s) refused over the cap of %d, %d closed for slow or stalled "
            "clients (in the last minute or since start)",
            refused,
            self.limits.max_connections,
            timed_out,
        )

    def protocol_class(self) -> type[asyncio.Protocol]:
        """uvicorn's h11 protocol with this guard's limits (``uvicorn.Config(http=...)``)."""
        guard = self

        class GuardedProtocol(H11Protocol):
            def __init__(self, *args: Any, **kwargs: Any) -> None:
                super().__init__(*args, **kwargs)
                self._counted = False
                self._in_head = True
                self._tail = b""
                self._timer: asyncio.TimerHandle | None = None

            def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
                if guard.open >= guard.limits.max_connections:
                    guard.refused += 1
                    transport.abort()  # the descriptor is freed now, not after a timeout
                    guard.note()
                    return
                guard.open += 1
                self._counted = True
                super().connection_made(transport)
                self._arm(guard.limits.header_timeout)

            def connection_lost(self, exc: Exception | None) -> None:
                if not self._counted:
                    return
                self._counted = False
                guard.open -= 1
                self._disarm()
                super().connection_lost(exc)

            def data_received(self, data: bytes) -> None:
                if not self._counted:
                    return
                if not self._in_head:  # a new request begins (GET has no body)
                    self._in_head, self._tail = True, b""
                    self._arm(guard.limits.header_timeout)
                if _HEAD_END in self._tail + data:
                    self._in_head, self._tail = False, b""
                    self._disarm()
                else:
                    self._tail = (self._tail + data)[-3:]
                super().data_received(data)

            def pause_writing(self) -> None:
                super().pause_writing()
                self._arm(guard.limits.stall_timeout)

            def resume_writing(self) -> None:
                super().resume_writing()
                if not self._in_head:
                    self._disarm()

            def _arm(self, seconds: float) -> None:
                self._disarm()
                self._timer = self.loop.call_later(seconds, self._expire)

            def _disarm(self) -> None:
                if self._timer is not None:
                    self._timer.cancel()
                    self._timer = None

            def _expire(self) -> None:
                self._timer = None
                if self.transport is not None and not self.transport.is_closing():
                    guard.timed_out += 1
                    self.transport.abort()
                    guard.note()

        return GuardedProtocol

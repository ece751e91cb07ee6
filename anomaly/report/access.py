"""The UI's token check: derived session cookies and a backoff on wrong tokens.

* The cookie set by ``/?token=...`` never holds the token: it holds an expiry and an HMAC of it
  under a key made at start (``EXPIRY.MAC``), so a leaked cookie does not reveal the token, ends
  at its expiry, and every cookie ends when the UI restarts.
* Wrong tokens (in the query, the header or a cookie) are counted per client address: after
  ``free`` of them, each further one locks the client out for twice as long as the last (from 1 s
  to 5 min); a locked-out client gets 429 with ``Retry-After`` and its tokens are not even
  compared, so guessing costs time. A right token ends the lockout's count. The table of clients is
  bounded (the oldest are forgotten).
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import threading
import time
from collections import OrderedDict

SESSION_SECONDS = 12 * 3600
FREE_FAILURES = 5
FIRST_LOCKOUT, MAX_LOCKOUT = 1.0, 300.0
MAX_CLIENTS = 10_000


def same(given: str, expected: str) -> bool:
    """Whether two secrets are equal, compared in constant time."""
    return hmac.compare_digest(given.encode(), expected.encode())


class TokenGate:
    """Checks the token and the session cookies derived from it.

    Examples
    --------
    >>> gate = TokenGate("s3cret")
    >>> cookie = gate.new_session(now=1000.0)
    >>> "s3cret" in cookie, gate.valid_session(cookie, now=1001.0)
    (False, True)
    >>> gate.valid_session(cookie, now=1000.0 + SESSION_SECONDS + 1)  # expired
    False
    >>> TokenGate("s3cret").valid_session(cookie, now=1001.0)  # another start: another key
    False
    """

    def __init__(self, token: str, session_seconds: int = SESSION_SECONDS) -> None:
        self.token = token
        self.session_seconds = session_seconds
        self._key = secrets.token_bytes(32)

    def right(self, given: str) -> bool:
        """Whether `given` is the token."""
        return same(given, self.token)

    def new_session(self, now: float | None = None) -> str:
        """A cookie value valid for ``session_seconds``."""
        expiry = int(time.time() if now is None else now) + self.session_seconds
        return f"{expiry}.{self._mac(expiry)}"

    def valid_session(self, value: str, now: float | None = None) -> bool:
        """Whether `value` is a cookie value this gate made and it has not expired."""
        expiry_text, _, mac = value.partition(".")
        if not (expiry_text.isascii() and expiry_text.isdigit()) or len(expiry_text) > 12:
            return False
        expiry = int(expiry_text)
        fresh = (time.time() if now is None else now) <= expiry
        return same(mac, self._mac(expiry)) and fresh

    def _mac(self, expiry: int) -> str:
        token = hashlib.sha256(self.token.encode()).digest()
        return hmac.new(self._key, token + str(expiry).encode(), hashlib.sha256).hexdigest()


class FailureBackoff:
    """Per-client counts of wrong tokens and the lockouts they earn.

    Examples
    --------
    >>> backoff = FailureBackoff(free=2)
    >>> [backoff.fail("10.0.0.9", now=0.0) for _ in range(3)]
    [0.0, 0.0, 1.0]
    >>> backoff.wait("10.0.0.9", now=0.5), backoff.wait("10.0.0.9", now=1.5)
    (0.5, 0.0)
    >>> backoff.fail("10.0.0.9", now=1.5), backoff.wait("10.0.0.7", now=1.5)
    (2.0, 0.0)
    """

    def __init__(self, free: int = FREE_FAILURES, max_clients: int = MAX_CLIENTS) -> None:
        self.free, self.max_clients = free, max_clients
        self._clients: OrderedDict[str, tuple[int, float]] = OrderedDict()
        self._lock = threading.Lock()

    def wait(self, client: str, now: float | None = None) -> float:
        """Seconds `client` must still wait before its token is checked again (0: none)."""
        now = time.monotonic() if now is None else now
        with self._lock:
            _, until = self._clients.get(client, (0, 0.0))
        return max(0.0, until - now)

    def fail(self, client: str, now: float | None = None) -> float:
        """Count a wrong token of `client`; returns the lockout it earned (0: none yet)."""
        now = time.monotonic() if now is None else now
        with self._lock:
            failures, _ = self._clients.pop(client, (0, 0.0))
            failures += 1
            over = failures - self.free
            lockout = min(MAX_LOCKOUT, FIRST_LOCKOUT * 2 ** min(over - 1, 20)) if over > 0 else 0.0
            self._clients[client] = (failures, now + lockout)
            while len(self._clients) > self.max_clients:
                self._clients.popitem(last=False)
        return lockout

    def succeed(self, client: str) -> None:
        """A right token: forget the client's failures."""
        with self._lock:
            self._clients.pop(client, None)

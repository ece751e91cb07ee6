"""POSTing an alert to a webhook: bounded retries with backoff inside one total deadline, and no
redirects.

A sink's ``timeout`` is the total time a delivery may take, every attempt and pause included: a
server trickling its answer a byte at a time is cut off when the deadline passes (a watchdog
shuts the socket down), not after a per-read timeout that each byte resets. Answers worth
retrying (408, 425, 429, 5xx, no connection, no answer in time) are retried with exponential
backoff (or the server's ``Retry-After`` when it fits in the deadline). A redirect is a failed
delivery: the request carries the sink's headers, often a bearer token, which must not reach
another address.
"""

from __future__ import annotations

import contextlib
import http.client
import random
import socket
import time
import urllib.error
import urllib.request
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from anomaly.errors import AnomalyError
from anomaly.safe_text import terminal_safe
from repository.watchdog import WATCHDOG, Alarm

RETRIED_STATUSES = frozenset({408, 425, 429, 500, 502, 503, 504})
"""HTTP answers that say "try again later"; any other error answer is final."""
MAX_ANSWER_BYTES = 64 * 1024
"""What is read of a webhook's answer (it is not used; reading it lets the server finish)."""


class AlertDeliveryError(AnomalyError):
    """An alert could not be delivered (the message says where and why); `dispatch` logs it
    and records it in the repository. ``attempts`` is how many tries were made.

    >>> str(AlertDeliveryError("alert 'slack': webhook answered HTTP 404 Not Found"))
    "alert 'slack': webhook answered HTTP 404 Not Found"
    """

    def __init__(self, message: str, attempts: int = 1) -> None:
        super().__init__(message)
        self.attempts = attempts


@dataclass(frozen=True)
class RetryPolicy:
    """How often and how patiently a webhook is tried (all within the sink's total deadline).

    >>> [RetryPolicy().pause(n, random_share=0.0) for n in (1, 2, 3)]
    [0.5, 1.0, 2.0]
    """

    attempts: int = 4
    first_pause: float = 0.5
    longest_pause: float = 8.0

    def pause(self, failed: int, random_share: float = 0.2) -> float:
        """Seconds to wait after the `failed`-th failed attempt (exponential, with jitter so
        many services do not retry in step)."""
        base = min(self.first_pause * 2 ** (failed - 1), self.longest_pause)
        return base * (1 + random.uniform(-random_share, random_share))


def post_json(
    url: str,
    body: bytes,
    headers: Mapping[str, str],
    total_seconds: float,
    policy: RetryPolicy | None = None,
) -> int:
    """POST `body` to `url` until it is accepted (2xx), retrying what is worth retrying, all
    within `total_seconds`; returns the attempts it took.

    Raises
    ------
    AlertDeliveryError
        Refused, redirected, unreachable, or no success before the deadline (the message
        says why and after how many attempts).
    """
    policy = policy or RetryPolicy()
    started = time.monotonic()
    deadline = started + total_seconds
    attempt = 0
    while True:
        attempt += 1
        try:
            _post_once(url, body, headers, deadline)
            return attempt
        except _RetryableError as problem:
            reason, wait = problem.reason, problem.retry_after
        except AlertDeliveryError as error:
            error.attempts = attempt
            raise
        if wait is None:
            wait = policy.pause(attempt)
        if attempt >= policy.attempts or time.monotonic() + wait >= deadline:
            took = time.monotonic() - started
            raise AlertDeliveryError(
                f"{reason}; gave up after {attempt} attempt{'s' if attempt > 1 else ''} in "
                f"{took:.1f} s (the sink's timeout, {total_seconds:g} s, bounds all of them)",
                attempt,
            )
        time.sleep(wait)


class _RetryableError(Exception):
    def __init__(self, reason: str, retry_after: float | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.retry_after = retry_after


def _post_once(url: str, body: bytes, headers: Mapping[str, str], deadline: float) -> None:
    watchdog = _Watchdog(deadline)
    opener = urllib.request.build_opener(
        _NoRedirects(), _HttpHandler(watchdog), _HttpsHandler(watchdog)
    )
    request = urllib.request.Request(
        url, data=body, headers={"Content-Type": "application/json", **headers}, method="POST"
    )
    try:
        with opener.open(request, timeout=watchdog.remaining()) as answer:
            answer.read(MAX_ANSWER_BYTES)
    except urllib.error.HTTPError as error:
        _refused(error)
    except (urllib.error.URLError, OSError, http.client.HTTPException) as error:
        if watchdog.expired or isinstance(error, TimeoutError):
            raise _RetryableError("the webhook did not answer within the deadline") from None
        reason = getattr(error, "reason", None) or error
        raise _RetryableError(f"cannot reach the webhook: {terminal_safe(reason)}") from None
    finally:
        watchdog.cancel()


def _refused(error: urllib.error.HTTPError) -> None:
    answer = f"the webhook answered HTTP {error.code} {terminal_safe(error.reason)}"
    if 300 <= error.code < 400:
        target = terminal_safe(error.headers.get("Location", "nowhere"))
        raise AlertDeliveryError(
            f"{answer}, a redirect to {target}: redirects are not followed (the request "
            "carries the sink's headers, which may hold a token); set the sink's url to the "
            "address that accepts the alert"
        )
    if error.code in RETRIED_STATUSES:
        raise _RetryableError(answer, _retry_after(error.headers.get("Retry-After")))
    raise AlertDeliveryError(answer)


def _retry_after(value: str | None) -> float | None:
    try:
        return max(0.0, float(value)) if value is not None else None
    except ValueError:
        return None  # an HTTP date: the backoff decides


class _Watchdog:
    """Breaks the sockets of one attempt when the delivery's deadline passes (the process's
    ``repository.watchdog.WATCHDOG`` does the watching)."""

    def __init__(self, deadline: float) -> None:
        self.deadline = deadline
        self._alarms: list[Alarm] = []
        self._armed = contextlib.ExitStack()

    @property
    def expired(self) -> bool:
        """Whether the deadline broke one of the attempt's sockets."""
        return any(alarm.fired for alarm in self._alarms)

    def remaining(self) -> float:
        return max(self.deadline - time.monotonic(), 0.001)

    def guard(self, sock: socket.socket) -> None:
        self._alarms.append(self._armed.enter_context(WATCHDOG.armed(sock, self.remaining())))

    def cancel(self) -> None:
        self._armed.close()


class _NoRedirects(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None  # the 3xx answer becomes an HTTPError, refused in _refused


class _HttpHandler(urllib.request.HTTPHandler):
    def __init__(self, watchdog: _Watchdog) -> None:
        super().__init__()
        self.watchdog = watchdog

    def http_open(self, req: urllib.request.Request) -> http.client.HTTPResponse:
        return self.do_open(_guarded(http.client.HTTPConnection, self.watchdog), req)


class _HttpsHandler(urllib.request.HTTPSHandler):
    def __init__(self, watchdog: _Watchdog) -> None:
        super().__init__()
        self.watchdog = watchdog

    def https_open(self, req: urllib.request.Request) -> http.client.HTTPResponse:
        return self.do_open(_guarded(http.client.HTTPSConnection, self.watchdog), req)


def _guarded(base: type[http.client.HTTPConnection], watchdog: _Watchdog) -> Any:
    class Guarded(base):  # type: ignore[valid-type,misc]
        def connect(self) -> None:
            self.timeout = watchdog.remaining()
            super().connect()
            watchdog.guard(self.sock)

    return Guarded

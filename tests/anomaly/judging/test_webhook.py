"""Webhook delivery against real local HTTP servers: redirects refused (the token stays home),
503 retried with backoff, a trickling or silent server cut off at the total deadline, and every
failure kept in the repository's outbox until a later run delivers it."""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from anomaly.config.alert_config import AlertSinkConfig
from anomaly.judging import dispatch, redeliver
from anomaly.judging.webhook import AlertDeliveryError, RetryPolicy, post_json
from repository import MetricsRepository
from tests.anomaly.judging.test_sinks import report

pytestmark = pytest.mark.faults
TOKEN = "Bearer s3cret-token"


class Server:
    """A local HTTP server answering from a script of (status, headers) answers; the last
    answer repeats. Records every request's headers and body."""

    def __init__(self, *answers: tuple[int, dict[str, str]]) -> None:
        self.answers = list(answers) or [(200, {})]
        self.requests: list[tuple[dict[str, str], bytes]] = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                server.requests.append((dict(self.headers), body))
                n = min(len(server.requests), len(server.answers)) - 1
                status, headers = server.answers[n]
                self.send_response(status)
                for name, value in headers.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", "2")
                self.end_headers()
                self.wfile.write(b"ok")

            def do_GET(self) -> None:  # where a followed redirect turns the POST into a GET
                self.do_POST()

            def log_message(self, *args: Any) -> None:
                pass

        self.http = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.http.server_address[1]}/hook"
        threading.Thread(target=self.http.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.http.shutdown()
        self.http.server_close()


class Trickler:
    """A TCP server that reads the request, then answers one byte every `every` seconds (or
    nothing at all, with `every=None`) for up to a minute."""

    def __init__(self, every: float | None) -> None:
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self.listener.getsockname()[1]}/hook"
        self.every = every
        self.stop = threading.Event()
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        while not self.stop.is_set():
            try:
                conn, _ = self.listener.accept()
            except OSError:
                return
            threading.Thread(target=self._answer, args=(conn,), daemon=True).start()

    def _answer(self, conn: socket.socket) -> None:
        with conn:
            conn.recv(65536)
            answer = b"HTTP/1.1 200 OK\r\n" + b"X-Slow: " + b"a" * 10_000
            for byte in answer:
                if self.stop.wait(self.every if self.every is not None else 60):
                    return
                try:
                    conn.sendall(bytes([byte]))
                except OSError:
                    return

    def close(self) -> None:
        self.stop.set()
        self.listener.close()


@pytest.fixture
def outbox(tmp_path: Any) -> Iterator[MetricsRepository]:
    with MetricsRepository(tmp_path / "metrics.duckdb") as repo:
        yield repo


def webhook(url: str, timeout: str = "10s", **more: Any) -> AlertSinkConfig:
    settings = {"type": "webhook", "url": url, "timeout": timeout, "format": "json", **more}
    return AlertSinkConfig.model_validate(settings)


def test_a_redirect_is_a_failed_delivery_and_the_token_never_reaches_its_target(
    outbox: MetricsRepository, caplog: pytest.LogCaptureFixture
) -> None:
    target = Server()
    redirecting = Server((302, {"Location": target.url}))
    try:
        sink = webhook(redirecting.url, headers={"Authorization": TOKEN})
        failed = dispatch(report(), {"hook": sink}, outbox.deliveries)
    finally:
        redirecting.close()
        target.close()
    assert failed == ["hook"]
    assert target.requests == []  # neither the alert nor the token went on
    assert len(redirecting.requests) == 1  # not retried: a redirect is final
    [kept] = outbox.deliveries.undelivered().to_dict("records")
    assert kept["sink"] == "hook" and kept["attempts"] == 1
    redirect = f"HTTP 302 Found, a redirect to {target.url}: redirects are not followed"
    assert redirect in kept["error"]
    assert "kept in the repository" in caplog.text


def test_503_is_retried_with_backoff_until_accepted() -> None:
    server = Server((503, {}), (503, {"Retry-After": "0"}), (200, {}))
    try:
        policy = RetryPolicy(first_pause=0.05)
        attempts = post_json(server.url, b"{}", {}, total_seconds=10, policy=policy)
    finally:
        server.close()
    assert attempts == 3 and len(server.requests) == 3


def test_answers_not_worth_retrying_fail_at_once_and_retries_are_bounded() -> None:
    refusing, failing = Server((404, {})), Server((503, {}))
    try:
        with pytest.raises(AlertDeliveryError, match="HTTP 404 Not Found") as refused:
            post_json(refusing.url, b"{}", {}, total_seconds=10)
        policy = RetryPolicy(attempts=3, first_pause=0.05)
        with pytest.raises(AlertDeliveryError, match="gave up after 3 attempts") as gave_up:
            post_json(failing.url, b"{}", {}, total_seconds=10, policy=policy)
    finally:
        refusing.close()
        failing.close()
    assert (refused.value.attempts, len(refusing.requests)) == (1, 1)
    assert (gave_up.value.attempts, len(failing.requests)) == (3, 3)
    assert "HTTP 503 Service Unavailable" in str(gave_up.value)


def test_a_connection_refused_is_retried_then_reported() -> None:
    with socket.create_server(("127.0.0.1", 0)) as probe:
        port = probe.getsockname()[1]  # closed below: nothing listens there
    policy = RetryPolicy(attempts=3, first_pause=0.05)
    with pytest.raises(AlertDeliveryError, match="cannot reach the webhook") as error:
        post_json(f"http://127.0.0.1:{port}/hook", b"{}", {}, 10, policy)
    assert error.value.attempts == 3


@pytest.mark.parametrize("every", [0.2, None], ids=["trickling", "silent"])
def test_the_timeout_bounds_the_whole_delivery(every: float | None) -> None:
    server = Trickler(every)
    started = time.monotonic()
    try:
        with pytest.raises(AlertDeliveryError, match="did not answer within the deadline"):
            post_json(server.url, b"{}", {}, total_seconds=2.0)
    finally:
        server.close()
    took = time.monotonic() - started
    # A per-read timeout would wait as long as the server trickles (about 2,000 s here).
    assert took < 6.0, f"a 2 s deadline took {took:.1f} s"


def test_a_kept_alert_is_delivered_by_a_later_run(outbox: MetricsRepository) -> None:
    down = Server((503, {}))
    sink = {"hook": webhook(down.url, timeout="1s")}
    try:
        assert dispatch(report(), sink, outbox.deliveries) == ["hook"]
    finally:
        down.close()
    [kept] = outbox.deliveries.pending("hook")
    up = Server()
    try:
        assert redeliver({"hook": webhook(up.url)}, outbox.deliveries) == 1
    finally:
        up.close()
    [(_, body)] = up.requests
    assert json.loads(body) == json.loads(kept.payload)
    assert json.loads(body)["status"] == "anomaly"
    assert outbox.deliveries.pending() == [] and outbox.deliveries.undelivered().empty

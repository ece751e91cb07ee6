"""Running the UI: uvicorn in a background thread beside the scheduler (``anomaly serve --ui``).

The socket is bound here, in the caller's thread, so a taken port or a bad address fails at
start with a clear error, and port 0 gives a free port (the tests use it). The connections are
capped and timed out (``connections.ConnectionLimits``, fitted to the process's limit of open
files) so clients can never take the descriptors the scans need.
"""

from __future__ import annotations

import asyncio
import ipaddress
import logging
import os
import socket
import threading
import time
from collections.abc import Mapping, Sequence

from anomaly.errors import ConfigurationError
from anomaly.report.connections import ConnectionGuard, ConnectionLimits
from anomaly.report.health import DEFAULT_DEADLINE, HealthCheck
from anomaly.report.server import LOOPBACK_HOSTS, create_app
from anomaly.report.ui_defaults import DEFAULT_ADDRESS as DEFAULT_ADDRESS  # re-exported
from anomaly.report.ui_defaults import TOKEN_VARIABLE
from repository import MetricsRepository

LOG = logging.getLogger("anomaly.report")


def parse_address(text: str) -> tuple[str, int]:
    """``HOST:PORT`` (``[::1]:8080`` for IPv6; a bare ``PORT`` means loopback).

    >>> parse_address("127.0.0.1:8080"), parse_address("8081"), parse_address("[::1]:0")
    (('127.0.0.1', 8080), ('127.0.0.1', 8081), ('::1', 0))
    >>> parse_address("localhost:http")
    Traceback (most recent call last):
    anomaly.errors.ConfigurationError: --ui takes HOST:PORT with PORT from 0 to 65535, got ...
    """
    host, sep, port = text.strip().rpartition(":")
    if not sep:
        host, port = "127.0.0.1", text.strip()
    host = host.strip("[]") or "127.0.0.1"
    if not port.isdigit() or int(port) > 65535:
        raise ConfigurationError(f"--ui takes HOST:PORT with PORT from 0 to 65535, got {text!r}")
    return host, int(port)


def is_loopback(host: str) -> bool:
    """Whether `host` names this machine only.

    >>> is_loopback("127.0.0.1"), is_loopback("localhost"), is_loopback("0.0.0.0")
    (True, True, False)
    """
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


class UIServer:
    """The UI served by uvicorn in a daemon thread until `stop`.

    Examples
    --------
    >>> import urllib.request
    >>> server = UIServer(MetricsRepository(":memory:"), "127.0.0.1", 0).start()
    >>> urllib.request.urlopen(server.url + "api/health").read()
    b'{"status":"ok"}'
    >>> server.stop()
    """

    def __init__(
        self,
        repo: MetricsRepository,
        host: str = "127.0.0.1",
        port: int = 8080,
        *,
        token: str | None = None,
        tags: Mapping[str, str] | None = None,
        title: str | None = None,
        limits: ConnectionLimits | None = None,
        health_checks: Sequence[HealthCheck] = (),
        health_deadline: float = DEFAULT_DEADLINE,
    ) -> None:
        import uvicorn

        hosts = [*LOOPBACK_HOSTS, f"{host}"] if is_loopback(host) else None
        app = create_app(
            repo,
            token=token,
            tags=tags,
            title=title,
            allowed_hosts=hosts,
            health_checks=health_checks,
            health_deadline=health_deadline,
        )
        self.app = app
        self.connections = ConnectionGuard((limits or ConnectionLimits()).within(_open_files()))
        """The connections' limits and counts (`ConnectionGuard`)."""
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        self._socket = socket.socket(family, socket.SOCK_STREAM)
        self._socket.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            self._socket.bind((host, port))
        except OSError as error:
            self._socket.close()
            raise ConfigurationError(f"--ui cannot listen on {host}:{port}: {error}") from error
        self.host, self.port = host, self._socket.getsockname()[1]
        limits = self.connections.limits
        config = uvicorn.Config(
            app,
            http=self.connections.protocol_class(),
            backlog=limits.backlog,
            timeout_keep_alive=int(max(1, limits.keep_alive)),
            log_level="warning",
            access_log=False,
            lifespan="off",
            server_header=False,
        )
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(target=self._run, name="anomaly-ui", daemon=True)
        if not is_loopback(host) and token is None:
            LOG.warning(
                "the UI listens on %s without a token: anyone who reaches it can read "
                "the repository (set %s)",
                host,
                TOKEN_VARIABLE,
            )

    @property
    def url(self) -> str:
        """The UI's address, ending in ``/``."""
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}/"

    def start(self, timeout: float = 10.0) -> UIServer:
        """Start serving; returns once uvicorn accepts connections."""
        self._thread.start()
        deadline = time.monotonic() + timeout
        while not self._server.started:
            if not self._thread.is_alive() or time.monotonic() > deadline:
                raise ConfigurationError(f"the UI did not start on {self.url}")
            time.sleep(0.01)
        LOG.info("UI at %s (read-only)", self.url)
        return self

    def stop(self, timeout: float = 10.0) -> None:
        """Stop serving and wait for the thread."""
        self._server.should_exit = True
        if self._thread.is_alive():
            self._thread.join(timeout)
        self._socket.close()

    def _run(self) -> None:
        asyncio.run(self._server.serve(sockets=[self._socket]))


def _open_files() -> int:
    """The process's limit of open files (a large number where it cannot be read)."""
    try:
        import resource

        soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    except (ImportError, OSError, ValueError):
        return 1 << 20
    return soft if soft != resource.RLIM_INFINITY else 1 << 20


def token_from_environment(variable: str = TOKEN_VARIABLE) -> str | None:
    """The bearer token from the environment (None when unset or empty)."""
    value = os.environ.get(variable, "").strip()
    return value or None

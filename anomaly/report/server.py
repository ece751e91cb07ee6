"""The live, read-only web UI: the report's pages and a JSON API over a repository, on Starlette.

* Read-only: only GET and HEAD exist; any other method is 405 on every path. Every read goes
  through ``MetricsRepository.sql()`` (shared lock and read-only attachment of a DuckDB file, a
  read-only transaction on PostgreSQL); nothing writes.
* The page is the report (``page.render_page``) built from a snapshot that is cached while the
  repository file is unchanged (on PostgreSQL, for a few seconds) and shared by concurrent
  requests (``caching``), with the scripts served from ``/assets/``.
* Optional bearer token: ``Authorization: Bearer TOKEN``, or once ``/?token=TOKEN`` in a
  browser, which sets an HttpOnly cookie holding a session value derived from it (never the
  token) and redirects to ``/`` (so the token leaves the address bar). The token is compared in
  constant time and never logged (uvicorn's access log is off; requests are logged without their
  query); wrong tokens earn the client a growing lockout (429, ``access``).
* A loopback bind accepts only loopback ``Host`` headers (no DNS rebinding).
* ``/api/health`` is 200 only while the repository can be read within a deadline and the
  given checks (the scheduler's) pass, else 503 with the problems (``health``).
* At most ``MAX_IN_FLIGHT`` requests read the repository at once; more get 503 with
  ``Retry-After`` rather than queueing without bound.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response
from starlette.routing import Route
from starlette.types import ASGIApp, Receive, Scope, Send

from anomaly.report import api
from anomaly.report.access import FailureBackoff, TokenGate
from anomaly.report.assets import asset_bytes, asset_names
from anomaly.report.caching import SnapshotCache
from anomaly.report.encoding import script_json
from anomaly.report.health import DEFAULT_DEADLINE, HealthCheck, HealthProbe
from anomaly.report.page import render_page
from repository import MetricsRepository, RepositoryError

__all__ = ["SnapshotCache", "create_app"]  # SnapshotCache moved to caching; still importable

LOG = logging.getLogger("anomaly.report")
COOKIE = "anomaly_ui_token"
READ_METHODS = ("GET", "HEAD")
LOOPBACK_HOSTS = ["127.0.0.1", "localhost", "::1", "[::1]"]
MAX_IN_FLIGHT = 32
"""Requests reading the repository at once; more are refused with 503 and ``Retry-After``."""
_TYPES = {".js": "text/javascript; charset=utf-8", ".css": "text/css; charset=utf-8"}
_HEADERS = {
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "X-Frame-Options": "DENY",
    "Cache-Control": "no-store",
}


def create_app(
    repo: MetricsRepository,
    *,
    token: str | None = None,
    tags: Mapping[str, str] | None = None,
    title: str | None = None,
    allowed_hosts: list[str] | None = None,
    health_checks: Sequence[HealthCheck] = (),
    health_deadline: float = DEFAULT_DEADLINE,
) -> Starlette:
    """The UI's ASGI application over `repo` (runs whose tags include `tags`).

    ``allowed_hosts`` limits the ``Host`` header (``None``: any; `UIServer` passes the
    loopback names when it binds to loopback). ``/api/health`` fails when a read of the
    repository takes longer than ``health_deadline`` seconds or a check of ``health_checks``
    reports a problem. ``app.state.snapshots`` is the `SnapshotCache`.
    """
    cache = SnapshotCache(repo, tags, title)
    probe = HealthProbe(repo, health_deadline, health_checks)

    def endpoint(
        build: Callable[[MetricsRepository, api.Params], list[dict[str, Any]]], allowed: set[str]
    ) -> Callable[[Request], Awaitable[Response]]:
        async def handle(request: Request) -> Response:
            try:
                params = api.Params(_multi(request), allowed)
                rows = await _in_thread(build, repo, params)
            except api.ApiError as error:
                return _error(400, str(error))
            except RepositoryError as error:
                return _error(503, f"the repository cannot be read now: {error}")
            response = _json(rows)
            response.headers.update(getattr(rows, "headers", {}))
            return response

        return handle

    async def current(request: Request, what: str) -> dict[str, Any] | Response:
        """The snapshot, or the response explaining why there is none."""
        if request.query_params:
            return _error(400, f"{what} takes no parameters")
        try:
            return dict(await _in_thread(cache.get))
        except RepositoryError as error:
            return _error(503, f"the repository cannot be read now: {error}")

    async def page(request: Request) -> Response:
        found = await current(request, "the page (use /?token=... only to log in)")
        if isinstance(found, Response):
            return found
        body = render_page({**found, "live": True}, asset_base="assets/")
        return Response(body, media_type="text/html; charset=utf-8")

    async def snapshot(request: Request) -> Response:
        found = await current(request, "/api/snapshot")
        return found if isinstance(found, Response) else _json(found)

    async def datasets(request: Request) -> Response:
        found = await current(request, "/api/datasets")
        return found if isinstance(found, Response) else _json(found["datasets"])

    async def asset(request: Request) -> Response:
        name = request.path_params["name"]
        if name not in asset_names():
            return _error(404, f"no asset {name!r}")
        media = _TYPES[os.path.splitext(name)[1]]
        return Response(
            asset_bytes(name), media_type=media, headers={"Cache-Control": "public, max-age=3600"}
        )

    async def health(request: Request) -> Response:
        problems = await probe.problems_async()
        if problems:
            return JSONResponse({"status": "unavailable", "problems": problems}, 503)
        return _json({"status": "ok"})

    async def index(request: Request) -> Response:
        return _json(
            {
                "endpoints": {
                    "/api/series": sorted(api.SERIES_PARAMS),
                    "/api/anomalies": sorted(api.ANOMALY_PARAMS),
                    "/api/outcomes": sorted(api.OUTCOME_PARAMS),
                    "/api/annotations": sorted(api.ANNOTATION_PARAMS),
                    "/api/datasets": [],
                    "/api/snapshot": [],
                    "/api/health": [],
                }
            }
        )

    routes = [
        Route("/", page),
        Route("/assets/{name}", asset),
        Route("/api", index),
        Route("/api/health", health),
        Route("/api/snapshot", snapshot),
        Route("/api/datasets", datasets),
        Route("/api/series", endpoint(api.series_rows, api.SERIES_PARAMS)),
        Route("/api/anomalies", endpoint(api.anomaly_rows, api.ANOMALY_PARAMS)),
        Route("/api/outcomes", endpoint(api.outcome_rows, api.OUTCOME_PARAMS)),
        Route("/api/annotations", endpoint(api.annotation_rows, api.ANNOTATION_PARAMS)),
    ]
    middleware = [Middleware(ReadOnlyGuard, token=token)]
    if allowed_hosts is not None:
        middleware.append(Middleware(TrustedHostMiddleware, allowed_hosts=allowed_hosts))
    app = Starlette(routes=routes, middleware=middleware)
    app.state.snapshots = cache
    return app


class ReadOnlyGuard:
    """ASGI middleware: 405 for every method but GET/HEAD, the bearer token (with a backoff on
    wrong ones), a cap on requests in flight, safe headers."""

    def __init__(
        self, app: ASGIApp, token: str | None = None, max_in_flight: int = MAX_IN_FLIGHT
    ) -> None:
        self.app = app
        self.gate = None if token is None else TokenGate(token)
        self.backoff = FailureBackoff()
        self.max_in_flight = max_in_flight
        self._in_flight = 0

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        request = Request(scope)
        LOG.debug("%s %s", request.method, request.url.path)  # never the query: it may log in
        response: Response | None = None
        if request.method not in READ_METHODS:
            response = _error(405, f"this UI is read-only: {request.method} is not allowed")
            response.headers["Allow"] = ", ".join(READ_METHODS)
        elif self.gate is not None and request.url.path != "/api/health":
            response = self._login(request)
        if response is None and self._in_flight >= self.max_in_flight and _reads(request):
            response = _error(503, "the UI is busy: too many requests at once, retry shortly")
            response.headers["Retry-After"] = "1"
        if response is not None:
            await response(scope, receive, send)
            return

        async def with_headers(message: Any) -> None:
            if message["type"] == "http.response.start":
                names = {k.lower() for k, _ in message.get("headers", [])}
                extra = [
                    (k.lower().encode(), v.encode())
                    for k, v in _HEADERS.items()
                    if k.lower().encode() not in names
                ]
                message["headers"] = [*message.get("headers", []), *extra]
            await send(message)

        counted = _reads(request)
        self._in_flight += counted
        try:
            await self.app(scope, receive, with_headers)
        finally:
            self._in_flight -= counted

    def _login(self, request: Request) -> Response | None:
        """None when the request carries the token or a session; else the redirect, 401 or
        429 (a client locked out for wrong tokens)."""
        assert self.gate is not None
        client = request.client.host if request.client else ""
        wait = self.backoff.wait(client)
        if wait > 0:
            response = _error(429, f"too many wrong tokens: retry in {wait:.0f} s")
            response.headers["Retry-After"] = str(max(1, round(wait)))
            return response
        given = request.query_params.get("token") if request.url.path == "/" else None
        header = request.headers.get("authorization", "")
        scheme, _, value = header.partition(" ")
        bearer = value.strip() if scheme.lower() == "bearer" else None
        cookie = request.cookies.get(COOKIE)
        if given is not None and self.gate.right(given):
            self.backoff.succeed(client)
            redirect = RedirectResponse("/", status_code=303)
            redirect.set_cookie(
                COOKIE,
                self.gate.new_session(),
                max_age=self.gate.session_seconds,
                httponly=True,
                samesite="strict",
            )
            return redirect
        if given is None and bearer is not None and self.gate.right(bearer):
            self.backoff.succeed(client)
            return None
        if given is None and cookie is not None and self.gate.valid_session(cookie):
            return None
        if given is not None or bearer is not None:
            # Session cookies are not counted: guessing an HMAC is hopeless, and a browser's
            # cookie from before a restart must not lock its user out.
            lockout = self.backoff.fail(client)
            if lockout > 0:
                LOG.warning("UI: a wrong token from %s: locked out for %g s", client, lockout)
            return _error(401, "wrong token")
        response = _error(
            401,
            "this UI needs a token (or a session that has not expired): "
            "'Authorization: Bearer TOKEN' or /?token=",
        )
        response.headers["WWW-Authenticate"] = "Bearer"
        return response


def _reads(request: Request) -> bool:
    """Whether a request reads the repository (assets and the health check do not)."""
    path = request.url.path
    return path == "/" or (path.startswith("/api/") and path != "/api/health")


def _multi(request: Request) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for key, value in request.query_params.multi_items():
        found.setdefault(key, []).append(value)
    return found


def _json(data: Any) -> Response:
    return Response(script_json(data), media_type="application/json")


def _error(status: int, message: str) -> Response:
    return JSONResponse({"error": message}, status_code=status)


async def _in_thread(function: Callable[..., Any], *args: Any) -> Any:
    from starlette.concurrency import run_in_threadpool

    return await run_in_threadpool(function, *args)

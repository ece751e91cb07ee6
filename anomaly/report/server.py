"""The live, read-only web UI: the report's pages and a JSON API over a repository, on Starlette.

* Read-only: only GET and HEAD exist; any other method is 405 on every path. Every read goes
  through ``MetricsRepository.sql()`` (shared lock and read-only attachment of a DuckDB file, a
  read-only transaction on PostgreSQL); nothing writes.
* The page is the report (``page.render_page``) built from a snapshot that is cached while the
  repository file is unchanged (on PostgreSQL, rebuilt per request), with the scripts served
  from ``/assets/``.
* Optional bearer token: ``Authorization: Bearer TOKEN``, or once ``/?token=TOKEN`` in a
  browser, which sets an HttpOnly cookie and redirects to ``/`` (so the token leaves the
  address bar). The token is compared in constant time and never logged (uvicorn's access log is
  off; requests are logged without their query).
* A loopback bind accepts only loopback ``Host`` headers (no DNS rebinding).
"""

from __future__ import annotations

import hmac
import logging
import os
import threading
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response
from starlette.routing import Route
from starlette.types import ASGIApp, Receive, Scope, Send

from anomaly.report import api
from anomaly.report.assets import asset_bytes, asset_names
from anomaly.report.encoding import script_json
from anomaly.report.page import render_page
from anomaly.report.snapshot import collect_snapshot
from repository import MetricsRepository, RepositoryError
from repository.backends import is_url

LOG = logging.getLogger("anomaly.report")
COOKIE = "anomaly_ui_token"
READ_METHODS = ("GET", "HEAD")
LOOPBACK_HOSTS = ["127.0.0.1", "localhost", "::1", "[::1]"]
_TYPES = {".js": "text/javascript; charset=utf-8", ".css": "text/css; charset=utf-8"}
_HEADERS = {
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "X-Frame-Options": "DENY",
    "Cache-Control": "no-store",
}


class SnapshotCache:
    """The report snapshot of a repository, rebuilt only when its file changed.

    Examples
    --------
    >>> repo = MetricsRepository(":memory:")
    >>> cache = SnapshotCache(repo)
    >>> cache.get()["series"]
    []
    """

    def __init__(
        self,
        repo: MetricsRepository,
        tags: Mapping[str, str] | None = None,
        title: str | None = None,
    ) -> None:
        self.repo, self.tags, self.title = repo, dict(tags or {}), title
        self._lock = threading.Lock()
        self._key: tuple[int, ...] | None = None
        self._snapshot: dict[str, Any] = {}

    def get(self) -> dict[str, Any]:
        """The snapshot, rebuilt if the file's size, modification time or inode changed (an
        in-memory or PostgreSQL repository has no file: rebuilt every time)."""
        with self._lock:
            key = self._file_key()
            if key is None or key != self._key:
                self._snapshot = collect_snapshot(self.repo, tags=self.tags, title=self.title)
                self._key = key
            return self._snapshot

    def _file_key(self) -> tuple[int, ...] | None:
        if self.repo.path == ":memory:" or is_url(self.repo.path):
            return None
        try:
            info = os.stat(self.repo.path)
        except OSError:
            return None
        return (info.st_ino, info.st_size, info.st_mtime_ns)


def create_app(
    repo: MetricsRepository,
    *,
    token: str | None = None,
    tags: Mapping[str, str] | None = None,
    title: str | None = None,
    allowed_hosts: list[str] | None = None,
) -> Starlette:
    """The UI's ASGI application over `repo` (runs whose tags include `tags`).

    ``allowed_hosts`` limits the ``Host`` header (``None``: any; `UIServer` passes the
    loopback names when it binds to loopback).
    """
    cache = SnapshotCache(repo, tags, title)

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
            return _json(rows)

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
    return Starlette(routes=routes, middleware=middleware)


class ReadOnlyGuard:
    """ASGI middleware: 405 for every method but GET/HEAD, the bearer token, safe headers."""

    def __init__(self, app: ASGIApp, token: str | None = None) -> None:
        self.app = app
        self.token = token

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
        elif self.token is not None and request.url.path != "/api/health":
            response = self._login(request)
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

        await self.app(scope, receive, with_headers)

    def _login(self, request: Request) -> Response | None:
        """None when the request carries the token; else the redirect or the 401."""
        assert self.token is not None
        given = request.query_params.get("token") if request.url.path == "/" else None
        if given is not None:
            if not _same(given, self.token):
                return _error(401, "wrong token")
            redirect = RedirectResponse("/", status_code=303)
            redirect.set_cookie(COOKIE, self.token, httponly=True, samesite="strict")
            return redirect
        header = request.headers.get("authorization", "")
        scheme, _, value = header.partition(" ")
        if scheme.lower() == "bearer" and _same(value.strip(), self.token):
            return None
        if _same(request.cookies.get(COOKIE, ""), self.token):
            return None
        response = _error(401, "this UI needs a token: 'Authorization: Bearer TOKEN' or /?token=")
        response.headers["WWW-Authenticate"] = "Bearer"
        return response


def _same(given: str, expected: str) -> bool:
    return hmac.compare_digest(given.encode(), expected.encode())


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

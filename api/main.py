"""The FastAPI application: ``uvicorn api.main:app`` (or ``python -m api``).

At start-up it connects the Temporal client (retrying while the dev server boots); the built web app
(``web/dist``) is served at ``/`` with a single-page-app fallback to ``index.html``; ``/robots.txt`` and
``/sitemap.xml`` are generated for the address the site is served at.
"""

from __future__ import annotations

import asyncio
import logging
import mimetypes
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import psycopg
from fastapi import FastAPI, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse, PlainTextResponse, Response
from sqlalchemy import text
from sqlalchemy.exc import DBAPIError
from sqlalchemy.exc import OperationalError as SAOperationalError
from starlette.exceptions import HTTPException as StarletteHTTPException
from temporalio.client import Client

from api import metrics
from api.deps import AdminUser
from api.errors import (
    ApiError,
    api_error_handler,
    database_unavailable_handler,
    error_response,
    http_error_handler,
    is_database_unavailable,
    validation_error_handler,
)
from api.http_headers import SecurityHeadersMiddleware
from api.public.app import create_public_app
from api.public.removebg import create_removebg_app
from api.request_limits import RequestLimitsMiddleware
from api.routes import (
    admin_history,
    admin_jobs,
    admin_overview,
    admin_users,
    api_keys,
    auth,
    config,
    credits,
    designer,
    dev_mail,
    events,
    me,
    notifications,
    orders,
    payments,
    photos,
    webhooks,
)
from api.text_rules import INVALID_CHARACTERS
from fotopronta.db import get_engine
from fotopronta.links import RequestOriginMiddleware, public_base_url
from fotopronta.settings import get_settings

log = logging.getLogger("fotopronta.api")


async def connect_temporal(address: str, namespace: str, *, attempts: int = 60) -> Client:
    """Connect to Temporal, retrying once a second while the server starts.

    Raises:
        RuntimeError: still unreachable after ``attempts`` tries.
    """
    last: Exception | None = None
    for _ in range(attempts):
        try:
            return await Client.connect(address, namespace=namespace)
        except Exception as exc:  # the SDK raises RuntimeError for connection failures
            last = exc
            await asyncio.sleep(1)
    raise RuntimeError(f"Temporal unreachable at {address}: {last}")


@asynccontextmanager
async def lifespan(app: FastAPI) -> AsyncIterator[None]:
    """Connect Temporal on start-up."""
    settings = get_settings()
    app.state.temporal = await connect_temporal(settings.temporal_address, settings.temporal_namespace)
    yield


def _ping_database() -> None:
    with get_engine().connect() as conn:
        conn.execute(text("SELECT 1"))


async def _dbapi_error_handler(request: Request, exc: Exception) -> Response:
    """A ``DBAPIError`` from a lost connection (e.g. ``connection_invalidated`` mid-query) is a 503; a
    NUL character that reached a query (PostgreSQL text cannot hold one) is a 400 with the Italian
    message of :mod:`api.text_rules`; any other database error is raised on (a 500 from the server)."""
    if is_database_unavailable(exc):
        return await database_unavailable_handler(request, exc)
    if isinstance(exc, DBAPIError) and isinstance(exc.orig, psycopg.DataError) and "NUL" in str(exc.orig):
        return error_response(ApiError(400, INVALID_CHARACTERS, "invalid_characters"))
    raise exc


def _mount_admin_openapi(app: FastAPI) -> None:
    """Outside development: ``GET /openapi.json`` (the API's schema) for active admins only; anyone
    else gets the usual 401/403. The docs pages are not served (the schema opens in any OpenAPI
    viewer, and ``make dev`` serves ``/docs``)."""

    @app.get("/openapi.json", include_in_schema=False)
    def admin_openapi(_admin: AdminUser) -> JSONResponse:
        return JSONResponse(app.openapi())


def create_app(*, with_lifespan: bool = True) -> FastAPI:
    """Build the application (security headers, routers, error handlers, health check, static web
    app)."""
    settings = get_settings()
    app = FastAPI(
        title="FotoPronta API",
        version="0.1.0",
        lifespan=lifespan if with_lifespan else None,
        # production: no API docs pages; the schema only for admins (_mount_admin_openapi)
        docs_url="/docs" if settings.is_development else None,
        redoc_url="/redoc" if settings.is_development else None,
        openapi_url="/openapi.json" if settings.is_development else None,
    )
    app.add_middleware(RequestLimitsMiddleware)
    app.add_middleware(SecurityHeadersMiddleware, production=settings.is_production)
    app.add_middleware(RequestOriginMiddleware)
    app.add_exception_handler(ApiError, api_error_handler)
    app.add_exception_handler(StarletteHTTPException, http_error_handler)
    app.add_exception_handler(RequestValidationError, validation_error_handler)
    # the database is down or the connection was lost: 503 with Retry-After, never a bare 500
    app.add_exception_handler(SAOperationalError, database_unavailable_handler)
    app.add_exception_handler(DBAPIError, _dbapi_error_handler)
    app.add_exception_handler(psycopg.OperationalError, database_unavailable_handler)
    for router in (
        designer.router,
        admin_jobs.router,
        auth.router,
        me.router,
        photos.router,
        orders.router,
        notifications.router,
        payments.router,
        credits.router,
        config.router,
        admin_users.router,
        dev_mail.router,
        events.router,
        admin_history.router,
        admin_overview.router,
        api_keys.router,
        webhooks.router,
    ):
        app.include_router(router)

    app.add_middleware(metrics.MetricsMiddleware)
    if settings.is_development:  # production: only on the internal port (settings.api_metrics_bind)
        app.add_api_route(
            "/metrics", metrics.metrics, methods=["GET"], include_in_schema=False, operation_id="metrics"
        )
    else:
        _mount_admin_openapi(app)

    @app.get("/healthz", tags=["health"], operation_id="health-check")
    async def healthz(request: Request) -> JSONResponse:
        """200 when the database and Temporal answer, 503 otherwise."""
        checks: dict[str, str] = {}
        try:
            await run_in_threadpool(_ping_database)
            checks["database"] = "ok"
        except Exception as exc:
            checks["database"] = f"error: {exc.__class__.__name__}"
        client: Client | None = getattr(request.app.state, "temporal", None)
        try:
            if client is None:
                raise RuntimeError("not connected")
            await client.service_client.check_health()
            checks["temporal"] = "ok"
        except Exception as exc:
            checks["temporal"] = f"error: {exc.__class__.__name__}"
        ok = all(v == "ok" for v in checks.values())
        return JSONResponse({"status": "ok" if ok else "error", **checks}, status_code=200 if ok else 503)

    public = create_public_app()
    public.state = app.state  # the Temporal client connected at start-up
    app.mount("/v1", public)
    removebg = create_removebg_app()
    removebg.state = app.state
    app.mount("/v1.0", removebg)
    _mount_seo(app)
    _mount_web(app, settings.web_dist)
    return app


#: Public pages listed in ``/sitemap.xml`` (SPEC §2 public routes a search engine should index).
SITEMAP_PATHS = ("/", "/privacy-policy", "/terms-of-service", "/cookie-policy")


def _site_url(_request: Request) -> str:
    """Absolute base URL without the trailing slash: the address links point to
    (:func:`fotopronta.links.public_base_url`: ``public_url``, or in development the allowed address
    this request reached), never a ``Host`` header taken on trust."""
    return public_base_url(get_settings())


def _mount_seo(app: FastAPI) -> None:
    """``/robots.txt`` (text/plain) and ``/sitemap.xml`` (application/xml) for crawlers, instead of the
    app shell that the web app's fallback would answer."""

    @app.get("/robots.txt", include_in_schema=False)
    def robots(request: Request) -> PlainTextResponse:
        site = _site_url(request)
        lines = [
            "User-agent: *",
            "Allow: /",
            "Disallow: /api/",
            "Disallow: /dev/",
            f"Sitemap: {site}/sitemap.xml",
            "",
        ]
        return PlainTextResponse("\n".join(lines), headers={"Cache-Control": "public, max-age=3600"})

    @app.get("/sitemap.xml", include_in_schema=False)
    def sitemap(request: Request) -> Response:
        site = _site_url(request)
        urls = "".join(f"<url><loc>{site}{path}</loc></url>" for path in SITEMAP_PATHS)
        body = f'<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">{urls}</urlset>\n'
        return Response(body, media_type="application/xml", headers={"Cache-Control": "public, max-age=3600"})


def _web_file(request: Request, file: Path, cache_control: str | None) -> FileResponse:
    """``file``, or its gzip twin ``file.gz`` (written by ``web/scripts/compress-dist.mjs``) when the
    browser accepts gzip."""
    headers = {"Vary": "Accept-Encoding"}
    if cache_control:
        headers["Cache-Control"] = cache_control
    gz = file.with_name(file.name + ".gz")
    if "gzip" in request.headers.get("accept-encoding", "") and gz.is_file():
        media_type = mimetypes.guess_type(file.name)[0] or "application/octet-stream"
        headers["Content-Encoding"] = "gzip"
        return FileResponse(gz, media_type=media_type, headers=headers)
    return FileResponse(file, headers=headers)


NOT_PAGES = frozenset({"docs", "docs/oauth2-redirect", "redoc", "openapi.json", "metrics"})
"""Paths of the API docs and metrics: where they are not served (production) they answer a JSON 404,
never the web app's shell."""


def _mount_web(app: FastAPI, dist: Path) -> None:
    """Serve ``dist`` at ``/``: real files as they are, any other non-API path as ``index.html``."""

    @app.get("/{path:path}", include_in_schema=False)
    def web_app(path: str, request: Request) -> Response:
        if path.startswith("api/") or path == "api" or path in NOT_PAGES:
            return JSONResponse({"detail": "Risorsa non trovata.", "code": "not_found"}, status_code=404)
        root = dist.resolve()
        candidate = (root / path).resolve()
        if path and candidate.is_file() and root in candidate.parents:
            # Vite's hashed file names change with their content: cache them for good.
            immutable = path.startswith("assets/")
            return _web_file(request, candidate, "public, max-age=31536000, immutable" if immutable else None)
        index = root / "index.html"
        if index.is_file():
            return _web_file(request, index, "no-cache")
        return Response(
            "<!doctype html><html lang=it><title>FotoPronta</title><p>App web non compilata: "
            "esegui <code>make web</code>.</p></html>",
            media_type="text/html",
            status_code=503,
        )


app = create_app()

"""The FastAPI application: ``uvicorn api.main:app`` (or ``python -m api``).

At start-up it connects the Temporal client (retrying while the dev server boots); the built web app
(``web/dist``) is served at ``/`` with a single-page-app fallback to ``index.html``.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import psycopg
from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse, Response
from sqlalchemy import text
from sqlalchemy.exc import DBAPIError
from sqlalchemy.exc import OperationalError as SAOperationalError
from starlette.exceptions import HTTPException as StarletteHTTPException
from temporalio.client import Client

from api import metrics
from api.errors import (
    ApiError,
    api_error_handler,
    database_unavailable_handler,
    http_error_handler,
    is_database_unavailable,
    validation_error_handler,
)
from api.http_headers import SecurityHeadersMiddleware
from api.routes import (
    admin_history,
    admin_jobs,
    admin_overview,
    admin_users,
    auth,
    credits,
    designer,
    dev_mail,
    events,
    me,
    notifications,
    orders,
    payments,
    photos,
)
from fotopronta.db import get_engine
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


async def _dbapi_error_handler(request: Request, exc: Exception) -> Response:
    """A ``DBAPIError`` from a lost connection (e.g. ``connection_invalidated`` mid-query) is a 503;
    any other database error is raised on, as before (a 500 from the server)."""
    if is_database_unavailable(exc):
        return await database_unavailable_handler(request, exc)
    raise exc


def create_app(*, with_lifespan: bool = True) -> FastAPI:
    """Build the application (security headers, routers, error handlers, health check, static web
    app)."""
    settings = get_settings()
    app = FastAPI(title="FotoPronta API", version="0.1.0", lifespan=lifespan if with_lifespan else None)
    app.add_middleware(SecurityHeadersMiddleware, production=settings.is_production)
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
        admin_users.router,
        dev_mail.router,
        events.router,
        admin_history.router,
        admin_overview.router,
    ):
        app.include_router(router)

    app.add_middleware(metrics.MetricsMiddleware)
    app.add_api_route(
        "/metrics", metrics.metrics, methods=["GET"], include_in_schema=False, operation_id="metrics"
    )

    @app.get("/healthz", tags=["health"], operation_id="health-check")
    async def healthz(request: Request) -> JSONResponse:
        """200 when the database and Temporal answer, 503 otherwise."""
        checks: dict[str, str] = {}
        try:
            with get_engine().connect() as conn:
                conn.execute(text("SELECT 1"))
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

    _mount_web(app, settings.web_dist)
    return app


def _mount_web(app: FastAPI, dist: Path) -> None:
    """Serve ``dist`` at ``/``: real files as they are, any other non-API path as ``index.html``."""

    @app.get("/{path:path}", include_in_schema=False)
    def web_app(path: str) -> Response:
        if path.startswith("api/") or path == "api":
            return JSONResponse({"detail": "Risorsa non trovata.", "code": "not_found"}, status_code=404)
        root = dist.resolve()
        candidate = (root / path).resolve()
        if path and candidate.is_file() and root in candidate.parents:
            return FileResponse(candidate)
        index = root / "index.html"
        if index.is_file():
            return FileResponse(index, headers={"Cache-Control": "no-cache"})
        return Response(
            "<!doctype html><html lang=it><title>FotoPronta</title><p>App web non compilata: "
            "esegui <code>make web</code>.</p></html>",
            media_type="text/html",
            status_code=503,
        )


app = create_app()

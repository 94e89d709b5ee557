"""RFC 9457 problem details for ``/v1``: every error is ``application/problem+json`` with ``type``,
``title``, ``status``, ``detail`` (Italian), a stable ``code`` (the list in ``docs/public-api.md``) and
``request_id``, which is also the ``X-Request-Id`` header of every ``/v1`` answer.

:class:`PublicApiMiddleware` gives each request its id and adds the per-key ``RateLimit-*`` headers the
key dependency (:mod:`api.public.auth`) left in the request state (and ``Retry-After`` on a 429).
"""

from __future__ import annotations

import logging
import secrets
from typing import Any

from fastapi import Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.datastructures import MutableHeaders
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from api.errors import (
    HTTP_MESSAGES,
    MULTIPART_LIMIT_PREFIXES,
    SERVICE_UNAVAILABLE_DETAIL,
    SERVICE_UNAVAILABLE_RETRY_AFTER_S,
    TOO_MANY_PARTS,
    ApiError,
    is_database_unavailable,
)
from fotopronta.ratelimit import Window

log = logging.getLogger("fotopronta.api.public")

PROBLEM_TYPE_BASE = "https://fotopronta.it/docs/public-api#"
"""``type`` of a problem: this base and its ``code`` (the section of ``docs/public-api.md`` listing it)."""
PROBLEM_MEDIA_TYPE = "application/problem+json"
STATE_REQUEST_ID = "request_id"
STATE_RATE_WINDOW = "rate_window"
STATE_EXTRA_HEADERS = "extra_headers"

TITLES = {
    400: "Richiesta non valida",
    401: "Autenticazione richiesta",
    402: "Crediti insufficienti",
    403: "Accesso negato",
    404: "Risorsa non trovata",
    405: "Metodo non consentito",
    406: "Formato non disponibile",
    409: "Conflitto",
    410: "Risorsa non più disponibile",
    413: "Richiesta troppo grande",
    415: "Tipo di contenuto non supportato",
    422: "Dati non validi",
    429: "Troppe richieste",
    500: "Errore interno",
    502: "Errore nel recupero dell'immagine",
    503: "Servizio non disponibile",
    504: "Tempo scaduto",
}


def new_request_id() -> str:
    """``req_`` and 24 hex characters."""
    return "req_" + secrets.token_hex(12)


def request_id_of(request: Request) -> str:
    """The request's id (set by :class:`PublicApiMiddleware`; a fresh one outside it)."""
    state = request.scope.setdefault("state", {})
    if STATE_REQUEST_ID not in state:
        state[STATE_REQUEST_ID] = new_request_id()
    return str(state[STATE_REQUEST_ID])


def problem(
    request: Request,
    status: int,
    detail: str,
    code: str,
    title: str | None = None,
    *,
    headers: dict[str, str] | None = None,
    extra: dict[str, Any] | None = None,
) -> JSONResponse:
    """One problem+json answer (see the module docstring)."""
    body: dict[str, Any] = {
        "type": PROBLEM_TYPE_BASE + code,
        "title": title or TITLES.get(status, "Errore"),
        "status": status,
        "detail": detail,
        "code": code,
        "request_id": request_id_of(request),
        **(extra or {}),
    }
    return JSONResponse(body, status_code=status, headers=headers, media_type=PROBLEM_MEDIA_TYPE)


async def api_error_problem(request: Request, exc: Exception) -> JSONResponse:
    """:class:`api.errors.ApiError` (the services' errors, shared with the web app) as a problem."""
    assert isinstance(exc, ApiError)
    return problem(request, exc.status, exc.detail, exc.code, exc.title)


async def http_error_problem(request: Request, exc: Exception) -> JSONResponse:
    """Starlette's HTTP errors (404 of an unknown path, 405, 413 while streaming) as problems."""
    assert isinstance(exc, StarletteHTTPException)
    from api.errors import BODY_LIMIT_ERROR_SCOPE_KEY, body_too_large

    if exc.status_code == 413:
        limit = request.scope.get(BODY_LIMIT_ERROR_SCOPE_KEY)
        error = limit if isinstance(limit, ApiError) else body_too_large(None)
        return problem(request, 413, error.detail, error.code, error.title, headers={"Connection": "close"})
    if exc.status_code == 400 and str(exc.detail).startswith(MULTIPART_LIMIT_PREFIXES):
        return problem(request, 400, TOO_MANY_PARTS, "too_many_parts", headers={"Connection": "close"})
    detail, code = HTTP_MESSAGES.get(exc.status_code, (str(exc.detail), "http_error"))
    return problem(request, exc.status_code, detail, code, headers=dict(exc.headers or {}))


async def validation_problem(request: Request, exc: Exception) -> JSONResponse:
    """Request validation errors: 422 ``validation_error`` naming the first bad field, with every error
    in ``errors`` (``field``, ``message``)."""
    assert isinstance(exc, RequestValidationError)
    errors = exc.errors()
    fields = [".".join(str(p) for p in e["loc"][1:]) or str(e["loc"][0]) for e in errors]
    detail = f"Dati non validi: controlla il campo '{fields[0]}'." if fields else "Dati non validi."
    listed = [{"field": f, "message": str(e.get("msg", ""))} for f, e in zip(fields, errors, strict=True)]
    return problem(request, 422, detail, "validation_error", extra={"errors": listed[:20]})


async def unavailable_problem(request: Request, exc: Exception) -> JSONResponse:
    """The database cannot be reached: 503 ``service_unavailable`` with ``Retry-After``; any other
    error: 500 ``internal_error`` (logged), never a stack trace."""
    if is_database_unavailable(exc):
        return problem(
            request,
            503,
            SERVICE_UNAVAILABLE_DETAIL,
            "service_unavailable",
            headers={"Retry-After": str(SERVICE_UNAVAILABLE_RETRY_AFTER_S)},
        )
    log.exception("public API error", exc_info=exc)
    return problem(
        request, 500, "Errore interno del server: riprova tra poco.", "internal_error", headers=None
    )


def rate_headers(window: Window) -> dict[str, str]:
    """``RateLimit-Limit``, ``RateLimit-Remaining``, ``RateLimit-Reset`` (seconds) of ``window``, and
    ``Retry-After`` when it refused the request."""
    headers = {
        "RateLimit-Limit": str(window.limit),
        "RateLimit-Remaining": str(window.remaining),
        "RateLimit-Reset": str(window.reset_s),
    }
    if not window.allowed:
        headers["Retry-After"] = str(max(window.reset_s, 1))
    return headers


class PublicApiMiddleware:
    """Per ``/v1`` request: an id (``X-Request-Id``) and the key's rate-limit headers, on every answer
    (errors included)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Run the app, adding the headers to its ``http.response.start``."""
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        state = scope.setdefault("state", {})
        state.setdefault(STATE_REQUEST_ID, new_request_id())

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                headers["X-Request-Id"] = str(state[STATE_REQUEST_ID])
                window = state.get(STATE_RATE_WINDOW)
                if isinstance(window, Window):
                    for name, value in rate_headers(window).items():
                        headers[name] = value
                for name, value in (state.get(STATE_EXTRA_HEADERS) or {}).items():
                    if name not in headers:
                        headers[name] = value
            await send(message)

        await self.app(scope, receive, send_with_headers)


def problem_outside(path: str, exc: ApiError, headers: dict[str, str] | None = None) -> JSONResponse:
    """:class:`ApiError` as the public API answers it, for middleware that answers before the
    sub-application runs (no request state: a fresh request id): a problem for ``/v1``, remove.bg's
    ``{"errors": [...]}`` for ``/v1.0``."""
    request_id = new_request_id()
    if path.startswith("/v1.0/"):  # remove.bg's shape; a bad key is its 403
        status = 403 if exc.status == 401 else exc.status
        body: dict[str, Any] = {
            "errors": [
                {
                    "title": exc.title or TITLES.get(exc.status, "Errore"),
                    "code": "auth_failed" if exc.status == 401 else exc.code,
                    "detail": exc.detail,
                }
            ]
        }
        return JSONResponse(body, status_code=status, headers={**(headers or {}), "X-Request-Id": request_id})
    body = {
        "type": PROBLEM_TYPE_BASE + exc.code,
        "title": exc.title or TITLES.get(exc.status, "Errore"),
        "status": exc.status,
        "detail": exc.detail,
        "code": exc.code,
        "request_id": request_id,
    }
    return JSONResponse(
        body,
        status_code=exc.status,
        headers={**(headers or {}), "X-Request-Id": request_id},
        media_type=PROBLEM_MEDIA_TYPE,
    )

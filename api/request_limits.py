"""Request limits enforced before a route reads anything: the body size per route, callers of the
upload routes authenticated before their multipart body is read, and no NUL in query strings.

:class:`RequestLimitsMiddleware` (plain ASGI) decides per request:

- **Upload routes** (``POST /api/photos``, ``POST /api/designer/jobs/{id}/complete``): the bearer
  token is checked first (:func:`api.deps.authenticate`, one query; the designer route also needs a
  graphic or admin), so an anonymous or forged caller gets its 401/403 without a byte of the body
  being read or spooled to disk. The limit then depends on the caller:
  :func:`upload_body_limit` (the batch limit of the role, never more than files × per-file limit)
  or the designer's 10 MB result, plus :data:`MULTIPART_OVERHEAD_BYTES`.
- **Public API uploads** (``POST /v1/jobs``, ``/v1/batches``, ``/v1.0/removebg``): the API key is
  checked first (one query), then :func:`public_body_limit`; their errors in the public API's shapes.
- **The payment webhook**: ``settings.webhook_body_max_bytes`` (Stripe's signed JSON events).
- **Every other request**: ``settings.json_body_max_bytes`` (the JSON bodies of this API are a few
  hundred bytes; notes are at most 2,000 characters).

A ``Content-Length`` over the limit is answered 413 at once, unread. A body sent without one (chunked)
is counted while it streams by Starlette's ``RequestBodyLimitMiddleware``, which raises as soon as
the count passes the limit: the route stops reading and :func:`api.errors.http_error_handler`
answers the same 413 (``Connection: close``, the rest of the body is never read).
"""

from __future__ import annotations

import re

from fastapi.concurrency import run_in_threadpool
from starlette.datastructures import Headers
from starlette.middleware.body_limit import RequestBodyLimitMiddleware
from starlette.requests import Request
from starlette.types import ASGIApp, Receive, Scope, Send

from api.errors import (
    BODY_LIMIT_ERROR_SCOPE_KEY,
    ApiError,
    body_too_large,
    database_unavailable_handler,
    error_response,
    is_database_unavailable,
)
from fotopronta.domain import UserRole
from fotopronta.settings import Settings, get_settings

MULTIPART_OVERHEAD_BYTES = 1024 * 1024
"""Room for the multipart envelope of an upload: part headers, boundaries and the text fields
(brand, category, notes ≤ 2,000 characters), well under 1 MB."""
DESIGNER_RESULT_MAX_BYTES = 10 * 1024 * 1024
"""Largest result file a designer uploads (SPEC §9: 'Il file deve essere inferiore a 10MB')."""

PHOTO_UPLOAD_PATHS = frozenset({"/api/photos", "/api/photos/batch"})
PUBLIC_UPLOAD_PATHS = frozenset({"/v1/jobs", "/v1/batches", "/v1.0/removebg"})
"""The public API's routes that take photos (multipart, or JSON with base64): the API key is checked
before the body is read."""
"""The seller's upload routes: all-or-nothing and the batch that keeps the good files."""
_DESIGNER_COMPLETE = re.compile(r"^/api/designer/jobs/[^/]+/complete$")
WEBHOOK_PATH = "/api/payments/webhook"

INVALID_QUERY = ApiError(
    400, "La richiesta contiene caratteri non ammessi.", "invalid_characters", "Richiesta non valida"
)


def upload_body_limit(settings: Settings, role: UserRole) -> int:
    """Largest ``POST /api/photos`` body, in bytes, for ``role``: the batch limit of SPEC §9
    (100 MB, admins 250 MB), never more than files × ``max_file_bytes``, plus
    :data:`MULTIPART_OVERHEAD_BYTES`."""
    admin = role is UserRole.admin
    files = settings.max_batch_files_admin if admin else settings.max_batch_files_standard
    batch = settings.max_batch_bytes_admin if admin else settings.max_batch_bytes_standard
    return min(batch, files * settings.max_file_bytes) + MULTIPART_OVERHEAD_BYTES


def batch_too_large(settings: Settings, role: UserRole) -> ApiError:
    """413 ``batch_too_large`` for an upload over its batch limit, with SPEC §9's title and message
    (the same as :func:`api.uploads.check_batch`'s)."""
    admin = role is UserRole.admin
    batch = settings.max_batch_bytes_admin if admin else settings.max_batch_bytes_standard
    return ApiError(
        413,
        f"La dimensione totale non può superare {batch // (1024 * 1024)}MB",
        "batch_too_large",
        "Batch troppo grande",
    )


def public_body_limit(settings: Settings, path: str, role: UserRole) -> int:
    """Largest body of a public API upload, in bytes: one photo (``max_file_bytes``) or, for
    ``/v1/batches``, the role's batch limit, either grown by a third for base64 in JSON, plus
    :data:`MULTIPART_OVERHEAD_BYTES`."""
    single = settings.max_file_bytes
    if path == "/v1/batches":
        single = upload_body_limit(settings, role) - MULTIPART_OVERHEAD_BYTES
    return single * 4 // 3 + MULTIPART_OVERHEAD_BYTES


def _key_role(secret: str | None) -> UserRole:
    """The effective role of the API key's owner (blocking: one query; see
    :func:`api.services.api_keys.authenticate_key`).

    Raises:
        ApiError: 401/403 as :func:`api.services.api_keys.authenticate_key`.
    """
    from api.deps import effective_role
    from api.services.api_keys import authenticate_key
    from fotopronta.db import session_factory
    from fotopronta.models import Profile

    with session_factory()() as session:
        caller = authenticate_key(session, secret)
        return effective_role(session.get_one(Profile, caller.user_id))


def _api_key(headers: Headers) -> str | None:
    return (headers.get("x-api-key") or "").strip() or _bearer(headers)


def _bearer(headers: Headers) -> str | None:
    scheme, _, token = headers.get("authorization", "").partition(" ")
    return token.strip() if scheme.lower() == "bearer" and token.strip() else None


def _caller_role(token: str | None, *, designer: bool) -> UserRole:
    """The effective role of the bearer ``token``'s user (blocking: one query).

    Raises:
        ApiError: 401 as :func:`api.deps.authenticate`; 403 when ``designer`` and the caller is not
            an active graphic or admin.
    """
    from api.deps import authenticate, effective_role, get_designer
    from fotopronta.db import session_factory

    with session_factory()() as session:
        profile = authenticate(session, token).profile
        if designer:
            get_designer(profile)
        return effective_role(profile)


def declared_over(headers: Headers, limit: int) -> bool:
    """Whether the request's ``Content-Length`` is over ``limit`` bytes."""
    try:
        return int(headers.get("content-length", "")) > limit
    except ValueError:
        return False


class RequestLimitsMiddleware:
    """Per-route body limits, authentication before multipart bodies, NUL-free query strings (see the
    module docstring)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Answer 400/401/403/413 without reading the body, or run the app under the body limit."""
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        if b"%00" in scope.get("query_string", b""):
            await error_response(INVALID_QUERY)(scope, receive, send)
            return
        settings = get_settings()
        path, method = scope.get("path", ""), scope.get("method", "GET")
        headers = Headers(scope=scope)
        limit, error = settings.json_body_max_bytes, body_too_large(settings.json_body_max_bytes)
        designer = method == "POST" and bool(_DESIGNER_COMPLETE.match(path))
        if (method == "POST" and path in PHOTO_UPLOAD_PATHS) or designer:
            try:
                role = await run_in_threadpool(_caller_role, _bearer(headers), designer=designer)
            except ApiError as exc:
                auth = {"WWW-Authenticate": "Bearer"} if exc.status == 401 else {}
                await error_response(exc, {**auth, "Connection": "close"})(scope, receive, send)
                return
            except Exception as exc:  # the database is down: the same 503 the routes answer
                if not is_database_unavailable(exc):
                    raise
                unavailable = await database_unavailable_handler(Request(scope), exc)
                unavailable.headers["Connection"] = "close"
                await unavailable(scope, receive, send)
                return
            if designer:
                limit = DESIGNER_RESULT_MAX_BYTES + MULTIPART_OVERHEAD_BYTES
                error = ApiError(
                    413, "Il file deve essere inferiore a 10MB", "file_too_large", "File troppo grande"
                )
            else:
                limit, error = upload_body_limit(settings, role), batch_too_large(settings, role)
        elif method == "POST" and path in PUBLIC_UPLOAD_PATHS:
            from api.public.problems import problem_outside

            try:
                role = await run_in_threadpool(_key_role, _api_key(headers))
            except ApiError as exc:
                await problem_outside(path, exc, {"Connection": "close"})(scope, receive, send)
                return
            limit = public_body_limit(settings, path, role)
            error = body_too_large(limit)
            if declared_over(headers, limit):
                await problem_outside(path, error, {"Connection": "close"})(scope, receive, send)
                return
        elif method == "POST" and path == WEBHOOK_PATH:
            limit = settings.webhook_body_max_bytes
            error = body_too_large(limit)
        try:
            declared = int(headers.get("content-length", ""))
        except ValueError:
            declared = None
        if declared is not None and declared > limit:
            await error_response(error, {"Connection": "close"})(scope, receive, send)
            return
        scope[BODY_LIMIT_ERROR_SCOPE_KEY] = error
        await RequestBodyLimitMiddleware(self.app, max_body_size=limit)(scope, receive, send)

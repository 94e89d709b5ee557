"""API errors: every error body is ``{"detail": "<Italian message>", "code": "<machine code>"}``
(DESIGN.md, HTTP API), plus an optional ``title`` for the web app's toast (SPEC §8 titles)."""

from __future__ import annotations

from fastapi import Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from sqlalchemy.exc import DBAPIError
from sqlalchemy.exc import OperationalError as SAOperationalError
from starlette.exceptions import HTTPException as StarletteHTTPException


class ApiError(Exception):
    """An error the client shows: HTTP ``status``, Italian ``detail``, machine ``code``, toast ``title``."""

    def __init__(self, status: int, detail: str, code: str, title: str | None = None) -> None:
        super().__init__(detail)
        self.status = status
        self.detail = detail
        self.code = code
        self.title = title


def _body(detail: str, code: str, title: str | None) -> dict[str, str]:
    body = {"detail": detail, "code": code}
    if title:
        body["title"] = title
    return body


async def api_error_handler(_: Request, exc: Exception) -> JSONResponse:
    """Render :class:`ApiError`."""
    assert isinstance(exc, ApiError)
    return JSONResponse(_body(exc.detail, exc.code, exc.title), status_code=exc.status)


HTTP_MESSAGES = {
    401: ("Sessione non valida o scaduta: accedi di nuovo.", "not_authenticated"),
    403: ("Non hai i permessi necessari per questa operazione.", "forbidden"),
    404: ("Risorsa non trovata.", "not_found"),
    405: ("Metodo non consentito.", "method_not_allowed"),
}


MULTIPART_LIMIT_PREFIXES = ("Too many files", "Too many fields")
"""Starts of the messages of Starlette's multipart parser when a form passes a route's ``form_limits``."""
TOO_MANY_PARTS = "Il modulo contiene troppi file o campi, o un campo troppo lungo."
FIELD_TOO_LARGE_PREFIXES = ("Field exceeded maximum size", "Part exceeded maximum size")
"""Starlette's messages for a text field of a form over its ``max_part_size`` (1 MB)."""
FIELD_TOO_LARGE = "Un campo del modulo è troppo lungo (al massimo 1 MB di testo)."
MALFORMED_BODY_PREFIXES = (
    "Invalid multipart data",
    "Missing boundary in multipart",
    'The Content-Disposition header field "name"',
    "There was an error parsing the body",
)
"""Starlette's and FastAPI's messages for a body or form they cannot parse (a part header too long,
a broken boundary, a missing field name)."""
MALFORMED_BODY = "Il modulo inviato non è valido o è incompleto: ricarica la pagina e riprova."


async def http_error_handler(request: Request, exc: Exception) -> JSONResponse:
    """Render Starlette's HTTP errors in our shape, in Italian (a 413 from the streaming body limit
    with the route's own message and limit)."""
    assert isinstance(exc, StarletteHTTPException)
    if exc.status_code == 413:
        limit = request.scope.get(BODY_LIMIT_ERROR_SCOPE_KEY)
        error = limit if isinstance(limit, ApiError) else body_too_large(None)
        return error_response(error, {"Connection": "close"})
    detail = str(exc.detail)
    if exc.status_code == 400 and detail.startswith(MULTIPART_LIMIT_PREFIXES):
        return error_response(
            ApiError(400, TOO_MANY_PARTS, "too_many_parts", "Errore upload"), {"Connection": "close"}
        )
    if exc.status_code == 400 and detail.startswith(FIELD_TOO_LARGE_PREFIXES):
        return error_response(
            ApiError(400, FIELD_TOO_LARGE, "field_too_large", "Errore upload"), {"Connection": "close"}
        )
    if exc.status_code == 400 and detail.startswith(MALFORMED_BODY_PREFIXES):
        return error_response(
            ApiError(400, MALFORMED_BODY, "malformed_body", "Richiesta non valida"), {"Connection": "close"}
        )
    detail, code = HTTP_MESSAGES.get(exc.status_code, (str(exc.detail), "http_error"))
    return JSONResponse(_body(detail, code, None), status_code=exc.status_code, headers=exc.headers)


async def validation_error_handler(_: Request, exc: Exception) -> JSONResponse:
    """Render request validation errors (422) with an Italian message naming the first bad field; the
    text rules of :mod:`api.text_rules` (control characters, names) give their own message."""
    from api.text_rules import CUSTOM_ERROR_TYPES

    assert isinstance(exc, RequestValidationError)
    errors = exc.errors()
    field = ".".join(str(p) for p in errors[0]["loc"][1:]) if errors else ""
    detail = f"Dati non validi: controlla il campo '{field}'." if field else "Dati non validi."
    if errors and errors[0].get("type") in CUSTOM_ERROR_TYPES:
        detail = f"{errors[0]['msg']} (campo '{field}')" if field else str(errors[0]["msg"])
    return JSONResponse(_body(detail, "validation_error", None), status_code=422)


def error_response(exc: ApiError, headers: dict[str, str] | None = None) -> JSONResponse:
    """:class:`ApiError` as a response, for ASGI middleware that answers before any route runs."""
    return JSONResponse(_body(exc.detail, exc.code, exc.title), status_code=exc.status, headers=headers)


BODY_TOO_LARGE_TITLE = "Richiesta troppo grande"
BODY_LIMIT_ERROR_SCOPE_KEY = "fotopronta.body_limit_error"
"""ASGI scope key: the :class:`ApiError` to answer when the body outgrows its limit while streaming
(set by :class:`api.request_limits.RequestLimitsMiddleware`)."""


def size_label(n_bytes: int) -> str:
    """``16 KB``, ``10 MB`` (binary units, as SPEC §9 writes them)."""
    return f"{n_bytes / 1048576:.0f} MB" if n_bytes >= 1048576 else f"{max(1, n_bytes // 1024)} KB"


def body_too_large(limit_bytes: int | None) -> ApiError:
    """413 ``request_too_large``: the request body is over ``limit_bytes`` (``None``: not known)."""
    limit = f": il massimo consentito è {size_label(limit_bytes)}" if limit_bytes else ""
    return ApiError(413, f"La richiesta è troppo grande{limit}.", "request_too_large", BODY_TOO_LARGE_TITLE)


#: Body of the 503 answered while the database cannot be reached (a database outage or restart).
SERVICE_UNAVAILABLE_DETAIL = "Servizio momentaneamente non disponibile, riprova tra poco."
#: Seconds a client should wait before retrying after a 503 (``Retry-After`` header).
SERVICE_UNAVAILABLE_RETRY_AFTER_S = 5


def is_database_unavailable(exc: BaseException) -> bool:
    """True when ``exc`` (or an exception it wraps) says the database cannot be reached: SQLAlchemy's
    ``OperationalError``, a ``DBAPIError`` flagged ``connection_invalidated``, or psycopg's own
    ``OperationalError`` (connection refused, server shut down, connection lost)."""
    import psycopg

    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if isinstance(current, SAOperationalError | psycopg.OperationalError):
            return True
        if isinstance(current, DBAPIError) and current.connection_invalidated:
            return True
        current = current.__cause__ or current.__context__
    return False


async def database_unavailable_handler(_: Request, _exc: Exception) -> JSONResponse:
    """Render a lost database as 503 ``service_unavailable`` with an Italian message and
    ``Retry-After`` (seconds); the pool reconnects by itself (``pool_pre_ping``) once it is back."""
    return JSONResponse(
        _body(SERVICE_UNAVAILABLE_DETAIL, "service_unavailable", None),
        status_code=503,
        headers={"Retry-After": str(SERVICE_UNAVAILABLE_RETRY_AFTER_S)},
    )

"""Security headers on every response, and RFC 6266 ``Content-Disposition`` for downloads.

:class:`SecurityHeadersMiddleware` (a plain ASGI middleware, so server-sent event streams pass
through untouched) adds to every HTTP response that does not set them itself:

- ``Content-Security-Policy``: for the web app ``default-src 'self'`` with ``img-src`` also ``data:``
  and ``blob:`` (thumbnails are fetched with the bearer token and shown as object URLs),
  ``worker-src 'self'`` and ``manifest-src 'self'`` for the PWA's service worker, ``object-src
  'none'``, ``base-uri 'self'``, ``form-action 'self'`` and ``frame-ancestors 'none'``; no inline
  scripts anywhere. API responses (``/api``, JSON and downloads) get ``default-src 'none';
  frame-ancestors 'none'; sandbox``, so a file served from there can never run as a page. The
  development pages (``/dev``) may use inline styles; ``/docs``, ``/redoc`` and the public API's
  reference ``/v1/docs`` may load Swagger UI / ReDoc from ``cdn.jsdelivr.net`` as FastAPI serves them;
  the public API (``/v1``, ``/v1.0``) gets the ``/api`` policy;
- ``X-Content-Type-Options: nosniff``, ``X-Frame-Options: DENY``,
  ``Referrer-Policy: strict-origin-when-cross-origin``, ``Cross-Origin-Opener-Policy: same-origin``,
  ``Permissions-Policy`` (camera, microphone, geolocation off);
- ``Strict-Transport-Security: max-age=63072000; includeSubDomains`` only when
  ``settings.is_production`` (HSTS on a development ``http://localhost`` would pin the browser).
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable
from urllib.parse import quote

from starlette.datastructures import MutableHeaders
from starlette.types import ASGIApp, Message, Receive, Scope, Send

APP_CSP = "; ".join(
    [
        "default-src 'self'",
        "script-src 'self'",
        "style-src 'self'",
        "img-src 'self' data: blob:",
        "font-src 'self' data:",
        "connect-src 'self'",
        "manifest-src 'self'",
        "worker-src 'self'",
        "object-src 'none'",
        "base-uri 'self'",
        "form-action 'self'",
        "frame-ancestors 'none'",
    ]
)
"""CSP of the web app (``web/dist``): every script, style and worker from our origin only."""

API_CSP = "default-src 'none'; frame-ancestors 'none'; sandbox"
"""CSP of ``/api`` responses: JSON and files never render as an active page."""

DEV_PAGES_CSP = APP_CSP.replace("style-src 'self'", "style-src 'self' 'unsafe-inline'")
"""CSP of the development pages (``/dev/mail``, ``/dev/checkout``): their HTML carries inline styles."""

DOCS_CSP = "; ".join(
    [
        "default-src 'self'",
        "script-src 'self' 'unsafe-inline' https://cdn.jsdelivr.net",
        "style-src 'self' 'unsafe-inline' https://cdn.jsdelivr.net https://fonts.googleapis.com",
        "img-src 'self' data: https://fastapi.tiangolo.com https://cdn.redoc.ly",
        "worker-src 'self' blob:",
        "font-src 'self' data: https://fonts.gstatic.com",
        "object-src 'none'",
        "base-uri 'self'",
        "frame-ancestors 'none'",
    ]
)
"""CSP of FastAPI's ``/docs`` and ``/redoc`` pages (inline bootstrap script, assets from jsDelivr,
ReDoc's Google fonts)."""

HSTS = "max-age=63072000; includeSubDomains"
"""``Strict-Transport-Security`` in production: two years (hstspreload.org's minimum is one)."""

COMMON_HEADERS: tuple[tuple[str, str], ...] = (
    ("X-Content-Type-Options", "nosniff"),
    ("X-Frame-Options", "DENY"),
    ("Referrer-Policy", "strict-origin-when-cross-origin"),
    ("Cross-Origin-Opener-Policy", "same-origin"),
    ("Permissions-Policy", "camera=(), microphone=(), geolocation=(), payment=()"),
)


def csp_for_path(path: str) -> str:
    """The Content-Security-Policy for a request path (see the module docstring)."""
    if path == "/api" or path.startswith("/api/"):
        return API_CSP
    if path.startswith("/dev/"):
        return DEV_PAGES_CSP
    if path in ("/docs", "/redoc", "/docs/oauth2-redirect", "/v1/docs", "/v1/docs/oauth2-redirect"):
        return DOCS_CSP
    if path.startswith(("/v1/", "/v1.0/")):
        return API_CSP
    return APP_CSP


def security_headers(path: str, *, production: bool) -> list[tuple[str, str]]:
    """Every security header for a response to ``path``: name and value pairs."""
    headers = [("Content-Security-Policy", csp_for_path(path)), *COMMON_HEADERS]
    if production:
        headers.append(("Strict-Transport-Security", HSTS))
    return headers


class SecurityHeadersMiddleware:
    """Add :func:`security_headers` to every HTTP response (headers a route set itself are kept)."""

    def __init__(self, app: ASGIApp, *, production: bool) -> None:
        self.app = app
        self.production = production

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        extra = security_headers(scope.get("path", ""), production=self.production)

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                for name, value in extra:
                    if name not in headers:
                        headers.append(name, value)
            await send(message)

        await self.app(scope, receive, send_with_headers)


_RFC5987_SAFE = "!#$&+-.^_`|~"
"""``attr-char`` of RFC 5987 §3.2.1 besides letters and digits (kept as they are in ``filename*``)."""


def _ascii_fallback(name: str) -> str:
    """An ASCII-only version of ``name``: accents dropped (NFKD), other characters as ``_``."""
    decomposed = unicodedata.normalize("NFKD", name)
    out: Iterable[str] = (
        ch if 0x20 <= ord(ch) < 0x7F else "_" for ch in decomposed if not unicodedata.combining(ch)
    )
    return "".join(out)


def content_disposition(filename: str, *, disposition: str = "attachment") -> str:
    """A ``Content-Disposition`` header value for a download named ``filename`` (RFC 6266 §4.3).

    ``filename="…"`` carries an ASCII fallback as a quoted-string (RFC 7230 §3.2.6: ``"`` and ``\\``
    backslash-escaped; accents dropped, other non-ASCII characters as ``_``) and
    ``filename*=UTF-8''…`` the exact name, percent-encoded (RFC 5987/8187), which every current
    browser prefers. Path separators and control characters are replaced first, so the value is always
    latin-1 encodable (Starlette's requirement) and cannot split a header.

    Example: ``fotò_€_😀 "x".jpg`` → ``attachment; filename="foto____ \\"x\\".jpg";
    filename*=UTF-8''fot%C3%B2_%E2%82%AC_%F0%9F%98%80%20%22x%22.jpg`` (the name in NFC).
    """
    cleaned = "".join("_" if ch in "/\\" or ord(ch) < 0x20 or ord(ch) == 0x7F else ch for ch in filename)
    cleaned = unicodedata.normalize("NFC", cleaned).strip() or "download"
    fallback = _ascii_fallback(cleaned).replace("\\", "\\\\").replace('"', '\\"')
    encoded = quote(cleaned, safe=_RFC5987_SAFE)
    return f"{disposition}; filename=\"{fallback}\"; filename*=UTF-8''{encoded}"

"""The web app's public address for links in e-mails and payment redirects.

``FOTOPRONTA_PUBLIC_URL`` wins whenever it is set; outside development it is required (settings
refuse to load without it). In development, when it is not set, a link made while serving a request
uses the address that request came to — scheme and ``Host`` header — *if* that host is allowed:
``localhost`` or a loopback IP literal (``127.0.0.0/8``, ``::1``), or a name listed in
``FOTOPRONTA_ALLOWED_HOSTS`` (e.g. a LAN name the developer opens the app at). So a seller who opened
the app at ``http://127.0.0.1:8000`` comes back to the same origin after paying (and keeps the session
that lives in that origin's storage). Any other ``Host`` — a LAN address, this machine's name, a
forged header — is ignored: a ``Host: 192.168.66.6`` on ``password/forgot`` must not put that address
in the e-mailed link. Links made outside a request (the worker) use ``http://localhost:{api_port}``.

:class:`RequestOriginMiddleware` (plain ASGI) records the request's origin in a context variable;
:func:`public_base_url` reads it.
"""

from __future__ import annotations

import ipaddress
from contextvars import ContextVar

from starlette.types import ASGIApp, Receive, Scope, Send

from fotopronta.settings import Settings, get_settings

_request_origin: ContextVar[str | None] = ContextVar("fotopronta_request_origin", default=None)


def _host_allowed(host: str, settings: Settings) -> bool:
    """Whether ``host`` (no port) may be used for links in development (see module docstring)."""
    host = host.strip("[]").lower()
    if not host:
        return False
    extra = {h.strip().lower() for h in settings.allowed_hosts.split(",") if h.strip()}
    if host == "localhost" or host in extra:
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def origin_from_scope(scope: Scope, settings: Settings | None = None) -> str | None:
    """``scheme://host[:port]`` of an HTTP request when its ``Host`` is allowed, else ``None``."""
    settings = settings or get_settings()
    headers = dict(scope.get("headers") or [])
    raw = headers.get(b"host", b"").decode("latin-1").strip()
    if not raw or any(c in raw for c in "/\\@?# "):
        return None
    host = raw.rsplit(":", 1)[0] if not raw.endswith("]") and raw.count(":") == 1 else raw
    if raw.startswith("["):
        host = raw[: raw.index("]") + 1]
    port = raw[len(host) :].lstrip(":")
    if port and not port.isdigit():
        return None
    if not _host_allowed(host, settings):
        return None
    scheme = "https" if scope.get("scheme") == "https" else "http"
    return f"{scheme}://{raw}"


def public_base_url(settings: Settings | None = None) -> str:
    """The address links point to, without a trailing slash (see module docstring)."""
    settings = settings or get_settings()
    if settings.public_url:
        return settings.public_url.rstrip("/")
    origin = _request_origin.get() if settings.is_development else None
    return origin or f"http://localhost:{settings.api_port}"


class RequestOriginMiddleware:
    """Record each HTTP request's allowed origin for :func:`public_base_url` (development only)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Set the context variable for the request's duration."""
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        settings = get_settings()
        origin = origin_from_scope(scope, settings) if settings.is_development else None
        token = _request_origin.set(origin)
        try:
            await self.app(scope, receive, send)
        finally:
            _request_origin.reset(token)

"""API key authentication of the public API, with the per-key rate limit and scopes.

The secret comes in ``Authorization: Bearer fp_live_…`` or ``X-Api-Key: fp_live_…`` (remove.bg's
header); :func:`api.services.api_keys.authenticate_key` checks it against the database on every request,
so a revoked key is refused at the next one. Each authenticated request then counts against the key's
``settings.api_rate_limit`` (PostgreSQL moving window, :func:`fotopronta.ratelimit.hit_window`); the
window is left in the request state for the ``RateLimit-*`` headers, and a request over it is refused
with 429 ``rate_limited`` and ``Retry-After``.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request, Security
from fastapi.security import APIKeyHeader, HTTPAuthorizationCredentials, HTTPBearer

from api.errors import ApiError
from api.public.problems import STATE_RATE_WINDOW
from api.services.api_keys import KeyCaller, authenticate_key
from fotopronta import ratelimit
from fotopronta.db import session_factory
from fotopronta.settings import get_settings

bearer_key = HTTPBearer(
    auto_error=False,
    scheme_name="BearerKey",
    description="La chiave API (`fp_live_…`) come token: `Authorization: Bearer fp_live_…`.",
)
header_key = APIKeyHeader(
    name="X-Api-Key",
    auto_error=False,
    scheme_name="ApiKeyHeader",
    description="La chiave API nell'intestazione `X-Api-Key` (come remove.bg).",
)

RATE_LIMITED = "Troppe richieste con questa chiave: riprova tra {seconds} secondi."


def _authenticate(secret: str | None) -> KeyCaller:
    with session_factory()() as session:
        return authenticate_key(session, secret)


def key_caller(
    request: Request,
    bearer: Annotated[HTTPAuthorizationCredentials | None, Security(bearer_key)],
    header: Annotated[str | None, Security(header_key)],
) -> KeyCaller:
    """Dependency: the caller of a public API request (see the module docstring); blocking, so FastAPI
    runs it in the threadpool.

    Raises:
        ApiError: 401 ``missing_api_key``, ``invalid_api_key``, ``api_key_revoked``; 403
            ``seller_only``; 429 ``rate_limited``.
    """
    secret = header.strip() if header else (bearer.credentials.strip() if bearer else None)
    caller = _authenticate(secret)
    window = ratelimit.hit_window(
        get_settings().api_rate_limit, ratelimit.make_key("api", "key", str(caller.key_id))
    )
    request.scope.setdefault("state", {})[STATE_RATE_WINDOW] = window
    if not window.allowed:
        raise ApiError(
            429, RATE_LIMITED.format(seconds=max(window.reset_s, 1)), "rate_limited", "Troppe richieste"
        )
    return caller


Caller = Annotated[KeyCaller, Depends(key_caller)]

SCOPE_MESSAGES = {
    "jobs:write": "avviare, rielaborare o eliminare lavori",
    "jobs:read": "leggere lavori e risultati",
    "webhooks:manage": "gestire i webhook",
}


def require_scope(scope: str) -> object:
    """A dependency that refuses a key without ``scope`` (403 ``insufficient_scope``)."""

    def check(caller: Caller) -> KeyCaller:
        if scope not in caller.scopes:
            raise ApiError(
                403,
                f"Questa chiave non ha il permesso '{scope}' ({SCOPE_MESSAGES.get(scope, scope)}): "
                "aggiungilo creando una nuova chiave.",
                "insufficient_scope",
                "Permesso mancante",
            )
        return caller

    return Depends(check)


WriteCaller = Annotated[KeyCaller, require_scope("jobs:write")]
ReadCaller = Annotated[KeyCaller, require_scope("jobs:read")]

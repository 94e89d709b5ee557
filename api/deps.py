"""FastAPI dependencies as ``Annotated`` aliases: ``SessionDep``, ``CurrentUser``, ``CurrentAuth``,
``AdminUser``, ``DesignerUser``, ``SellerUser``, ``StreamAuth``, ``RecoveryClaims``, ``TemporalDep`` (full-stack-fastapi-template habit). Roles are checked
here, on the server, and every access token's sign-in session (``sid``) is checked against the
database, so logout and password changes revoke tokens at once; ``client_ip`` is the
address rate limits key on (``X-Forwarded-For`` only from trusted proxies)."""

from __future__ import annotations

import ipaddress
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Annotated, Any

import jwt
from fastapi import Depends, Query, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from sqlalchemy import Exists, select, update
from sqlalchemy.orm import Session
from temporalio.client import Client

from api.errors import ApiError
from api.services import auth as auth_service
from fotopronta.db import session_factory
from fotopronta.domain import UserRole
from fotopronta.models import OneTimeCode, Profile, RefreshSession
from fotopronta.security import JWT_ALGORITHM, decode_access_token, sha256_hex
from fotopronta.settings import get_settings

bearer = HTTPBearer(auto_error=False)


def get_session() -> Iterator[Session]:
    """One SQLAlchemy session per request (the route commits)."""
    with session_factory()() as session:
        yield session


SessionDep = Annotated[Session, Depends(get_session)]


def get_temporal(request: Request) -> Client:
    """The Temporal client connected at start-up."""
    client = get_optional_temporal(request)
    if client is None:
        raise ApiError(
            503, "Servizio di elaborazione non disponibile, riprova tra poco.", "temporal_unavailable"
        )
    return client


TemporalDep = Annotated[Client, Depends(get_temporal)]


def get_optional_temporal(request: Request) -> Client | None:
    """The Temporal client connected at start-up, or ``None`` while it is not (for routes that must
    answer anyway, e.g. a payment webhook: the credits are booked, resuming jobs can wait)."""
    client: Client | None = getattr(request.app.state, "temporal", None)
    return client


OptionalTemporalDep = Annotated[Client | None, Depends(get_optional_temporal)]


INVALID_SESSION = ("Sessione non valida o scaduta: accedi di nuovo.", "invalid_token")


def _live_session_exists(user_id: uuid.UUID, session_id: uuid.UUID) -> Exists:
    """SQL ``EXISTS``: sign-in session ``session_id`` (``refresh_sessions.family_id``) of ``user_id``
    still has an unrevoked, unexpired refresh token."""
    return (
        select(RefreshSession.id)
        .where(
            RefreshSession.family_id == session_id,
            RefreshSession.user_id == user_id,
            RefreshSession.revoked_at.is_(None),
            RefreshSession.expires_at > datetime.now(UTC),
        )
        .exists()
    )


def session_is_live(session: Session, user_id: uuid.UUID, session_id: uuid.UUID) -> bool:
    """Whether sign-in session ``session_id`` (``refresh_sessions.family_id``) of ``user_id`` still has
    an unrevoked, unexpired refresh token: logout, password change and reset revoke the family."""
    return bool(session.execute(select(_live_session_exists(user_id, session_id))).scalar_one())


def stream_session_is_live(user_id: uuid.UUID, session_id: uuid.UUID) -> bool:
    """:func:`session_is_live` on a short session of its own (blocking: threadpool), for a long-lived
    event stream that holds no pooled connection between checks."""
    with session_factory()() as session:
        return session_is_live(session, user_id, session_id)


@dataclass(frozen=True)
class Auth:
    """The caller of a request: their profile and the sign-in session id (``sid``) of their token."""

    profile: Profile
    session_id: uuid.UUID


def authenticate(session: Session, token: str | None) -> Auth:
    """Check an access token: signature, expiry, ``typ``, the user, and that its session (``sid``) is
    still live in the database, so a logout or password change revokes it at once on every route.

    Raises:
        ApiError: 401 when the token is missing, invalid, expired or revoked, or the user is gone.
    """
    if not token:
        raise ApiError(401, "Devi accedere per continuare.", "not_authenticated")
    try:
        payload = decode_access_token(token)
        user_id = uuid.UUID(payload["sub"])
        session_id = uuid.UUID(payload["sid"])
    except (jwt.InvalidTokenError, KeyError, ValueError, TypeError) as exc:
        raise ApiError(401, *INVALID_SESSION) from exc
    # the profile and the session check in one statement (one round trip on every authenticated request)
    profile = session.execute(
        select(Profile).where(Profile.id == user_id, _live_session_exists(user_id, session_id))
    ).scalar_one_or_none()
    if profile is None:
        raise ApiError(401, *INVALID_SESSION)
    return Auth(profile=profile, session_id=session_id)


def get_auth(
    session: SessionDep, credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(bearer)]
) -> Auth:
    """Dependency: the caller (:class:`Auth`) from the bearer access token (see :func:`authenticate`)."""
    return authenticate(session, credentials.credentials if credentials else None)


CurrentAuth = Annotated[Auth, Depends(get_auth)]


def get_current_user(auth: CurrentAuth) -> Profile:
    """The signed-in user's profile from the bearer access token.

    Raises:
        ApiError: 401 when the token is missing, invalid, expired or revoked, or the user no longer exists.
    """
    return auth.profile


CurrentUser = Annotated[Profile, Depends(get_current_user)]


def effective_role(profile: Profile) -> UserRole:
    """SPEC §6: unknown roles are client; a non-client whose ``is_active`` is false is a client."""
    try:
        role = UserRole(profile.user_role)
    except ValueError:
        return UserRole.client
    if role is not UserRole.client and not profile.is_active:
        return UserRole.client
    return role


def owner_or_admin(user: Profile, owner_id: uuid.UUID) -> bool:
    """Whether ``user`` may see a row owned by ``owner_id``: its owner, or an active admin."""
    return user.id == owner_id or effective_role(user) is UserRole.admin


def get_admin_user(user: CurrentUser) -> Profile:
    """The current user if an active admin. Raises: ApiError 403."""
    if effective_role(user) is not UserRole.admin:
        raise ApiError(
            403, "Questa sezione è riservata esclusivamente agli amministratori del sistema.", "forbidden"
        )
    return user


AdminUser = Annotated[Profile, Depends(get_admin_user)]


def get_designer(user: CurrentUser) -> Profile:
    """The current user if an active graphic or admin (DESIGN decision: the graphics dashboard is for
    both). Raises: ApiError 403 with the SPEC §2 wording."""
    if effective_role(user) not in (UserRole.graphic, UserRole.admin):
        raise ApiError(
            403,
            "Non hai i permessi necessari per accedere alla Dashboard del Team Grafici",
            "forbidden",
            "Accesso Negato",
        )
    return user


DesignerUser = Annotated[Profile, Depends(get_designer)]

SELLER_ONLY_MESSAGE = "Questa sezione è riservata ai clienti: il tuo account fa parte del team grafico."


def get_seller(user: CurrentUser) -> Profile:
    """The current user unless an active designer: the seller's photos, orders, credits and payments
    are for clients and admins (SPEC §2: admins also get the client menu); a designer's account has
    no seller pages. Raises: ApiError 403 ``seller_only``."""
    if effective_role(user) is UserRole.graphic:
        raise ApiError(403, SELLER_ONLY_MESSAGE, "seller_only", "Accesso Negato")
    return user


SellerUser = Annotated[Profile, Depends(get_seller)]


def client_ip(request: Request) -> str:
    """The client's IP for rate limits: the socket peer, unless the peer is one of the configured
    ``trusted_proxies``; then ``X-Forwarded-For`` is read from the right, skipping trusted proxies,
    and the first untrusted address is the client. Without trusted proxies the header is ignored, so
    rotating it changes nothing (a client cannot dodge a rate limit by forging it)."""
    peer = request.client.host if request.client else "-"
    networks = get_settings().trusted_proxy_networks
    if not networks:
        return peer

    def trusted(address: str) -> bool:
        try:
            ip = ipaddress.ip_address(address)
        except ValueError:
            return False
        return any(ip in net for net in networks)

    if not trusted(peer):
        return peer
    hops = [h.strip() for v in request.headers.getlist("x-forwarded-for") for h in v.split(",") if h.strip()]
    for hop in reversed(hops):
        if not trusted(hop):
            try:
                return str(ipaddress.ip_address(hop))
            except ValueError:
                return peer  # garbage from the proxy's client: key on the proxy rather than on a lie
    return hops[0] if hops else peer


def consume_stream_ticket(session: Session, ticket: str) -> Auth:
    """Redeem a ticket from ``POST /api/events/ticket``: a short-lived JWT (``typ=stream``, ``sub``,
    ``sid``, ``jti``) whose ``jti`` is stored hashed and marked used here, so it works once.

    Raises:
        ApiError: 401 invalid, expired or already used ticket, or a revoked session.
    """
    try:
        claims = jwt.decode(ticket, get_settings().jwt_secret, algorithms=[JWT_ALGORITHM])
        if claims.get("typ") != "stream":
            raise jwt.InvalidTokenError("not a stream ticket")
        user_id = uuid.UUID(claims["sub"])
        session_id = uuid.UUID(claims["sid"])
        jti = str(claims["jti"])
    except (jwt.InvalidTokenError, KeyError, ValueError, TypeError) as exc:
        raise ApiError(401, *INVALID_SESSION) from exc
    now = datetime.now(UTC)
    used = session.execute(
        update(OneTimeCode)
        .where(
            OneTimeCode.code_hash == sha256_hex(jti),
            OneTimeCode.purpose == auth_service.STREAM_TICKET_PURPOSE,
            OneTimeCode.user_id == user_id,
            OneTimeCode.used_at.is_(None),
            OneTimeCode.expires_at > now,
        )
        .values(used_at=now)
        .returning(OneTimeCode.id)
    ).scalar_one_or_none()
    session.commit()
    if used is None or not session_is_live(session, user_id, session_id):
        raise ApiError(401, *INVALID_SESSION)
    profile = session.get(Profile, user_id)
    if profile is None:
        raise ApiError(401, *INVALID_SESSION)
    return Auth(profile=profile, session_id=session_id)


def get_stream_auth(
    credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(bearer)],
    ticket: Annotated[str | None, Query(description="single-use ticket from POST /api/events/ticket")] = None,
) -> Auth:
    """The caller of a long-lived stream (``GET /api/events``): a bearer header or ``?ticket=`` from
    ``POST /api/events/ticket`` (browsers' ``EventSource`` cannot set headers; the access token never
    goes into the URL, where access logs would keep it).

    Uses its own short session, so a stream open for hours holds no pooled database connection;
    the returned profile is detached (read its loaded attributes only).

    Raises:
        ApiError: 401 as :func:`authenticate` or :func:`consume_stream_ticket`.
    """
    with session_factory()() as session:
        if credentials is None and ticket:
            return consume_stream_ticket(session, ticket)
        return authenticate(session, credentials.credentials if credentials else None)


StreamAuth = Annotated[Auth, Depends(get_stream_auth)]


def recovery_claims(
    credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(bearer)],
) -> dict[str, Any]:
    """Dependency: the claims of a recovery session's access token (``POST /api/auth/password/reset``;
    checked before the body). The token is spent by :func:`api.services.auth.reset_with_recovery_session`.

    Raises:
        ApiError: 401 'Link mancante' without a token; 401 invalid or expired token; 403 an ordinary
            (non-recovery) session.
    """
    if credentials is None:
        raise auth_service.reset_link_missing()
    try:
        claims: dict[str, Any] = jwt.decode(
            credentials.credentials, get_settings().jwt_secret, algorithms=[JWT_ALGORITHM]
        )
    except jwt.ExpiredSignatureError as exc:
        raise auth_service.reset_link_expired(401) from exc
    except jwt.InvalidTokenError as exc:
        raise auth_service.reset_link_invalid(401) from exc
    if claims.get("typ") != "access" or "sub" not in claims:
        raise auth_service.reset_link_invalid(401)
    if claims.get("amr") != "recovery" or not claims.get("jti"):
        raise auth_service.reset_link_invalid(403, "not_recovery_session")
    return claims


RecoveryClaims = Annotated[dict[str, Any], Depends(recovery_claims)]

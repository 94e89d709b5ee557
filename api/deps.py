"""FastAPI dependencies as ``Annotated`` aliases: ``SessionDep``, ``CurrentUser``, ``AdminUser``,
``TemporalDep`` (full-stack-fastapi-template habit). Roles are checked here, on the server."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Annotated

import jwt
from fastapi import Depends, Query, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from sqlalchemy.orm import Session
from temporalio.client import Client

from api.errors import ApiError
from fotopronta.db import session_factory
from fotopronta.models import Profile, UserRole
from fotopronta.security import decode_access_token

bearer = HTTPBearer(auto_error=False)


def get_session() -> Iterator[Session]:
    """One SQLAlchemy session per request (the route commits)."""
    with session_factory()() as session:
        yield session


SessionDep = Annotated[Session, Depends(get_session)]


def get_temporal(request: Request) -> Client:
    """The Temporal client connected at start-up."""
    client: Client | None = getattr(request.app.state, "temporal", None)
    if client is None:
        raise ApiError(
            503, "Servizio di elaborazione non disponibile, riprova tra poco.", "temporal_unavailable"
        )
    return client


TemporalDep = Annotated[Client, Depends(get_temporal)]


def get_current_user(
    session: SessionDep, credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(bearer)]
) -> Profile:
    """The signed-in user's profile from the bearer access token.

    Raises:
        ApiError: 401 when the token is missing, invalid or expired, or the user no longer exists.
    """
    if credentials is None:
        raise ApiError(401, "Devi accedere per continuare.", "not_authenticated")
    try:
        payload = decode_access_token(credentials.credentials)
        user_id = uuid.UUID(payload["sub"])
    except (jwt.InvalidTokenError, KeyError, ValueError) as exc:
        raise ApiError(401, "Sessione non valida o scaduta: accedi di nuovo.", "invalid_token") from exc
    profile = session.get(Profile, user_id)
    if profile is None:
        raise ApiError(401, "Sessione non valida o scaduta: accedi di nuovo.", "invalid_token")
    return profile


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


def get_admin_user(user: CurrentUser) -> Profile:
    """The current user if an active admin. Raises: ApiError 403."""
    if effective_role(user) is not UserRole.admin:
        raise ApiError(
            403, "Questa sezione è riservata esclusivamente agli amministratori del sistema.", "forbidden"
        )
    return user


AdminUser = Annotated[Profile, Depends(get_admin_user)]


def get_stream_user(
    credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(bearer)],
    access_token: Annotated[str | None, Query(description="access token for EventSource")] = None,
) -> Profile:
    """The signed-in user of a long-lived stream (``GET /api/events``): bearer header or
    ``?access_token=`` (browsers' ``EventSource`` cannot set headers).

    Uses its own short session, so a stream open for hours holds no pooled database connection;
    the returned profile is detached (read its loaded attributes only).

    Raises:
        ApiError: 401 as :func:`get_current_user`.
    """
    if credentials is None and access_token:
        credentials = HTTPAuthorizationCredentials(scheme="Bearer", credentials=access_token)
    with session_factory()() as session:
        return get_current_user(session, credentials)


StreamUser = Annotated[Profile, Depends(get_stream_user)]

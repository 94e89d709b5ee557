"""Sign-up, login, refresh-token rotation and logout (``/api/auth``)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from fastapi import APIRouter, status
from sqlalchemy import select, update
from sqlalchemy.orm import Session

from api.deps import SessionDep
from api.errors import ApiError
from api.schemas import LoginIn, ProfilePublic, RefreshIn, SessionOut, SignupIn
from fotopronta.accounts import EmailAlreadyRegisteredError, create_user, find_user_by_email
from fotopronta.models import Profile, RefreshSession
from fotopronta.security import create_access_token, new_opaque_token, sha256_hex, verify_password
from fotopronta.settings import get_settings

router = APIRouter(prefix="/api/auth", tags=["auth"])

INVALID_LOGIN = ApiError(401, "Email o password non corretti", "invalid_credentials", "Errore accesso")


def issue_session(session: Session, profile: Profile) -> SessionOut:
    """Create an access token and a stored refresh token for ``profile`` (caller commits)."""
    settings = get_settings()
    now = datetime.now(UTC)
    access, expires_at = create_access_token(profile.id, role=profile.user_role, now=now)
    refresh = new_opaque_token()
    session.add(RefreshSession(user_id=profile.id, token_hash=sha256_hex(refresh),
                               expires_at=now + timedelta(seconds=settings.refresh_token_ttl_s)))
    return SessionOut(access_token=access, refresh_token=refresh, expires_in=settings.access_token_ttl_s,
                      expires_at=int(expires_at.timestamp()), user=ProfilePublic.model_validate(profile))


@router.post("/signup", status_code=status.HTTP_201_CREATED, response_model=ProfilePublic,
             operation_id="auth-signup")
def signup(body: SignupIn, session: SessionDep) -> Profile:
    """Create a client account with 15 free credits (one transaction)."""
    try:
        profile = create_user(session, email=body.email, password=body.password, first_name=body.first_name,
                              last_name=body.last_name)
        session.commit()
    except EmailAlreadyRegisteredError as exc:
        raise ApiError(400, "Un utente con questa email è già registrato", "user_already_registered",
                       "Errore registrazione") from exc
    return profile


@router.post("/login", response_model=SessionOut, operation_id="auth-login")
def login(body: LoginIn, session: SessionDep) -> SessionOut:
    """Exchange e-mail and password for a session."""
    user = find_user_by_email(session, body.email)
    if user is None or not verify_password(body.password, user.password_hash):
        raise INVALID_LOGIN
    if user.email_confirmed_at is None:
        raise ApiError(401, "Email non confermata: apri il link che ti abbiamo inviato per attivare l'account.",
                       "email_not_confirmed", "Errore accesso")
    out = issue_session(session, user.profile)
    session.commit()
    return out


def _find_refresh(session: Session, token: str) -> RefreshSession | None:
    return session.execute(
        select(RefreshSession).where(RefreshSession.token_hash == sha256_hex(token)).with_for_update()
    ).scalar_one_or_none()


@router.post("/refresh", response_model=SessionOut, operation_id="auth-refresh")
def refresh(body: RefreshIn, session: SessionDep) -> SessionOut:
    """Rotate a refresh token: the old one is revoked and a new session returned. Re-using a revoked
    token revokes every session of that user (token theft)."""
    now = datetime.now(UTC)
    stored = _find_refresh(session, body.refresh_token)
    if stored is None or stored.expires_at <= now:
        raise ApiError(401, "Sessione scaduta: accedi di nuovo.", "invalid_refresh_token")
    if stored.revoked_at is not None:
        session.execute(update(RefreshSession).where(RefreshSession.user_id == stored.user_id,
                                                     RefreshSession.revoked_at.is_(None)).values(revoked_at=now))
        session.commit()
        raise ApiError(401, "Sessione scaduta: accedi di nuovo.", "refresh_token_reused")
    profile = session.get_one(Profile, stored.user_id)
    out = issue_session(session, profile)
    session.flush()
    stored.revoked_at = now
    stored.replaced_by = session.execute(
        select(RefreshSession.id).where(RefreshSession.token_hash == sha256_hex(out.refresh_token))
    ).scalar_one()
    session.commit()
    return out


@router.post("/logout", status_code=status.HTTP_204_NO_CONTENT, operation_id="auth-logout")
def logout(body: RefreshIn, session: SessionDep) -> None:
    """Revoke the refresh token (idempotent)."""
    stored = _find_refresh(session, body.refresh_token)
    if stored is not None and stored.revoked_at is None:
        stored.revoked_at = datetime.now(UTC)
        session.commit()

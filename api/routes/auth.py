"""Accounts (``/api/auth``, SPEC §2 auth routes, §5, §8 Auth / Reset link / One-time code).

- ``POST /signup`` creates an *unconfirmed* client (15 credits) and e-mails a confirmation link
  ``{public_url}/auth/callback?token_hash=…&type=signup``; login is refused until it is opened.
- ``POST /verify {token_hash, type}`` exchanges an e-mailed link (``signup`` or ``recovery``) for a
  session. A recovery session's access token carries ``amr=recovery`` and is what
  ``POST /password/reset`` accepts (once).
- ``POST /password/forgot {email}`` e-mails a 6-digit code (15 min) and a reset link (1 h); the answer
  is the same whether or not the address exists.
- ``POST /password/verify-otp {email, token, password}`` sets the password with the code.
- ``POST /password/change {current_password, new_password}`` for a signed-in user.
- ``POST /login``, ``/refresh`` (rotation, reuse revokes everything), ``/logout``.

Codes and link tokens are random, single-use and expiring; only their SHA-256 is stored
(``one_time_codes``). Failed logins (per account and per client IP), sign-ups (per client IP), code
attempts and reset e-mails are rate limited (429, Italian message) by ``fotopronta.ratelimit``: moving
windows counted in PostgreSQL, shared by every API replica and kept across restarts. The client IP is
the socket peer unless it is a configured trusted proxy (``api.deps.client_ip``).

Issue 11:

- Every access token carries ``sid``, its sign-in session (``refresh_sessions.family_id``); logout
  revokes that session and a password change, reset or code revokes the others, so their access tokens
  are refused at once on every route (``api.deps.authenticate``).
- Pre-hijacking: a new sign-up for an address that is not confirmed yet replaces the pending password
  and invalidates the older links. Sign-up also sets an HttpOnly cookie ``fp_browser`` (a random
  browser id, stored only as SHA-256 with the sign-up). Opening the link in the same browser keeps the
  password chosen at sign-up; opened anywhere else, the address is confirmed but the pending password
  is discarded and the answer is a one-time "set your password" session (``password_required``, like a
  reset link), so a password chosen by someone else never works.
- Login verifies a dummy argon2 hash when the e-mail is unknown: same time either way.
"""

from __future__ import annotations

import hmac
import logging
import secrets
import uuid
from datetime import UTC, datetime, timedelta
from typing import Annotated, Any, Literal

import jwt
from fastapi import APIRouter, Depends, Request, Response, status
from fastapi.concurrency import run_in_threadpool
from fastapi.security import HTTPAuthorizationCredentials
from pydantic import BaseModel, Field
from sqlalchemy import select, update
from sqlalchemy.orm import Session

from api.deps import CurrentAuth, SessionDep, bearer, client_ip
from api.errors import ApiError
from api.schemas import LoginIn, ProfilePublic, RefreshIn, SessionOut
from fotopronta import mailer, ratelimit
from fotopronta.accounts import EmailAlreadyRegisteredError, create_user, find_user_by_email, normalise_email
from fotopronta.links import public_base_url
from fotopronta.models import OneTimeCode, Profile, RefreshSession, User
from fotopronta.security import (
    JWT_ALGORITHM,
    UNUSABLE_PASSWORD,
    create_access_token,
    hash_password,
    new_opaque_token,
    sha256_hex,
    verify_password,
)
from fotopronta.settings import get_settings

router = APIRouter(prefix="/api/auth", tags=["auth"])
log = logging.getLogger("fotopronta.api.auth")

PASSWORD_MIN = 6
"""Minimum password length (SPEC §5, §9)."""

# --- SPEC §8 messages -------------------------------------------------------------------------------
INVALID_LOGIN = ApiError(401, "Email o password non corretti", "invalid_credentials", "Errore accesso")
EMAIL_NOT_CONFIRMED = ApiError(
    401,
    "Email non confermata: apri il link che ti abbiamo inviato per attivare l'account.",
    "email_not_confirmed",
    "Errore accesso",
)
ALREADY_REGISTERED = ApiError(
    400, "Un utente con questa email è già registrato", "user_already_registered", "Errore registrazione"
)
SIGNUP_OK = ("Registrazione completata", "Controlla la tua email per confermare l'account")
RESET_SENT = ("Email inviata", "Controlla la tua email per reimpostare la password")
PASSWORD_UPDATED = "Password aggiornata"
LINK_INVALID = ApiError(400, "Link non valido o scaduto", "invalid_link", "Errore verifica")
RESET_LINK_INVALID = ApiError(
    400,
    "Il link per il reset della password non è valido. Richiedi un nuovo link.",
    "invalid_recovery_link",
    "Link non valido",
)
RESET_LINK_EXPIRED = ApiError(
    400,
    "Il link per il reset della password è scaduto. Richiedi un nuovo link.",
    "recovery_link_expired",
    "Link non valido",
)
RESET_LINK_MISSING = ApiError(
    401,
    "Devi utilizzare il link inviato via email per reimpostare la password.",
    "recovery_link_missing",
    "Link mancante",
)
CODE_EXPIRED = ApiError(
    400, "Il codice di verifica è scaduto. Richiedi un nuovo codice.", "otp_expired", "Verifica fallita"
)
CODE_INVALID = ApiError(
    400, "Il codice di verifica non è valido. Controlla e riprova.", "otp_invalid", "Verifica fallita"
)
CODE_FORMAT = ApiError(400, "Inserisci un codice di verifica di 6 cifre.", "otp_format", "Codice non valido")
TOO_MANY = "Troppi tentativi. Attendi qualche minuto e riprova."


BROWSER_COOKIE = "fp_browser"
"""HttpOnly cookie with a random browser id, set at sign-up: proves the link is opened where the
account was created (pre-hijacking defence)."""


# --- rate limits ----------------------------------------------------------------------------------------
def _check_limit(limit: str, *identifiers: str, title: str, hit: bool) -> None:
    """Raise 429 when the moving window of ``limit`` (e.g. ``"10/15 minutes"``) is exhausted for
    ``identifiers``; with ``hit`` the call itself counts (PostgreSQL, ``fotopronta.ratelimit``)."""
    key = ratelimit.make_key(*identifiers)
    allowed = ratelimit.hit(limit, key) if hit else ratelimit.check(limit, key)
    if not allowed:
        raise ApiError(429, TOO_MANY, "rate_limited", title)


def _record_failure(limit: str, *identifiers: str) -> None:
    ratelimit.hit(limit, ratelimit.make_key(*identifiers))


# --- schemas -------------------------------------------------------------------------------------------
class SignupIn(BaseModel):
    """``POST /api/auth/signup``: first name, e-mail and password (≥ 6, checked with SPEC §5 wording)."""

    email: str = Field(max_length=320)
    password: str = Field(max_length=200)
    first_name: str = Field(max_length=200)
    last_name: str | None = Field(default=None, max_length=200)


class VerifyIn(BaseModel):
    """``POST /api/auth/verify``: the link's ``token_hash`` and ``type``."""

    token_hash: str = Field(max_length=200)
    type: Literal["signup", "recovery", "email"]


class ForgotIn(BaseModel):
    """``POST /api/auth/password/forgot``."""

    email: str = Field(max_length=320)


class VerifyOtpIn(BaseModel):
    """``POST /api/auth/password/verify-otp``: e-mail, the 6-digit code and the new password."""

    email: str = Field(max_length=320)
    token: str = Field(max_length=20)
    password: str = Field(max_length=200)


class ResetIn(BaseModel):
    """``POST /api/auth/password/reset`` (bearer: a recovery session's access token)."""

    password: str = Field(max_length=200)


class ChangePasswordIn(BaseModel):
    """``POST /api/auth/password/change`` for a signed-in user."""

    current_password: str = Field(max_length=200)
    new_password: str = Field(max_length=200)


class MessageOut(BaseModel):
    """A confirmation for a toast: ``title`` and ``detail`` (SPEC §8)."""

    title: str
    detail: str


class SignupOut(ProfilePublic):
    """The new (unconfirmed) profile plus the toast of SPEC §8 ('Registrazione completata')."""

    title: str = SIGNUP_OK[0]
    detail: str = SIGNUP_OK[1]


# --- helpers ---------------------------------------------------------------------------------------------
def issue_session(
    session: Session,
    profile: Profile,
    *,
    extra_claims: dict[str, Any] | None = None,
    family_id: uuid.UUID | None = None,
    password_required: bool = False,
) -> SessionOut:
    """Create an access token (``access_token_ttl_s``) and a stored refresh token for ``profile``
    (caller commits). ``extra_claims`` go into the access token (``amr=recovery``); ``family_id`` is
    the sign-in session to continue (refresh), else a new one starts; the access token's ``sid``."""
    settings = get_settings()
    now = datetime.now(UTC)
    family_id = family_id or uuid.uuid4()
    access, expires_at = create_access_token(
        profile.id, role=profile.user_role, session_id=family_id, now=now, extra=extra_claims
    )
    refresh = new_opaque_token()
    session.add(
        RefreshSession(
            user_id=profile.id,
            family_id=family_id,
            token_hash=sha256_hex(refresh),
            expires_at=now + timedelta(seconds=settings.refresh_token_ttl_s),
        )
    )
    return SessionOut(
        access_token=access,
        refresh_token=refresh,
        expires_in=settings.access_token_ttl_s,
        expires_at=int(expires_at.timestamp()),
        user=ProfilePublic.model_validate(profile),
        password_required=password_required,
    )


def _new_secret(
    session: Session, *, user_id: uuid.UUID, purpose: str, kind: str, secret: str, ttl_s: int
) -> OneTimeCode:
    row = OneTimeCode(
        user_id=user_id,
        purpose=purpose,
        kind=kind,
        code_hash=sha256_hex(secret),
        expires_at=datetime.now(UTC) + timedelta(seconds=ttl_s),
    )
    session.add(row)
    return row


def _burn_unused(session: Session, user_id: uuid.UUID, purpose: str, now: datetime) -> None:
    """Invalidate every unused code and link of ``purpose`` (a new request replaces them)."""
    session.execute(
        update(OneTimeCode)
        .where(OneTimeCode.user_id == user_id, OneTimeCode.purpose == purpose, OneTimeCode.used_at.is_(None))
        .values(used_at=now)
    )


def _set_password(
    session: Session, user: User, password: str, now: datetime, *, keep_session: uuid.UUID | None = None
) -> None:
    """New password hash; every sign-in session of the user but ``keep_session`` is revoked, with its
    access tokens (other devices sign out at once)."""
    user.password_hash = hash_password(password)
    revoke = update(RefreshSession).where(
        RefreshSession.user_id == user.id, RefreshSession.revoked_at.is_(None)
    )
    if keep_session is not None:
        revoke = revoke.where(RefreshSession.family_id != keep_session)
    session.execute(revoke.values(revoked_at=now))


def _check_new_password(password: str, message: str, title: str) -> None:
    if len(password) < PASSWORD_MIN:
        raise ApiError(400, message, "weak_password", title)


# --- sign-up and confirmation -------------------------------------------------------------------------------
def _signup_tx(session: Session, body: SignupIn, browser_id: str) -> tuple[Profile, mailer.Email]:
    settings = get_settings()
    now = datetime.now(UTC)
    pending = session.execute(
        select(User).where(User.email == normalise_email(body.email)).with_for_update()
    ).scalar_one_or_none()
    if pending is not None and pending.email_confirmed_at is None:
        # not confirmed yet: whoever signs up last sets the pending password; older links stop working
        pending.password_hash = hash_password(body.password)
        pending.profile.first_name = body.first_name.strip()
        pending.profile.last_name = body.last_name
        _burn_unused(session, pending.id, "signup", now)
        profile = pending.profile
    else:
        try:
            profile = create_user(
                session,
                email=body.email,
                password=body.password,
                first_name=body.first_name.strip(),
                last_name=body.last_name,
                confirmed=False,
            )
        except EmailAlreadyRegisteredError as exc:
            raise ALREADY_REGISTERED from exc
    _new_secret(
        session,
        user_id=profile.id,
        purpose="signup",
        kind="browser",
        secret=browser_id,
        ttl_s=settings.signup_link_ttl_s,
    )
    token = new_opaque_token()
    _new_secret(
        session,
        user_id=profile.id,
        purpose="signup",
        kind="link",
        secret=token,
        ttl_s=settings.signup_link_ttl_s,
    )
    session.commit()
    session.refresh(profile)
    link = mailer.public_link("/auth/callback", token_hash=token, type="signup")
    return profile, mailer.signup_confirmation_email(
        to=profile.email, first_name=profile.first_name, link=link, ttl_s=settings.signup_link_ttl_s
    )


@router.post(
    "/signup", status_code=status.HTTP_201_CREATED, response_model=SignupOut, operation_id="auth-signup"
)
async def signup(body: SignupIn, session: SessionDep, request: Request, response: Response) -> SignupOut:
    """Create an unconfirmed client account with 15 free credits and e-mail the confirmation link.

    Signing up again an address that is not confirmed yet replaces its pending password and names and
    invalidates the older links (no new credits). Sets the ``fp_browser`` cookie (see module doc).

    Errors (title 'Errore registrazione'): 400 'Un utente con questa email è già registrato'; 400 when
    the first name is empty, the e-mail malformed or the password shorter than 6 characters; 429 after
    ``signup_ip_rate_limit`` sign-ups from one client IP.
    """
    title = "Errore registrazione"
    if not body.first_name.strip():
        raise ApiError(400, "Il nome è obbligatorio.", "first_name_required", title)
    email = normalise_email(body.email)
    if "@" not in email or "." not in email.rsplit("@", 1)[-1] or " " in email:
        raise ApiError(400, "Inserisci un indirizzo email valido.", "invalid_email", title)
    _check_new_password(body.password, "La password deve essere di almeno 6 caratteri", title)
    settings = get_settings()
    await run_in_threadpool(
        _check_limit, settings.signup_ip_rate_limit, "signup", "ip", client_ip(request), title=title, hit=True
    )
    browser_id = request.cookies.get(BROWSER_COOKIE) or ""
    if len(browser_id) < 32 or len(browser_id) > 100:
        browser_id = new_opaque_token()
    profile, email_msg = await run_in_threadpool(_signup_tx, session, body, browser_id)
    response.set_cookie(
        BROWSER_COOKIE,
        browser_id,
        max_age=365 * 24 * 3600,
        path="/api/auth",
        httponly=True,
        samesite="lax",
        secure=public_base_url(settings).startswith("https://"),
    )
    try:
        await mailer.send_email(email_msg)
    except mailer.MailDeliveryError:  # the account exists; 'forgot password' also confirms it
        log.exception("confirmation e-mail to %s not delivered", profile.email)
    return SignupOut.model_validate(profile, from_attributes=True)


def _verify_tx(session: Session, body: VerifyIn, browser_id: str | None) -> SessionOut:
    now = datetime.now(UTC)
    purpose = "recovery" if body.type == "recovery" else "signup"
    invalid, expired = (
        (RESET_LINK_INVALID, RESET_LINK_EXPIRED) if purpose == "recovery" else (LINK_INVALID, LINK_INVALID)
    )
    row = session.execute(
        select(OneTimeCode)
        .where(
            OneTimeCode.code_hash == sha256_hex(body.token_hash),
            OneTimeCode.purpose == purpose,
            OneTimeCode.kind == "link",
        )
        .with_for_update()
    ).scalar_one_or_none()
    if row is None or row.used_at is not None:
        raise invalid
    if row.expires_at <= now:
        raise expired
    row.used_at = now
    user = session.get_one(User, row.user_id)
    set_password = purpose == "recovery"
    if user.email_confirmed_at is None:  # opening any e-mailed link proves the address
        user.email_confirmed_at = now
        if purpose == "signup":
            same_browser = browser_id is not None and (
                session.execute(
                    select(OneTimeCode.id).where(
                        OneTimeCode.user_id == user.id,
                        OneTimeCode.purpose == "signup",
                        OneTimeCode.kind == "browser",
                        OneTimeCode.used_at.is_(None),
                        OneTimeCode.expires_at > now,
                        OneTimeCode.code_hash == sha256_hex(browser_id),
                    )
                ).first()
                is not None
            )
            _burn_unused(session, user.id, "signup", now)
            if not same_browser:
                # the pending password may have been chosen by someone else: the owner sets one now
                user.password_hash = UNUSABLE_PASSWORD
                set_password = True
    extra: dict[str, Any] | None = None
    if set_password:
        # the right to set a new password once, within the link's remaining life
        jti = new_opaque_token()
        _new_secret(
            session,
            user_id=user.id,
            purpose="recovery",
            kind="session",
            secret=jti,
            ttl_s=max(60, int((row.expires_at - now).total_seconds())),
        )
        extra = {"amr": "recovery", "jti": jti}
    out = issue_session(session, user.profile, extra_claims=extra, password_required=set_password)
    session.commit()
    return out


@router.post("/verify", response_model=SessionOut, operation_id="auth-verify")
def verify(body: VerifyIn, session: SessionDep, request: Request) -> SessionOut:
    """Exchange an e-mailed link (``type`` ``signup`` or ``recovery``) for a session; single use.

    A sign-up link opened in another browser than the sign-up (no matching ``fp_browser`` cookie)
    confirms the address but discards the pending password: the answer has ``password_required`` and
    is a one-time recovery session for ``POST /password/reset``, like a reset link's.

    Errors (400): signup 'Link non valido o scaduto' (title 'Errore verifica'); recovery 'Il link per il
    reset della password non è valido. Richiedi un nuovo link.' or '… è scaduto. Richiedi un nuovo link.'.
    """
    return _verify_tx(session, body, request.cookies.get(BROWSER_COOKIE))


# --- login, refresh, logout ------------------------------------------------------------------------------
@router.post("/login", response_model=SessionOut, operation_id="auth-login")
def login(body: LoginIn, session: SessionDep, request: Request) -> SessionOut:
    """Exchange e-mail and password for a session.

    Errors (title 'Errore accesso'): 401 'Email o password non corretti'; 401 e-mail not confirmed; 429
    after ``login_rate_limit`` failures for the account (e-mail) or ``login_ip_rate_limit`` failures
    from the client IP. An unknown e-mail costs one argon2 verification too (dummy hash).
    """
    settings = get_settings()
    account = ("login", "account", normalise_email(body.email))
    ip = ("login", "ip", client_ip(request))
    _check_limit(settings.login_rate_limit, *account, title="Errore accesso", hit=False)
    _check_limit(settings.login_ip_rate_limit, *ip, title="Errore accesso", hit=False)
    user = find_user_by_email(session, body.email)
    if not verify_password(body.password, user.password_hash if user else None) or user is None:
        _record_failure(settings.login_rate_limit, *account)
        _record_failure(settings.login_ip_rate_limit, *ip)
        raise INVALID_LOGIN
    if user.email_confirmed_at is None:
        raise EMAIL_NOT_CONFIRMED
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
        session.execute(
            update(RefreshSession)
            .where(RefreshSession.user_id == stored.user_id, RefreshSession.revoked_at.is_(None))
            .values(revoked_at=now)
        )
        session.commit()
        raise ApiError(401, "Sessione scaduta: accedi di nuovo.", "refresh_token_reused")
    profile = session.get_one(Profile, stored.user_id)
    out = issue_session(session, profile, family_id=stored.family_id)
    session.flush()
    stored.revoked_at = now
    stored.replaced_by = session.execute(
        select(RefreshSession.id).where(RefreshSession.token_hash == sha256_hex(out.refresh_token))
    ).scalar_one()
    session.commit()
    return out


@router.post("/logout", status_code=status.HTTP_204_NO_CONTENT, operation_id="auth-logout")
def logout(body: RefreshIn, session: SessionDep) -> None:
    """End the sign-in session of the refresh token (idempotent): its refresh tokens are revoked and
    its access tokens are refused from now on, on every route and open event stream."""
    stored = _find_refresh(session, body.refresh_token)
    if stored is not None:
        session.execute(
            update(RefreshSession)
            .where(RefreshSession.family_id == stored.family_id, RefreshSession.revoked_at.is_(None))
            .values(revoked_at=datetime.now(UTC))
        )
        session.commit()


# --- password reset and change -----------------------------------------------------------------------------
def _forgot_tx(session: Session, email: str) -> mailer.Email | None:
    settings = get_settings()
    user = find_user_by_email(session, email)
    if user is None:
        return None
    now = datetime.now(UTC)
    _burn_unused(session, user.id, "recovery", now)
    code = f"{secrets.randbelow(1_000_000):06d}"
    token = new_opaque_token()
    _new_secret(
        session,
        user_id=user.id,
        purpose="recovery",
        kind="code",
        secret=code,
        ttl_s=settings.recovery_code_ttl_s,
    )
    _new_secret(
        session,
        user_id=user.id,
        purpose="recovery",
        kind="link",
        secret=token,
        ttl_s=settings.recovery_link_ttl_s,
    )
    session.commit()
    link = mailer.public_link("/auth/callback", token_hash=token, type="recovery")
    return mailer.password_reset_email(
        to=user.email,
        code=code,
        link=link,
        code_ttl_s=settings.recovery_code_ttl_s,
        link_ttl_s=settings.recovery_link_ttl_s,
    )


@router.post(
    "/password/forgot",
    status_code=status.HTTP_202_ACCEPTED,
    response_model=MessageOut,
    operation_id="auth-password-forgot",
)
async def forgot_password(body: ForgotIn, session: SessionDep) -> MessageOut:
    """E-mail a 6-digit code (valid ``recovery_code_ttl_s``) and a reset link (``recovery_link_ttl_s``);
    earlier unused ones stop working. Same answer whether or not the address has an account.

    Errors: 400 empty e-mail; 429 after ``forgot_rate_limit`` requests for one address.
    """
    email = normalise_email(body.email)
    if not email:
        raise ApiError(400, "Inserisci la tua email.", "email_required", "Errore reset password")
    _check_limit(get_settings().forgot_rate_limit, "forgot", email, title="Errore reset password", hit=True)
    message = await run_in_threadpool(_forgot_tx, session, email)
    if message is not None:
        try:
            await mailer.send_email(message)
        except mailer.MailDeliveryError:  # not revealed: the answer must not depend on the address
            log.exception("reset e-mail to %s not delivered", email)
    return MessageOut(title=RESET_SENT[0], detail=RESET_SENT[1])


def _verify_otp_tx(session: Session, body: VerifyOtpIn) -> None:
    settings = get_settings()
    now = datetime.now(UTC)
    user = find_user_by_email(session, body.email)
    if user is None:
        raise CODE_INVALID
    row = session.execute(
        select(OneTimeCode)
        .where(
            OneTimeCode.user_id == user.id,
            OneTimeCode.purpose == "recovery",
            OneTimeCode.kind == "code",
            OneTimeCode.used_at.is_(None),
        )
        .order_by(OneTimeCode.created_at.desc())
        .limit(1)
        .with_for_update()
    ).scalar_one_or_none()
    if row is None:
        raise CODE_INVALID
    if not hmac.compare_digest(row.code_hash, sha256_hex(body.token)):
        row.attempts += 1
        if row.attempts >= settings.recovery_code_max_attempts:
            row.used_at = now
        session.commit()
        raise CODE_INVALID
    if row.expires_at <= now:
        raise CODE_EXPIRED
    _burn_unused(session, user.id, "recovery", now)  # the code and its companion link
    _set_password(session, user, body.password, now)
    if user.email_confirmed_at is None:
        user.email_confirmed_at = now
    session.commit()


@router.post("/password/verify-otp", response_model=MessageOut, operation_id="auth-password-verify-otp")
def verify_otp(body: VerifyOtpIn, session: SessionDep, request: Request) -> MessageOut:
    """Set a new password with the e-mailed 6-digit code (single use; other sessions are revoked).

    Errors (400, title 'Verifica fallita'): 'Il codice di verifica è scaduto. Richiedi un nuovo codice.',
    'Il codice di verifica non è valido. Controlla e riprova.'; format errors 'Codice non valido' /
    'Password non valida'; 429 after ``otp_rate_limit`` attempts for one address.
    """
    token = body.token.strip()
    if len(token) != 6 or not token.isdigit():
        raise CODE_FORMAT
    _check_new_password(
        body.password, "La password deve essere lunga almeno 6 caratteri.", "Password non valida"
    )
    _check_limit(
        get_settings().otp_rate_limit, "otp", normalise_email(body.email), title="Verifica fallita", hit=True
    )
    _verify_otp_tx(session, body.model_copy(update={"token": token}))
    return MessageOut(title=PASSWORD_UPDATED, detail="Ora puoi accedere con la nuova password.")


def recovery_claims(
    credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(bearer)],
) -> dict[str, Any]:
    """Dependency: the claims of a recovery session's access token (checked before the body).

    Raises:
        ApiError: 401 'Link mancante' without a token; 401 invalid or expired token; 403 an ordinary
            (non-recovery) session.
    """
    if credentials is None:
        raise RESET_LINK_MISSING
    try:
        claims: dict[str, Any] = jwt.decode(
            credentials.credentials, get_settings().jwt_secret, algorithms=[JWT_ALGORITHM]
        )
    except jwt.ExpiredSignatureError as exc:
        raise ApiError(
            401, RESET_LINK_EXPIRED.detail, RESET_LINK_EXPIRED.code, RESET_LINK_EXPIRED.title
        ) from exc
    except jwt.InvalidTokenError as exc:
        raise ApiError(
            401, RESET_LINK_INVALID.detail, RESET_LINK_INVALID.code, RESET_LINK_INVALID.title
        ) from exc
    if claims.get("typ") != "access" or "sub" not in claims:
        raise ApiError(401, RESET_LINK_INVALID.detail, RESET_LINK_INVALID.code, RESET_LINK_INVALID.title)
    if claims.get("amr") != "recovery" or not claims.get("jti"):
        raise ApiError(403, RESET_LINK_INVALID.detail, "not_recovery_session", RESET_LINK_INVALID.title)
    return claims


RecoveryClaims = Annotated[dict[str, Any], Depends(recovery_claims)]


def _reset_tx(session: Session, claims: dict[str, Any], password: str) -> None:
    now = datetime.now(UTC)
    row = session.execute(
        select(OneTimeCode)
        .where(
            OneTimeCode.code_hash == sha256_hex(str(claims["jti"])),
            OneTimeCode.purpose == "recovery",
            OneTimeCode.kind == "session",
        )
        .with_for_update()
    ).scalar_one_or_none()
    if row is None or row.used_at is not None or str(row.user_id) != str(claims["sub"]):
        raise RESET_LINK_INVALID
    if row.expires_at <= now:
        raise RESET_LINK_EXPIRED
    row.used_at = now
    _set_password(session, session.get_one(User, row.user_id), password, now)
    session.commit()


@router.post("/password/reset", response_model=MessageOut, operation_id="auth-password-reset")
def reset_password(body: ResetIn, session: SessionDep, claims: RecoveryClaims) -> MessageOut:
    """Set a new password from the reset link: bearer = the access token that ``/verify`` returned for a
    ``recovery`` link (usable once). Other sessions are revoked.

    Errors: 401 'Link mancante' without a token; 401/400 'Il link per il reset della password non è
    valido…' or '… è scaduto…'; 403 for an ordinary (non-recovery) session; 400 password under 6.
    """
    _check_new_password(
        body.password, "La password deve essere di almeno 6 caratteri", "Errore aggiornamento password"
    )
    _reset_tx(session, claims, body.password)
    return MessageOut(title=PASSWORD_UPDATED, detail="Ora puoi accedere con la nuova password.")


@router.post("/password/change", response_model=MessageOut, operation_id="auth-password-change")
def change_password(body: ChangePasswordIn, auth: CurrentAuth, session: SessionDep) -> MessageOut:
    """Change the signed-in user's password (needs the current one). Every other sign-in session is
    revoked at once, access tokens included; the caller's own session stays signed in.

    Errors (title 'Errore aggiornamento password'): 400 wrong current password; 400 new one under 6
    characters; 429 after ``login_rate_limit`` wrong current passwords.
    """
    title = "Errore aggiornamento password"
    user = auth.profile
    limit = get_settings().login_rate_limit
    key = ("change", str(user.id))
    _check_limit(limit, *key, title=title, hit=False)
    _check_new_password(body.new_password, "La password deve essere di almeno 6 caratteri", title)
    credentials = session.get_one(User, user.id)
    if not verify_password(body.current_password, credentials.password_hash):
        _record_failure(limit, *key)
        raise ApiError(400, "La password attuale non è corretta.", "wrong_password", title)
    _set_password(session, credentials, body.new_password, datetime.now(UTC), keep_session=auth.session_id)
    session.commit()
    return MessageOut(title=PASSWORD_UPDATED, detail="La tua password è stata modificata.")

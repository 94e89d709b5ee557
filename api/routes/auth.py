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
(``one_time_codes``). Failed logins lock the account itself with a growing delay for browsers without
its device cookie (``fp_device_…``, set by a successful login or an e-mailed reset), whatever their
address; the owner's devices still get in (:func:`api.services.auth.login`). Failed logins per client
IP, sign-ups (per client IP), code attempts and reset requests (per address and per client IP) are
rate limited (429, Italian message) by ``fotopronta.ratelimit``: moving windows counted in PostgreSQL,
shared by every API replica and kept across restarts. The client IP is the socket peer unless it is a
configured trusted proxy (``api.deps.client_ip``).

Sessions and accounts:

- Every access token carries ``sid``, its sign-in session (``refresh_sessions.family_id``); logout
  revokes that session and a password change, reset or code revokes the others, so their access tokens
  are refused at once on every route (``api.deps.authenticate``).
- Pre-hijacking: a new sign-up for an address that is not confirmed yet replaces the pending password
  and invalidates the older links. Sign-up also sets an HttpOnly cookie ``fp_browser`` (a random
  browser id, stored only as SHA-256 with the sign-up). Opening the link in the same browser keeps the
  password chosen at sign-up; opened anywhere else, the address is confirmed but the pending password
  is held (it signs in nowhere) and the answer is a one-time "set your password" session
  (``password_required``, like a reset link). There the opener either types the 6-digit pairing code
  the signing-up browser was shown (``POST /signup/pair``: the sign-up password then works, in the
  signing-up browser too) or sets a new password; a password chosen by someone else who signed up
  with this address never works, since they cannot make the mailbox's owner type their code.
- Login verifies a dummy argon2 hash when the e-mail is unknown: same time either way.

The transactions and the token/code lifecycle live in :mod:`api.services.auth`; these routes check
the input, call one service function and send the e-mails.
"""

from __future__ import annotations

import logging
import uuid
from typing import Literal

from fastapi import APIRouter, BackgroundTasks, Request, Response, status
from fastapi.concurrency import run_in_threadpool
from pydantic import BaseModel, Field

from api.deps import CurrentAuth, RecoveryClaims, SessionDep, client_ip
from api.errors import ApiError
from api.schemas import LoginIn, ProfilePublic, RefreshIn, SessionOut
from api.services import auth as service
from api.text_rules import PersonName, SingleLine
from fotopronta import mailer
from fotopronta.accounts import normalise_email
from fotopronta.db import session_scope
from fotopronta.links import public_base_url
from fotopronta.security import create_device_token, device_cookie_name, new_opaque_token
from fotopronta.settings import get_settings

router = APIRouter(prefix="/api/auth", tags=["auth"])
log = logging.getLogger("fotopronta.api.auth")

# --- SPEC §8 messages -------------------------------------------------------------------------------
SIGNUP_OK = ("Registrazione completata", "Controlla la tua email per confermare l'account")
RESET_SENT = ("Email inviata", "Controlla la tua email per reimpostare la password")
PASSWORD_UPDATED = "Password aggiornata"

BROWSER_COOKIE = "fp_browser"
"""HttpOnly cookie with a random browser id, set at sign-up: proves the link is opened where the
account was created (pre-hijacking defence)."""


# --- schemas -------------------------------------------------------------------------------------------
class SignupIn(BaseModel):
    """``POST /api/auth/signup``: first name, e-mail and password (≥ 6, checked with SPEC §5 wording).
    Names are :data:`api.text_rules.PersonName` (one line, ≤ 60 characters, no links: they are never
    echoed in e-mails, but staff see them); the e-mail has no control characters."""

    email: SingleLine = Field(max_length=320)
    password: str = Field(max_length=200)
    first_name: PersonName = Field(max_length=200)
    last_name: PersonName | None = Field(default=None, max_length=200)


class VerifyIn(BaseModel):
    """``POST /api/auth/verify``: the link's ``token_hash`` and ``type``."""

    token_hash: SingleLine = Field(max_length=200)
    type: Literal["signup", "recovery", "email"]


class ForgotIn(BaseModel):
    """``POST /api/auth/password/forgot``."""

    email: SingleLine = Field(max_length=320)


class VerifyOtpIn(BaseModel):
    """``POST /api/auth/password/verify-otp``: e-mail, the 6-digit code and the new password."""

    email: SingleLine = Field(max_length=320)
    token: SingleLine = Field(max_length=20)
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
    pairing_code: str = ""
    """Six digits shown to the signing-up browser only: if the link is opened in another browser, typing
    them there lets the password chosen now work (``POST /signup/pair``)."""


# --- sign-up and confirmation -----------------------------------------------------------------------
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
    service.check_new_password(body.password, "La password deve essere di almeno 6 caratteri", title)
    settings = get_settings()
    await run_in_threadpool(
        service.check_limit,
        settings.signup_ip_rate_limit,
        "signup",
        "ip",
        service.ip_key(client_ip(request)),
        title=title,
        hit=True,
    )
    browser_id = request.cookies.get(BROWSER_COOKIE) or ""
    if len(browser_id) < 32 or len(browser_id) > 100:
        browser_id = new_opaque_token()
    profile, email_msg, pairing = await run_in_threadpool(
        lambda: service.signup(
            session,
            email=body.email,
            password=body.password,
            first_name=body.first_name,
            last_name=body.last_name,
            browser_id=browser_id,
        )
    )
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
    out = SignupOut.model_validate(profile, from_attributes=True)
    out.pairing_code = pairing
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
    return service.verify_link(session, body.token_hash, body.type, request.cookies.get(BROWSER_COOKIE))


class PairIn(BaseModel):
    """``POST /api/auth/signup/pair``: the pairing code the signing-up browser showed."""

    code: str = Field(min_length=1, max_length=20)


@router.post("/signup/pair", response_model=SessionOut, operation_id="auth-signup-pair")
def pair_signup(body: PairIn, claims: RecoveryClaims, session: SessionDep, response: Response) -> SessionOut:
    """With the one-time session of a sign-up link opened in another browser (``password_required``):
    the 6-digit code shown after sign-up proves the link's opener is who signed up, so the password
    chosen then works again, in the signing-up browser too (:func:`api.services.auth.pair_signup`).
    Answers an ordinary session for this browser.

    Errors: 400 'Codice non valido' (``pairing_code_invalid``; after 5 wrong codes the code is spent
    and a new password is the way in); 400/401/403 as ``POST /password/reset`` for a missing, spent or
    non-recovery session.
    """
    out = service.pair_signup(session, claims, body.code)
    set_device_cookie(response, out.user.id)  # the e-mailed link and the code prove the owner
    return out


# --- login, refresh, logout ------------------------------------------------------------------------------
def set_device_cookie(response: Response, user_id: uuid.UUID, token: str | None = None) -> None:
    """Set the account's device cookie (``fp_device_…``, HttpOnly, ``/api/auth`` only, a year): the
    proof that this browser signed in before, which lets it past the account's lock-out."""
    settings = get_settings()
    response.set_cookie(
        device_cookie_name(user_id),
        token or create_device_token(user_id),
        max_age=settings.device_cookie_ttl_s,
        path="/api/auth",
        httponly=True,
        samesite="strict",
        secure=public_base_url(settings).startswith("https://"),
    )


@router.post("/login", response_model=SessionOut, operation_id="auth-login")
def login(body: LoginIn, session: SessionDep, request: Request, response: Response) -> SessionOut:
    """Exchange e-mail and password for a session; sets the account's device cookie.

    Errors (title 'Errore accesso'): 401 'Email o password non corretti'; 401 e-mail not confirmed; 429
    ``account_locked`` while the account is locked for browsers without its device cookie
    (``login_lockout_*``), 429 ``rate_limited`` after ``login_ip_rate_limit`` failures from the client
    address or ``login_device_rate_limit`` with one device cookie. An unknown e-mail costs one argon2
    verification too (dummy hash).
    """
    out, device = service.login(session, body.email, body.password, client_ip(request), request.cookies)
    set_device_cookie(response, out.user.id, device)
    return out


@router.post("/refresh", response_model=SessionOut, operation_id="auth-refresh")
def refresh(body: RefreshIn, session: SessionDep) -> SessionOut:
    """Rotate a refresh token: the old one is revoked and a new session returned. Re-using a revoked
    token revokes every session of that user (token theft)."""
    return service.refresh(session, body.refresh_token)


@router.post("/logout", status_code=status.HTTP_204_NO_CONTENT, operation_id="auth-logout")
def logout(body: RefreshIn, session: SessionDep) -> None:
    """End the sign-in session of the refresh token (idempotent): its refresh tokens are revoked and
    its access tokens are refused from now on, on every route and open event stream."""
    service.logout(session, body.refresh_token)


# --- password reset and change -----------------------------------------------------------------------------
@router.post(
    "/password/forgot",
    status_code=status.HTTP_202_ACCEPTED,
    response_model=MessageOut,
    operation_id="auth-password-forgot",
)
async def forgot_password(body: ForgotIn, request: Request, background: BackgroundTasks) -> MessageOut:
    """E-mail a 6-digit code (valid ``recovery_code_ttl_s``) and a reset link (``recovery_link_ttl_s``);
    earlier unused ones stop working. Same answer, in the same time, whether or not the address has an
    account: only the rate limits run before the answer; looking the address up, storing the code and
    sending the e-mail (SMTP in production) happen after it (:func:`send_reset_email`, a background
    task of the response).

    Errors: 400 empty e-mail; 429 after ``forgot_ip_rate_limit`` requests from one client IP (any
    addresses) or ``forgot_rate_limit`` requests for one address.
    """
    email = normalise_email(body.email)
    title = "Errore reset password"
    if not email:
        raise ApiError(400, "Inserisci la tua email.", "email_required", title)
    settings = get_settings()
    await run_in_threadpool(
        service.check_limit,
        settings.forgot_ip_rate_limit,
        "forgot",
        "ip",
        service.ip_key(client_ip(request)),
        title=title,
        hit=True,
    )
    await run_in_threadpool(
        service.check_limit, settings.forgot_rate_limit, "forgot", email, title=title, hit=True
    )
    background.add_task(send_reset_email, email, public_base_url(settings))
    return MessageOut(title=RESET_SENT[0], detail=RESET_SENT[1])


async def send_reset_email(email: str, base_url: str) -> None:
    """After ``POST /password/forgot`` has answered: new code and link for ``email`` if it has an
    account (:func:`api.services.auth.forgot_password`, its own transaction), then the e-mail. Links
    point at ``base_url`` (the request's, resolved before the answer). Failures are logged only: the
    answer never depends on the address."""

    def new_code() -> mailer.Email | None:
        with session_scope() as session:
            return service.forgot_password(session, email, base_url=base_url)

    try:
        message = await run_in_threadpool(new_code)
        if message is not None:
            await mailer.send_email(message)
    except Exception:  # a background task has nobody to answer to
        log.exception("reset e-mail to %s not prepared or not delivered", email)


@router.post("/password/verify-otp", response_model=MessageOut, operation_id="auth-password-verify-otp")
def verify_otp(body: VerifyOtpIn, session: SessionDep, response: Response) -> MessageOut:
    """Set a new password with the e-mailed 6-digit code (single use; other sessions are revoked).

    Errors (400, title 'Verifica fallita'): 'Il codice di verifica è scaduto. Richiedi un nuovo codice.',
    'Il codice di verifica non è valido. Controlla e riprova.'; format errors 'Codice non valido' /
    'Password non valida'; 429 after ``otp_rate_limit`` attempts for one address.
    """
    token = body.token.strip()
    if len(token) != 6 or not token.isdigit():
        raise service.code_format()
    service.check_new_password(
        body.password, "La password deve essere lunga almeno 6 caratteri.", "Password non valida"
    )
    service.check_limit(
        get_settings().otp_rate_limit, "otp", normalise_email(body.email), title="Verifica fallita", hit=True
    )
    user_id = service.reset_with_code(session, body.email, token, body.password)
    set_device_cookie(response, user_id)  # the e-mailed code proves the owner: this browser is theirs
    return MessageOut(title=PASSWORD_UPDATED, detail="Ora puoi accedere con la nuova password.")


@router.post("/password/reset", response_model=MessageOut, operation_id="auth-password-reset")
def reset_password(
    body: ResetIn, session: SessionDep, claims: RecoveryClaims, response: Response
) -> MessageOut:
    """Set a new password from the reset link: bearer = the access token that ``/verify`` returned for a
    ``recovery`` link (usable once). Other sessions are revoked.

    Errors: 401 'Link mancante' without a token; 401/400 'Il link per il reset della password non è
    valido…' or '… è scaduto…'; 403 for an ordinary (non-recovery) session; 400 password under 6.
    """
    service.check_new_password(
        body.password, "La password deve essere di almeno 6 caratteri", "Errore aggiornamento password"
    )
    user_id = service.reset_with_recovery_session(session, claims, body.password)
    set_device_cookie(response, user_id)  # the e-mailed link proves the owner: this browser is theirs
    return MessageOut(title=PASSWORD_UPDATED, detail="Ora puoi accedere con la nuova password.")


@router.post("/password/change", response_model=MessageOut, operation_id="auth-password-change")
def change_password(body: ChangePasswordIn, auth: CurrentAuth, session: SessionDep) -> MessageOut:
    """Change the signed-in user's password (needs the current one). Every other sign-in session is
    revoked at once, access tokens included; the caller's own session stays signed in.

    Errors (title 'Errore aggiornamento password'): 400 wrong current password; 400 new one under 6
    characters; 429 after ``login_rate_limit`` wrong current passwords.
    """
    service.change_password(
        session,
        auth.profile.id,
        auth.session_id,
        body.current_password,
        body.new_password,
        "Errore aggiornamento password",
    )
    return MessageOut(title=PASSWORD_UPDATED, detail="La tua password è stata modificata.")

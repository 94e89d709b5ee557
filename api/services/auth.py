"""Accounts: the sign-up, link, login, refresh-token and password transactions and the lifecycle of
one-time codes and links (``one_time_codes``: random, single use, expiring, stored as SHA-256), for
``api/routes/auth.py`` (see its module docstring for the flows and SPEC references).

Every function here that writes commits its own transaction. Errors are fresh :class:`ApiError` s
made by the small factories below (SPEC §8 messages), never shared instances.
"""

from __future__ import annotations

import hmac
import ipaddress
import math
import secrets
import uuid
from collections.abc import Mapping
from datetime import UTC, datetime, timedelta
from typing import Any
from urllib.parse import urlencode

import jwt
from sqlalchemy import case, or_, select, text, update
from sqlalchemy.orm import Session

from api.errors import ApiError
from api.schemas import ProfilePublic, SessionOut
from fotopronta import mailer, ratelimit
from fotopronta.accounts import EmailAlreadyRegisteredError, create_user, find_user_by_email, normalise_email
from fotopronta.db import get_engine
from fotopronta.models import OneTimeCode, Profile, RefreshSession, User
from fotopronta.security import (
    JWT_ALGORITHM,
    create_access_token,
    create_device_token,
    device_cookie_name,
    device_token_id,
    hash_password,
    new_opaque_token,
    sha256_hex,
    verify_password,
)
from fotopronta.settings import Settings, get_settings

STREAM_TICKET_PURPOSE = "events"
"""``one_time_codes.purpose`` of event-stream tickets."""
PASSWORD_MIN = 6
"""Minimum password length (SPEC §5, §9)."""
TOO_MANY = "Troppi tentativi. Attendi qualche minuto e riprova."
LOGIN_TITLE = "Errore accesso"


# --- SPEC §8 errors: a fresh exception each time --------------------------------------------------------
def invalid_login() -> ApiError:
    """401 'Email o password non corretti'."""
    return ApiError(401, "Email o password non corretti", "invalid_credentials", LOGIN_TITLE)


def email_not_confirmed() -> ApiError:
    """401: the account's address is not confirmed yet."""
    return ApiError(
        401,
        "Email non confermata: apri il link che ti abbiamo inviato per attivare l'account.",
        "email_not_confirmed",
        LOGIN_TITLE,
    )


def already_registered() -> ApiError:
    """400 'Un utente con questa email è già registrato'."""
    return ApiError(
        400, "Un utente con questa email è già registrato", "user_already_registered", "Errore registrazione"
    )


def password_on_hold() -> ApiError:
    """401 ``confirmed_in_other_browser``: the right password of an account confirmed from another
    browser than the sign-up's, before the pairing code was typed there (said only to whoever knows the
    password)."""
    return ApiError(
        401,
        "Hai confermato l'indirizzo da un altro dispositivo: lì inserisci il codice di 6 cifre che ti "
        "abbiamo mostrato dopo la registrazione, poi accedi qui con la tua password. In alternativa, "
        "scegli lì una nuova password.",
        "confirmed_in_other_browser",
        LOGIN_TITLE,
    )


def pairing_code_invalid() -> ApiError:
    """400 ``pairing_code_invalid``: a wrong or spent pairing code."""
    return ApiError(
        400,
        "Il codice non corrisponde a quello mostrato dopo la registrazione. Controlla e riprova, "
        "oppure scegli una nuova password.",
        "pairing_code_invalid",
        "Codice non valido",
    )


def link_invalid() -> ApiError:
    """400 'Link non valido o scaduto' (a sign-up link)."""
    return ApiError(400, "Link non valido o scaduto", "invalid_link", "Errore verifica")


def reset_link_invalid(status: int = 400, code: str = "invalid_recovery_link") -> ApiError:
    """``status`` (400) 'Il link per il reset della password non è valido…'."""
    return ApiError(
        status,
        "Il link per il reset della password non è valido. Richiedi un nuovo link.",
        code,
        "Link non valido",
    )


def reset_link_expired(status: int = 400) -> ApiError:
    """``status`` (400) 'Il link per il reset della password è scaduto…'."""
    return ApiError(
        status,
        "Il link per il reset della password è scaduto. Richiedi un nuovo link.",
        "recovery_link_expired",
        "Link non valido",
    )


def reset_link_missing() -> ApiError:
    """401 'Link mancante': no recovery session's token."""
    return ApiError(
        401,
        "Devi utilizzare il link inviato via email per reimpostare la password.",
        "recovery_link_missing",
        "Link mancante",
    )


def code_expired() -> ApiError:
    """400: the 6-digit code has expired."""
    return ApiError(
        400, "Il codice di verifica è scaduto. Richiedi un nuovo codice.", "otp_expired", "Verifica fallita"
    )


def code_invalid() -> ApiError:
    """400: wrong, used or unknown 6-digit code."""
    return ApiError(
        400, "Il codice di verifica non è valido. Controlla e riprova.", "otp_invalid", "Verifica fallita"
    )


def code_format() -> ApiError:
    """400: the code is not 6 digits."""
    return ApiError(400, "Inserisci un codice di verifica di 6 cifre.", "otp_format", "Codice non valido")


# --- rate limits and checks -------------------------------------------------------------------------------
def check_limit(limit: str, *identifiers: str, title: str, hit: bool) -> None:
    """Raise 429 when the moving window of ``limit`` (e.g. ``"10/15 minutes"``) is exhausted for
    ``identifiers``; with ``hit`` the call itself counts (PostgreSQL, ``fotopronta.ratelimit``).

    Raises:
        ApiError: 429 'Troppi tentativi…' with ``title``.
    """
    key = ratelimit.make_key(*identifiers)
    allowed = ratelimit.hit(limit, key) if hit else ratelimit.check(limit, key)
    if not allowed:
        raise too_many(title)


def too_many(title: str) -> ApiError:
    """429 'Troppi tentativi…' with ``title``."""
    return ApiError(429, TOO_MANY, "rate_limited", title)


def record_failure(limit: str, *identifiers: str) -> None:
    """Count one failure against ``limit`` for ``identifiers``."""
    ratelimit.hit(limit, ratelimit.make_key(*identifiers))


def check_new_password(password: str, message: str, title: str) -> None:
    """Raises: ApiError 400 ``weak_password`` (``message``, ``title``) under :data:`PASSWORD_MIN`."""
    if len(password) < PASSWORD_MIN:
        raise ApiError(400, message, "weak_password", title)


# --- tokens and one-time secrets ---------------------------------------------------------------------------
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


def _burn_unused(
    session: Session, user_id: uuid.UUID, purpose: str, now: datetime, *, kinds: tuple[str, ...] | None = None
) -> None:
    """Invalidate every unused code and link of ``purpose`` (a new request replaces them), or only
    those of ``kinds``."""
    stmt = update(OneTimeCode).where(
        OneTimeCode.user_id == user_id, OneTimeCode.purpose == purpose, OneTimeCode.used_at.is_(None)
    )
    if kinds is not None:
        stmt = stmt.where(OneTimeCode.kind.in_(kinds))
    session.execute(stmt.values(used_at=now))


HOLD_TTL_S = 10 * 365 * 24 * 3600
"""A held sign-up password stays held until paired or replaced (:func:`password_held` ignores expiry)."""


def password_held(session: Session, user_id: uuid.UUID) -> bool:
    """Whether the account's password is the one chosen at a sign-up whose link was opened in another
    browser, neither paired (:func:`pair_signup`) nor replaced since: it signs in nowhere."""
    return (
        session.execute(
            select(OneTimeCode.id).where(
                OneTimeCode.user_id == user_id,
                OneTimeCode.purpose == "signup",
                OneTimeCode.kind == "hold",
                OneTimeCode.used_at.is_(None),
            )
        ).first()
        is not None
    )


def _set_password(
    session: Session, user: User, password: str, now: datetime, *, keep_session: uuid.UUID | None = None
) -> None:
    """New password hash; every sign-in session of the user but ``keep_session`` is revoked, with its
    access tokens (other devices sign out at once); every unused reset code, reset link and link
    session is burnt (a code e-mailed before the change must not set a password after it); the
    account's lock-out ends."""
    user.password_hash = hash_password(password)
    _burn_unused(session, user.id, "recovery", now)
    _burn_unused(session, user.id, "signup", now)  # a held sign-up password and its pairing code end
    user.failed_logins, user.last_failed_login_at, user.login_locked_until = 0, None, None
    revoke = update(RefreshSession).where(
        RefreshSession.user_id == user.id, RefreshSession.revoked_at.is_(None)
    )
    if keep_session is not None:
        revoke = revoke.where(RefreshSession.family_id != keep_session)
    session.execute(revoke.values(revoked_at=now))


# --- sign-up and e-mailed links ------------------------------------------------------------------------------
def signup(
    session: Session, *, email: str, password: str, first_name: str, last_name: str | None, browser_id: str
) -> tuple[Profile, mailer.Email, str]:
    """Create an unconfirmed client (15 free credits, ``fotopronta.accounts.create_user``), or replace
    the pending password and names of an address not confirmed yet (older links and codes stop
    working), and store the sign-up link, the browser id and a 6-digit pairing code (SHA-256 only);
    commits. Returns the profile, the confirmation e-mail to send and the pairing code, which only the
    signing-up browser is shown: typed where the link is opened in another browser, it tells us the
    owner of the mailbox is the one who signed up (:func:`pair_signup`).

    Raises:
        ApiError: 400 'Un utente con questa email è già registrato'.
    """
    settings = get_settings()
    now = datetime.now(UTC)
    pending = session.execute(
        select(User).where(User.email == normalise_email(email)).with_for_update()
    ).scalar_one_or_none()
    if pending is not None and pending.email_confirmed_at is None:
        # not confirmed yet: whoever signs up last sets the pending password; older links stop working
        pending.password_hash = hash_password(password)
        pending.profile.first_name = first_name.strip()
        pending.profile.last_name = last_name
        _burn_unused(session, pending.id, "signup", now)
        profile = pending.profile
    else:
        try:
            profile = create_user(
                session,
                email=email,
                password=password,
                first_name=first_name.strip(),
                last_name=last_name,
                confirmed=False,
            )
        except EmailAlreadyRegisteredError as exc:
            raise already_registered() from exc
    ttl_s = settings.signup_link_ttl_s
    _new_secret(session, user_id=profile.id, purpose="signup", kind="browser", secret=browser_id, ttl_s=ttl_s)
    token = new_opaque_token()
    _new_secret(session, user_id=profile.id, purpose="signup", kind="link", secret=token, ttl_s=ttl_s)
    pairing = f"{secrets.randbelow(1_000_000):06d}"
    _new_secret(session, user_id=profile.id, purpose="signup", kind="pair", secret=pairing, ttl_s=ttl_s)
    session.commit()
    session.refresh(profile)
    link = mailer.public_link("/auth/callback", token_hash=token, type="signup")
    return profile, mailer.signup_confirmation_email(to=profile.email, link=link, ttl_s=ttl_s), pairing


def _same_browser(session: Session, user_id: uuid.UUID, browser_id: str | None, now: datetime) -> bool:
    """Whether ``browser_id`` (the ``fp_browser`` cookie) is the one stored at sign-up."""
    return browser_id is not None and (
        session.execute(
            select(OneTimeCode.id).where(
                OneTimeCode.user_id == user_id,
                OneTimeCode.purpose == "signup",
                OneTimeCode.kind == "browser",
                OneTimeCode.used_at.is_(None),
                OneTimeCode.expires_at > now,
                OneTimeCode.code_hash == sha256_hex(browser_id),
            )
        ).first()
        is not None
    )


def verify_link(session: Session, token_hash: str, link_type: str, browser_id: str | None) -> SessionOut:
    """Exchange an e-mailed link (``link_type`` ``recovery``, else sign-up) for a session; single use;
    commits. Opening any link confirms the address. A recovery link, or a sign-up link opened in
    another browser, yields a one-time recovery session (``amr=recovery`` and a stored ``jti``) with
    ``password_required``. In the latter case the password chosen at sign-up is *held*: it may have
    been chosen by someone else (account pre-hijacking), so it signs in nowhere until the link's
    opener either types the sign-up's pairing code (:func:`pair_signup`: then it works, in the
    signing-up browser too) or sets a new password (which ends the hold).

    Raises:
        ApiError: 400 sign-up 'Link non valido o scaduto'; recovery invalid or expired link.
    """
    now = datetime.now(UTC)
    purpose = "recovery" if link_type == "recovery" else "signup"
    row = session.execute(
        select(OneTimeCode)
        .where(
            OneTimeCode.code_hash == sha256_hex(token_hash),
            OneTimeCode.purpose == purpose,
            OneTimeCode.kind == "link",
        )
        .with_for_update()
    ).scalar_one_or_none()
    if row is None or row.used_at is not None:
        raise reset_link_invalid() if purpose == "recovery" else link_invalid()
    if row.expires_at <= now:
        raise reset_link_expired() if purpose == "recovery" else link_invalid()
    row.used_at = now
    user = session.get_one(User, row.user_id)
    set_password = purpose == "recovery"
    if user.email_confirmed_at is None:  # opening any e-mailed link proves the address
        user.email_confirmed_at = now
        if purpose == "signup":
            same_browser = _same_browser(session, user.id, browser_id, now)
            if same_browser:
                _burn_unused(session, user.id, "signup", now)
            else:
                # the pending password may have been chosen by someone else: held until the opener
                # proves they signed up (the pairing code) or sets a new one
                _burn_unused(session, user.id, "signup", now, kinds=("link", "browser"))
                _new_secret(
                    session,
                    user_id=user.id,
                    purpose="signup",
                    kind="hold",
                    secret=new_opaque_token(),
                    ttl_s=HOLD_TTL_S,
                )
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


# --- login, refresh, logout -----------------------------------------------------------------------------------
def account_locked(wait_s: float) -> ApiError:
    """429 ``account_locked``: the account refuses logins from new devices for ``wait_s`` more seconds."""
    minutes = max(1, math.ceil(wait_s / 60))
    wait = "1 minuto" if minutes == 1 else f"{minutes} minuti"
    return ApiError(
        429,
        f"Troppi tentativi di accesso a questo account: riprova tra {wait} "
        "o reimposta la password con 'Password dimenticata?'.",
        "account_locked",
        LOGIN_TITLE,
    )


def ip_key(ip: str) -> str:
    """The rate-limit key of a client address: the address itself for IPv4, its /64 for IPv6 (one
    subscriber's whole allocation: a client cannot dodge a limit by walking through it)."""
    try:
        address = ipaddress.ip_address(ip)
    except ValueError:
        return ip
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped is not None:
            return str(address.ipv4_mapped)
        return str(ipaddress.IPv6Network((address, 64), strict=False))
    return str(address)


def lock_s(settings: Settings, failures: int) -> float:
    """Seconds an account with ``failures`` consecutive failed logins is locked: none under
    ``login_lockout_threshold``, then ``login_lockout_base_s`` doubled for each failure past it, at most
    ``login_lockout_max_s``."""
    if failures < settings.login_lockout_threshold:
        return 0.0
    exponent = min(failures - settings.login_lockout_threshold, 32)
    return float(min(settings.login_lockout_max_s, settings.login_lockout_base_s * 2**exponent))


def _take_attempt(session: Session, user_id: uuid.UUID, now: datetime) -> bool:
    """Count a login attempt from a client without a device cookie against the account, up front and
    atomically (one ``UPDATE``), unless the account is locked; a success undoes it
    (:func:`_clear_failures`). The attempt that reaches ``login_lockout_threshold`` sets the lock
    (:func:`lock_s`), so parallel guesses cannot pass the threshold; the count starts again after
    ``login_lockout_reset_s`` without failures. Commits. Returns ``False`` when the account is locked."""
    settings = get_settings()
    quiet_since = now - timedelta(seconds=settings.login_lockout_reset_s)
    failures = case(
        (or_(User.last_failed_login_at.is_(None), User.last_failed_login_at < quiet_since), 1),
        else_=User.failed_logins + 1,
    )
    counted = session.execute(
        update(User)
        .where(User.id == user_id, or_(User.login_locked_until.is_(None), User.login_locked_until <= now))
        .values(failed_logins=failures, last_failed_login_at=now)
        .returning(User.failed_logins)
        .execution_options(synchronize_session=False)
    ).scalar_one_or_none()
    if counted is not None and (wait := lock_s(settings, counted)) > 0:
        session.execute(
            update(User)
            .where(User.id == user_id)
            .values(login_locked_until=now + timedelta(seconds=wait))
            .execution_options(synchronize_session=False)
        )
    session.commit()
    return counted is not None


def _take_unknown_attempt(email: str, now: datetime) -> float:
    """The lock-out as an unknown address would have it, so the answers do not tell which addresses
    have an account: its failed logins are rows of ``rate_limit_hits`` (key ``login:unknown:<email>``,
    kept ``login_lockout_reset_s``), the lock is :func:`lock_s` of their count from the last one.
    Counts this attempt unless locked (serialised per address by an advisory lock). Returns the
    seconds the address is still locked (0: the attempt goes on, and fails as unknown)."""
    settings = get_settings()
    key = ratelimit.make_key("login", "unknown", email)
    with get_engine().begin() as conn:
        conn.execute(text("SELECT pg_advisory_xact_lock(hashtext(:key))"), {"key": key})
        count, last = conn.execute(
            text("SELECT count(*), max(hit_at) FROM rate_limit_hits WHERE key = :key AND hit_at > :since"),
            {"key": key, "since": now - timedelta(seconds=settings.login_lockout_reset_s)},
        ).one()
        if last is not None and (
            wait := (last + timedelta(seconds=lock_s(settings, int(count))) - now)
        ) > timedelta(0):
            return wait.total_seconds()
        conn.execute(
            text("INSERT INTO rate_limit_hits (key, hit_at, expires_at) VALUES (:key, :now, :expires)"),
            {"key": key, "now": now, "expires": now + timedelta(seconds=settings.login_lockout_reset_s)},
        )
    return 0.0


def _clear_failures(session: Session, user_id: uuid.UUID) -> None:
    """The account's failure count and lock end (a success without a device cookie, or a new
    password); the caller commits."""
    session.execute(
        update(User)
        .where(User.id == user_id)
        .values(failed_logins=0, last_failed_login_at=None, login_locked_until=None)
        .execution_options(synchronize_session=False)
    )


def login(
    session: Session, email: str, password: str, ip: str, cookies: Mapping[str, str]
) -> tuple[SessionOut, str]:
    """Exchange e-mail and password for a session (commits). Returns the session and a new device
    cookie value for the account (:func:`fotopronta.security.create_device_token`, set by the route
    under :func:`fotopronta.security.device_cookie_name`).

    Lock-out on the account itself, with the owner's devices let through (OWASP's device cookies):

    - A client with a valid device cookie of this account (from an earlier successful login or an
      e-mailed reset in that browser) is not subject to the account's lock or the per-address limit;
      its failures count against that device only (``login_device_rate_limit``).
    - Every other client's attempt counts against the account, whatever its address
      (:func:`_take_attempt`): ``login_lockout_threshold`` consecutive failures lock the account for
      ``login_lockout_base_s``, each further one doubles the lock up to ``login_lockout_max_s``; while
      locked such clients get 429 ``account_locked`` without their password being checked. A success
      clears the count; so does a new password (e-mailed reset). Failures also count per client
      address (``login_ip_rate_limit``; IPv6 per /64) against password spraying.

    An unknown e-mail costs one argon2 verification too (dummy hash).

    Raises:
        ApiError: 401 'Email o password non corretti'; 401 e-mail not confirmed; 429 rate limited or
            account locked.
    """
    settings = get_settings()
    now = datetime.now(UTC)
    user = find_user_by_email(session, email)
    device = device_token_id(cookies.get(device_cookie_name(user.id)), user.id) if user is not None else None
    from_ip = ("login", "ip", ip_key(ip))
    if device is not None:
        check_limit(settings.login_device_rate_limit, "login", "device", device, title=LOGIN_TITLE, hit=False)
    else:
        check_limit(settings.login_ip_rate_limit, *from_ip, title=LOGIN_TITLE, hit=False)
        if user is not None and not _take_attempt(session, user.id, now):
            locked_until = session.execute(select(User.login_locked_until).where(User.id == user.id)).scalar()
            raise account_locked((locked_until - now).total_seconds() if locked_until else 60)
        if user is None and (wait := _take_unknown_attempt(normalise_email(email), now)) > 0:
            raise account_locked(wait)
    if not verify_password(password, user.password_hash if user else None) or user is None:
        if device is not None:
            record_failure(settings.login_device_rate_limit, "login", "device", device)
        else:
            record_failure(settings.login_ip_rate_limit, *from_ip)
        raise invalid_login()
    if device is None:
        _clear_failures(session, user.id)
        session.commit()
    if user.email_confirmed_at is None:
        raise email_not_confirmed()
    if password_held(session, user.id):
        raise password_on_hold()
    out = issue_session(session, user.profile)
    session.commit()
    return out, create_device_token(user.id)


def _find_refresh(session: Session, token: str) -> RefreshSession | None:
    return session.execute(
        select(RefreshSession).where(RefreshSession.token_hash == sha256_hex(token)).with_for_update()
    ).scalar_one_or_none()


def refresh(session: Session, refresh_token: str) -> SessionOut:
    """Rotate a refresh token (commits): the old one is revoked and a new session returned.

    A revoked token is answered 401. It is taken as evidence of theft (every session of the user is
    revoked) only while its sign-in session still has a live token: then two parties hold tokens of one
    session, as when a stolen token was rotated by one of them. When the whole sign-in session has
    already ended (logout, a password change or reset, an earlier theft response) nobody holds a live
    token of it, so its old tokens are just expired: a password change cannot be turned into a logout
    of the owner's new session by replaying the tokens it revoked.

    Raises:
        ApiError: 401 ``invalid_refresh_token`` unknown, expired or of an ended session; 401
            ``refresh_token_reused`` (theft: every session revoked).
    """
    now = datetime.now(UTC)
    stored = _find_refresh(session, refresh_token)
    if stored is None or stored.expires_at <= now:
        raise ApiError(401, "Sessione scaduta: accedi di nuovo.", "invalid_refresh_token")
    if stored.revoked_at is not None:
        live = session.execute(
            select(RefreshSession.id)
            .where(RefreshSession.family_id == stored.family_id, RefreshSession.revoked_at.is_(None))
            .limit(1)
        ).first()
        if live is None:
            session.rollback()
            raise ApiError(401, "Sessione scaduta: accedi di nuovo.", "invalid_refresh_token")
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


def logout(session: Session, refresh_token: str) -> None:
    """Revoke the sign-in session of ``refresh_token`` (idempotent; commits)."""
    stored = _find_refresh(session, refresh_token)
    if stored is not None:
        session.execute(
            update(RefreshSession)
            .where(RefreshSession.family_id == stored.family_id, RefreshSession.revoked_at.is_(None))
            .values(revoked_at=datetime.now(UTC))
        )
        session.commit()


# --- password reset and change ----------------------------------------------------------------------------------
def forgot_password(session: Session, email: str, *, base_url: str | None = None) -> mailer.Email | None:
    """Replace the user's unused recovery code and link with a new 6-digit code
    (``recovery_code_ttl_s``) and link (``recovery_link_ttl_s``, on ``base_url`` when given, else
    :func:`fotopronta.links.public_base_url`); commits. Returns the e-mail to send, ``None`` when no
    account has ``email``."""
    settings = get_settings()
    user = find_user_by_email(session, email)
    if user is None:
        return None
    now = datetime.now(UTC)
    _burn_unused(session, user.id, "recovery", now)
    code = f"{secrets.randbelow(1_000_000):06d}"
    token = new_opaque_token()
    for kind, secret, ttl_s in (
        ("code", code, settings.recovery_code_ttl_s),
        ("link", token, settings.recovery_link_ttl_s),
    ):
        _new_secret(session, user_id=user.id, purpose="recovery", kind=kind, secret=secret, ttl_s=ttl_s)
    session.commit()
    link = (
        f"{base_url}/auth/callback?{urlencode({'token_hash': token, 'type': 'recovery'})}"
        if base_url
        else mailer.public_link("/auth/callback", token_hash=token, type="recovery")
    )
    return mailer.password_reset_email(
        to=user.email,
        code=code,
        link=link,
        code_ttl_s=settings.recovery_code_ttl_s,
        link_ttl_s=settings.recovery_link_ttl_s,
    )


def reset_with_code(session: Session, email: str, code: str, password: str) -> uuid.UUID:
    """Set a new password with the e-mailed 6-digit ``code`` (single use; a wrong code counts an attempt
    and ``recovery_code_max_attempts`` burn it); other sessions are revoked and the address confirmed;
    commits. Returns the account's id.

    Raises:
        ApiError: 400 code invalid or expired.
    """
    settings = get_settings()
    now = datetime.now(UTC)
    user = find_user_by_email(session, email)
    if user is None:
        raise code_invalid()
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
        raise code_invalid()
    if not hmac.compare_digest(row.code_hash, sha256_hex(code)):
        row.attempts += 1
        if row.attempts >= settings.recovery_code_max_attempts:
            row.used_at = now
        session.commit()
        raise code_invalid()
    if row.expires_at <= now:
        raise code_expired()
    _burn_unused(session, user.id, "recovery", now)  # the code and its companion link
    _set_password(session, user, password, now)
    if user.email_confirmed_at is None:
        user.email_confirmed_at = now
    session.commit()
    return user.id


def reset_with_recovery_session(session: Session, claims: dict[str, Any], password: str) -> uuid.UUID:
    """Set a new password with a recovery session's token (``claims`` from
    :func:`api.deps.recovery_claims`: ``sub`` and ``jti``, usable once); other sessions are revoked;
    commits. Returns the account's id.

    Raises:
        ApiError: 400 link invalid, used or expired.
    """
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
        raise reset_link_invalid()
    if row.expires_at <= now:
        raise reset_link_expired()
    row.used_at = now
    _set_password(session, session.get_one(User, row.user_id), password, now)
    session.commit()
    return row.user_id


def pair_signup(session: Session, claims: dict[str, Any], code: str) -> SessionOut:
    """The opener of a sign-up link in another browser says they signed up: ``code`` is the 6-digit
    pairing code the signing-up browser was shown (:func:`signup`). Then the held sign-up password is
    released (it signs in everywhere, the signing-up browser too), the link's one-time recovery session
    is spent and an ordinary session is returned for this browser; commits.

    A wrong code counts an attempt on the code; ``recovery_code_max_attempts`` burn it (the opener then
    sets a new password). Only the mailbox's owner holds such a recovery session, and only the person
    who signed up saw the code: both together prove they are the same person.

    Raises:
        ApiError: 400 link invalid, used or expired; 400 ``pairing_code_invalid``.
    """
    settings = get_settings()
    now = datetime.now(UTC)
    spent = session.execute(
        select(OneTimeCode)
        .where(
            OneTimeCode.code_hash == sha256_hex(str(claims["jti"])),
            OneTimeCode.purpose == "recovery",
            OneTimeCode.kind == "session",
        )
        .with_for_update()
    ).scalar_one_or_none()
    if spent is None or spent.used_at is not None or str(spent.user_id) != str(claims["sub"]):
        raise reset_link_invalid()
    if spent.expires_at <= now:
        raise reset_link_expired()
    user = session.get_one(User, spent.user_id)
    row = session.execute(
        select(OneTimeCode)
        .where(
            OneTimeCode.user_id == user.id,
            OneTimeCode.purpose == "signup",
            OneTimeCode.kind == "pair",
            OneTimeCode.used_at.is_(None),
            OneTimeCode.expires_at > now,
        )
        .order_by(OneTimeCode.created_at.desc())
        .limit(1)
        .with_for_update()
    ).scalar_one_or_none()
    if row is None or not password_held(session, user.id):
        raise pairing_code_invalid()
    if not hmac.compare_digest(row.code_hash, sha256_hex(code.strip())):
        row.attempts += 1
        if row.attempts >= settings.recovery_code_max_attempts:
            row.used_at = now
        session.commit()
        raise pairing_code_invalid()
    spent.used_at = now
    _burn_unused(session, user.id, "signup", now)  # the hold and the code: the password now works
    out = issue_session(session, user.profile)
    session.commit()
    return out


def change_password(
    session: Session, user_id: uuid.UUID, session_id: uuid.UUID, current: str, new: str, title: str
) -> None:
    """Change a signed-in user's password (needs the ``current`` one); every sign-in session but
    ``session_id`` is revoked; commits. Wrong current passwords count against ``login_rate_limit``.

    Raises:
        ApiError: 429 rate limited; 400 new password too short; 400 ``wrong_password`` (with ``title``).
    """
    limit = get_settings().login_rate_limit
    key = ("change", str(user_id))
    check_limit(limit, *key, title=title, hit=False)
    check_new_password(new, "La password deve essere di almeno 6 caratteri", title)
    credentials = session.get_one(User, user_id)
    if not verify_password(current, credentials.password_hash):
        record_failure(limit, *key)
        raise ApiError(400, "La password attuale non è corretta.", "wrong_password", title)
    _set_password(session, credentials, new, datetime.now(UTC), keep_session=session_id)
    session.commit()


def new_stream_ticket(session: Session, user_id: uuid.UUID, session_id: uuid.UUID) -> str:
    """A signed, short-lived (``events_ticket_ttl_s``) single-use ticket (JWT ``typ=stream`` with
    ``sub``, ``sid``, ``jti``) that opens one event stream; its ``jti`` is stored hashed
    (``one_time_codes``, purpose ``events``) and spent by :func:`api.deps.consume_stream_ticket`;
    commits."""
    settings = get_settings()
    now = datetime.now(UTC)
    jti = new_opaque_token()
    expires_at = now + timedelta(seconds=settings.events_ticket_ttl_s)
    session.add(
        OneTimeCode(
            user_id=user_id,
            purpose=STREAM_TICKET_PURPOSE,
            kind="ticket",
            code_hash=sha256_hex(jti),
            expires_at=expires_at,
        )
    )
    session.commit()
    claims = {
        "typ": "stream",
        "sub": str(user_id),
        "sid": str(session_id),
        "jti": jti,
        "iat": now,
        "exp": expires_at,
    }
    return jwt.encode(claims, settings.jwt_secret, algorithm=JWT_ALGORITHM)

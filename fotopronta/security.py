"""Password hashing (argon2 via pwdlib) and access tokens (JWT HS256 via PyJWT)."""

from __future__ import annotations

import hashlib
import secrets
import uuid
from datetime import UTC, datetime, timedelta
from typing import Any

import jwt
from pwdlib import PasswordHash
from pwdlib.hashers.argon2 import Argon2Hasher

from fotopronta.settings import get_settings

_password_hash = PasswordHash((Argon2Hasher(),))
JWT_ALGORITHM = "HS256"


def hash_password(password: str) -> str:
    """Return the argon2id hash (PHC string) of ``password``."""
    return _password_hash.hash(password)


_dummy_hash: str | None = None


def dummy_password_hash() -> str:
    """An argon2id hash of a random secret, made once per process with the same parameters as real
    hashes: verifying against it costs what a real verification costs."""
    global _dummy_hash
    if _dummy_hash is None:
        _dummy_hash = hash_password(secrets.token_urlsafe(32))
    return _dummy_hash


def verify_password(password: str, password_hash: str | None) -> bool:
    """Whether ``password`` matches ``password_hash`` (constant-time inside argon2).

    Without a usable hash (unknown user, or a password discarded at confirmation) the password is
    verified against :func:`dummy_password_hash` and ``False`` returned, so the answer takes as long
    as for an existing account and timing does not reveal which e-mails exist.
    """
    usable = password_hash is not None and password_hash.startswith("$argon2")
    try:
        ok = _password_hash.verify(
            password, password_hash if password_hash and usable else dummy_password_hash()
        )
    except Exception:
        return False
    return ok and usable


UNUSABLE_PASSWORD = "!unusable"
"""``users.password_hash`` of an account whose password was discarded (a sign-up confirmed from another
browser: the owner sets one with the e-mailed link's session). Never matches any password."""


def create_access_token(
    user_id: uuid.UUID,
    *,
    role: str,
    session_id: uuid.UUID,
    now: datetime | None = None,
    extra: dict[str, Any] | None = None,
) -> tuple[str, datetime]:
    """Return ``(jwt, expires_at)``: an HS256 token with ``sub``, ``role``, ``sid`` (the sign-in
    session, ``refresh_sessions.family_id``: revoking it revokes the token), ``iat``, ``exp``
    (``access_token_ttl_s`` seconds), ``typ=access`` and ``extra`` claims."""
    settings = get_settings()
    now = now or datetime.now(UTC)
    expires_at = now + timedelta(seconds=settings.access_token_ttl_s)
    payload: dict[str, Any] = {
        "sub": str(user_id),
        "role": role,
        "sid": str(session_id),
        "iat": now,
        "exp": expires_at,
        "typ": "access",
        **(extra or {}),
    }
    return jwt.encode(payload, settings.jwt_secret, algorithm=JWT_ALGORITHM), expires_at


def decode_access_token(token: str) -> dict[str, Any]:
    """Decode and verify an access token.

    Raises:
        jwt.InvalidTokenError: bad signature, expired, or not an access token.
    """
    payload: dict[str, Any] = jwt.decode(token, get_settings().jwt_secret, algorithms=[JWT_ALGORITHM])
    if payload.get("typ") != "access":
        raise jwt.InvalidTokenError("not an access token")
    return payload


def new_opaque_token() -> str:
    """A 256-bit URL-safe random token (refresh tokens, link tokens)."""
    return secrets.token_urlsafe(32)


def sha256_hex(value: str) -> str:
    """Hex SHA-256 of ``value`` (how opaque tokens and codes are stored)."""
    return hashlib.sha256(value.encode()).hexdigest()


DEVICE_COOKIE_PREFIX = "fp_device_"
"""Device cookies are named ``fp_device_<16 hex of SHA-256(user id)>``: one per account in a browser."""


def device_cookie_name(user_id: uuid.UUID) -> str:
    """The name of the device cookie of the account ``user_id``."""
    return DEVICE_COOKIE_PREFIX + sha256_hex(str(user_id))[:16]


def create_device_token(user_id: uuid.UUID, *, now: datetime | None = None) -> str:
    """A device cookie's value (OWASP "Slow down online guessing attacks with device cookies"): an
    HS256 token with ``typ=device``, ``sub`` (the account), a random ``jti`` (the device, which has
    its own failure limit) and ``exp`` (``device_cookie_ttl_s``). Only a client that signed in to the
    account, or set its password from the e-mailed reset, has one."""
    settings = get_settings()
    now = now or datetime.now(UTC)
    payload = {
        "typ": "device",
        "sub": str(user_id),
        "jti": new_opaque_token(),
        "iat": now,
        "exp": now + timedelta(seconds=settings.device_cookie_ttl_s),
    }
    return jwt.encode(payload, settings.jwt_secret, algorithm=JWT_ALGORITHM)


def device_token_id(token: str | None, user_id: uuid.UUID) -> str | None:
    """The device id (``jti``) of ``token`` when it is a valid, unexpired device cookie of the account
    ``user_id``; ``None`` otherwise (missing, forged, expired, another account's)."""
    if not token or len(token) > 1000:
        return None
    try:
        payload = jwt.decode(token, get_settings().jwt_secret, algorithms=[JWT_ALGORITHM])
    except jwt.InvalidTokenError:
        return None
    if payload.get("typ") != "device" or payload.get("sub") != str(user_id) or not payload.get("jti"):
        return None
    return str(payload["jti"])

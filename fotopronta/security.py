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


def verify_password(password: str, password_hash: str) -> bool:
    """Whether ``password`` matches ``password_hash`` (constant-time inside argon2)."""
    try:
        return _password_hash.verify(password, password_hash)
    except Exception:
        return False


def create_access_token(
    user_id: uuid.UUID, *, role: str, now: datetime | None = None
) -> tuple[str, datetime]:
    """Return ``(jwt, expires_at)``: an HS256 token with ``sub``, ``role``, ``iat``, ``exp``
    (``access_token_ttl_s`` seconds) and ``typ=access``."""
    settings = get_settings()
    now = now or datetime.now(UTC)
    expires_at = now + timedelta(seconds=settings.access_token_ttl_s)
    payload: dict[str, Any] = {
        "sub": str(user_id),
        "role": role,
        "iat": now,
        "exp": expires_at,
        "typ": "access",
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

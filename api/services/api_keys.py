"""API keys: create (the secret answered once), list and revoke a seller's keys, and authenticate a
secret on the public API (``/v1``, ``/v1.0``). Secrets are made and hashed by :mod:`fotopronta.api_keys`;
a key belongs to one seller and opens that seller's jobs only, never a staff power (an admin's key is
a seller's key)."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from sqlalchemy import case, func, select, update
from sqlalchemy.orm import Session

from api.errors import ApiError
from fotopronta.api_keys import KeyMode, display_prefix, hash_secret, looks_like_secret, new_secret
from fotopronta.domain import JOB_COSTS, UNDELIVERED_END_STATUSES, JobType, UserRole
from fotopronta.models import API_SCOPES, ApiKey, PhotoProcessingJob, Profile
from fotopronta.settings import get_settings

LAST_USED_RESOLUTION = timedelta(seconds=30)
"""``last_used_at`` is written at most this often per key (one UPDATE, not one per request)."""

INVALID_KEY = "Chiave API non valida: controlla di averla copiata per intero."
MISSING_KEY = "Chiave API mancante: inviala nell'intestazione 'Authorization: Bearer <chiave>' o 'X-Api-Key'."
REVOKED_KEY = "Questa chiave API è stata revocata: creane una nuova nella pagina Sviluppatori."


@dataclass(frozen=True)
class KeyCaller:
    """The caller of a public API request: the key's id, owner, mode, scopes and monthly cap (plain
    values, usable after the session closes)."""

    key_id: uuid.UUID
    user_id: uuid.UUID
    mode: KeyMode
    scopes: frozenset[str]
    monthly_credit_cap: int | None


def month_start(now: datetime | None = None) -> datetime:
    """The first instant of ``now``'s calendar month (UTC), where monthly caps start again."""
    now = now or datetime.now(UTC)
    return now.astimezone(UTC).replace(day=1, hour=0, minute=0, second=0, microsecond=0)


def credits_used_this_month(session: Session, key_id: uuid.UUID) -> int:
    """Credits the key's jobs cost this calendar month (UTC): each job's cost (``options.cost``, else
    its type's), except jobs that ended without a result (failed, rejected: their credits were given
    back). Jobs still waiting for their reservation count, so parallel requests cannot pass the cap."""
    cost = func.coalesce(
        PhotoProcessingJob.options["cost"].as_integer(),
        case({kind.value: JOB_COSTS[kind] for kind in JobType}, value=PhotoProcessingJob.job_type, else_=0),
    )
    total = session.execute(
        select(func.coalesce(func.sum(cost), 0)).where(
            PhotoProcessingJob.api_key_id == key_id,
            PhotoProcessingJob.created_at >= month_start(),
            PhotoProcessingJob.status.not_in(sorted(UNDELIVERED_END_STATUSES)),
        )
    ).scalar_one()
    return int(total)


def create_key(
    session: Session,
    user: Profile,
    *,
    name: str,
    mode: KeyMode,
    scopes: list[str] | None,
    monthly_credit_cap: int | None,
) -> tuple[ApiKey, str]:
    """Make a new key for ``user``; commits. Returns the row and the secret (never stored: answer it
    once). ``scopes`` ``None`` or empty gives every scope of :data:`fotopronta.models.API_SCOPES`.

    Raises:
        ApiError: 400 ``invalid_scope`` for an unknown scope; 409 ``too_many_api_keys`` past
            ``settings.api_keys_per_user`` active keys.
    """
    chosen = sorted(set(scopes or API_SCOPES))
    unknown = [s for s in chosen if s not in API_SCOPES]
    if unknown:
        raise ApiError(400, f"Permesso sconosciuto: {unknown[0]}.", "invalid_scope", "Chiave non creata")
    session.execute(select(Profile.id).where(Profile.id == user.id).with_for_update())  # one at a time
    active = session.execute(
        select(func.count()).where(ApiKey.user_id == user.id, ApiKey.revoked_at.is_(None))
    ).scalar_one()
    limit = get_settings().api_keys_per_user
    if active >= limit:
        session.rollback()
        raise ApiError(
            409,
            f"Hai già {limit} chiavi attive: revocane una prima di crearne un'altra.",
            "too_many_api_keys",
            "Chiave non creata",
        )
    secret = new_secret(mode)
    key = ApiKey(
        user_id=user.id,
        name=name.strip(),
        mode=mode,
        prefix=display_prefix(secret),
        secret_hash=hash_secret(secret),
        scopes=chosen,
        monthly_credit_cap=monthly_credit_cap,
    )
    session.add(key)
    session.commit()
    session.refresh(key)
    return key, secret


def list_keys(session: Session, user: Profile) -> list[tuple[ApiKey, int]]:
    """The seller's keys, newest first, revoked ones included, each with its credits used this month."""
    keys = session.execute(
        select(ApiKey).where(ApiKey.user_id == user.id).order_by(ApiKey.created_at.desc(), ApiKey.id)
    ).scalars()
    return [(key, credits_used_this_month(session, key.id)) for key in keys]


def revoke_key(session: Session, user: Profile, key_id: uuid.UUID) -> None:
    """Revoke one of the seller's keys (at once: the next request with it is refused); commits.
    Revoking a revoked key changes nothing.

    Raises:
        ApiError: 404 ``api_key_not_found`` (also for another seller's key).
    """
    key = session.get(ApiKey, key_id)
    if key is None or key.user_id != user.id:
        raise ApiError(404, "Chiave API non trovata.", "api_key_not_found")
    if key.revoked_at is None:
        key.revoked_at = datetime.now(UTC)
    session.commit()


def authenticate_key(session: Session, secret: str | None) -> KeyCaller:
    """The caller of a public API request from its secret: the key must exist, be unrevoked and belong
    to an account that is not a designer's; marks ``last_used_at`` (at most every
    :data:`LAST_USED_RESOLUTION`) and commits.

    Raises:
        ApiError: 401 ``missing_api_key``, ``invalid_api_key`` or ``api_key_revoked``; 403
            ``seller_only`` for a designer's account.
    """
    if not secret:
        raise ApiError(401, MISSING_KEY, "missing_api_key", "Chiave API mancante")
    if not looks_like_secret(secret):
        raise ApiError(401, INVALID_KEY, "invalid_api_key", "Chiave API non valida")
    row = session.execute(
        select(ApiKey, Profile.user_role, Profile.is_active)
        .join(Profile, Profile.id == ApiKey.user_id)
        .where(ApiKey.secret_hash == hash_secret(secret))
    ).one_or_none()
    if row is None:
        raise ApiError(401, INVALID_KEY, "invalid_api_key", "Chiave API non valida")
    key, role, is_active = row
    if key.revoked_at is not None:
        raise ApiError(401, REVOKED_KEY, "api_key_revoked", "Chiave API revocata")
    if role == UserRole.graphic.value and is_active:
        raise ApiError(
            403, "Le chiavi API sono riservate agli account dei clienti.", "seller_only", "Accesso negato"
        )
    now = datetime.now(UTC)
    if key.last_used_at is None or now - key.last_used_at >= LAST_USED_RESOLUTION:
        session.execute(update(ApiKey).where(ApiKey.id == key.id).values(last_used_at=now))
    caller = KeyCaller(
        key_id=key.id,
        user_id=key.user_id,
        mode="test" if key.mode == "test" else "live",
        scopes=frozenset(key.scopes or ()),
        monthly_credit_cap=key.monthly_credit_cap,
    )
    session.commit()
    return caller

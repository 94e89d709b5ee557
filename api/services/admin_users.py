"""Admin user management (``api/routes/admin_users.py``, SPEC §6 Admin, §9 admin grant): searching
users, granting credits, and the sign-up credits for users who never got them. Writers commit."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import String, cast, exists, func, select
from sqlalchemy.orm import Session

from api.deps import effective_role
from api.errors import ApiError
from api.services.queries import contains_any, sorted_page
from fotopronta import ledger
from fotopronta.domain import UserRole
from fotopronta.models import CreditLedgerEntry, CreditPackage, CreditPurchase, Profile
from fotopronta.settings import get_settings

SEARCH_LIMIT = 200
CREDITS_TITLE = "Errore assegnazione crediti"


def search_users(
    session: Session, q: str, *, page: int | None, size: int, sort: str, order: str
) -> tuple[list[Profile], int | None]:
    """Profiles whose e-mail, first or last name contains ``q`` (case-insensitive). Without ``page``:
    newest first, at most :data:`SEARCH_LIMIT`, and ``None`` for the total. With ``page`` (from 1):
    ``size`` rows sorted by ``sort`` (``created_at``, ``email``, ``name``, ``user_role``,
    ``credits_remaining``, ``credits_expiry_date``; ``order`` ``asc``/``desc``, nulls last, ties by
    id) and the number of matches."""
    query = select(Profile)
    term = q.strip()
    if term:
        query = query.where(contains_any(term, Profile.email, Profile.first_name, Profile.last_name))
    if page is None:
        newest = query.order_by(Profile.created_at.desc()).limit(SEARCH_LIMIT)
        return list(session.execute(newest).scalars()), None
    column: Any = {
        "created_at": Profile.created_at,
        "email": Profile.email,
        "name": func.lower(
            func.concat(func.coalesce(Profile.first_name, ""), " ", func.coalesce(Profile.last_name, ""))
        ),
        "user_role": Profile.user_role,
        "credits_remaining": Profile.credits_remaining,
        "credits_expiry_date": Profile.credits_expiry_date,
    }[sort]
    rows, total = sorted_page(session, query, column, Profile.id, order=order, page=page, size=size)
    return [row[0] for row in rows], total


def grant_credits(
    session: Session, user_id: uuid.UUID, amount: int, admin_id: uuid.UUID
) -> tuple[uuid.UUID, Profile]:
    """Add ``amount`` credits valid ``credit_validity_days`` to ``user_id``, recorded as a zero-amount
    completed purchase of the Free package and a ledger grant (key ``admin:{purchase_id}``); commits.
    Returns the purchase id and the refreshed profile.

    Raises:
        ApiError: 404 unknown user; 400 ``designer_needs_no_credits`` for an active designer (their
            account has no seller pages); 500 the Free package is missing.
    """
    profile = session.get(Profile, user_id)
    if profile is None:
        raise ApiError(404, "Utente non trovato.", "user_not_found", CREDITS_TITLE)
    if effective_role(profile) is UserRole.graphic:
        raise ApiError(
            400,
            "I grafici non usano crediti: il loro account non carica foto.",
            "designer_needs_no_credits",
            CREDITS_TITLE,
        )
    free = session.execute(select(CreditPackage).where(CreditPackage.name == "Free")).scalar_one_or_none()
    if free is None:
        raise ApiError(
            500,
            "Pacchetto 'Free' mancante: impossibile registrare l'accredito.",
            "free_package_missing",
            CREDITS_TITLE,
        )
    now = datetime.now(UTC)
    expires_at = now + timedelta(days=get_settings().credit_validity_days)
    purchase = CreditPurchase(
        id=uuid.uuid4(),
        user_id=user_id,
        package_id=free.id,
        credits_purchased=amount,
        amount_paid_cents=0,
        currency=free.currency,
        status="completed",
        credits_expiry_date=expires_at,
    )
    session.add(purchase)
    session.flush()
    ledger.grant(
        session,
        user_id=user_id,
        amount=amount,
        idempotency_key=f"admin:{purchase.id}",
        expires_at=expires_at,
        purchase_id=purchase.id,
        note=f"accredito manuale da {admin_id}",
    )
    session.commit()
    session.refresh(profile)
    return purchase.id, profile


def assign_missing_signup_credits(session: Session) -> list[uuid.UUID]:
    """Grant the sign-up credits (``signup_free_credits``, valid ``credit_validity_days``) to every
    client whose ledger has no sign-up grant, with the key sign-up uses (``signup:{user_id}``, so it is
    idempotent); commits. Staff accounts (designers, admins) are not sellers and get none. Returns who
    received them, oldest account first."""
    settings = get_settings()
    has_signup_grant = exists().where(
        CreditLedgerEntry.user_id == Profile.id,
        CreditLedgerEntry.idempotency_key == func.concat("grant:signup:", cast(Profile.id, String)),
    )
    missing = (
        session.execute(
            select(Profile.id)
            .where(~has_signup_grant, Profile.user_role == UserRole.client.value)
            .order_by(Profile.created_at)
        )
        .scalars()
        .all()
    )
    now = datetime.now(UTC)
    done = []
    for user_id in missing:
        if ledger.grant(
            session,
            user_id=user_id,
            amount=settings.signup_free_credits,
            idempotency_key=f"signup:{user_id}",
            expires_at=now + timedelta(days=settings.credit_validity_days),
            note="crediti gratuiti di benvenuto (assegnati dall'amministratore)",
        ):
            done.append(user_id)
    session.commit()
    return done

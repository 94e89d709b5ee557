"""Creating accounts: credentials, profile and (for clients) the 15 free sign-up credits in one transaction."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from fotopronta import ledger
from fotopronta.domain import UserRole
from fotopronta.models import Profile, User
from fotopronta.security import hash_password
from fotopronta.settings import get_settings


class EmailAlreadyRegisteredError(Exception):
    """An account with this e-mail exists ('User already registered')."""


def normalise_email(email: str) -> str:
    """Lower-case, stripped e-mail (accounts are unique by this form)."""
    return email.strip().lower()


def find_user_by_email(session: Session, email: str) -> User | None:
    """The user with this e-mail (case-insensitive), or ``None``."""
    return session.execute(
        select(User).where(func.lower(User.email) == normalise_email(email))
    ).scalar_one_or_none()


def create_user(
    session: Session,
    *,
    email: str,
    password: str,
    first_name: str | None = None,
    last_name: str | None = None,
    role: UserRole = UserRole.client,
    confirmed: bool = True,
    now: datetime | None = None,
) -> Profile:
    """Create credentials and profile; a client also gets the sign-up credits (SPEC §1: 15, valid
    365 days). Staff accounts (``graphic``, ``admin``) start at 0: they are not sellers' free trials
    (an admin who wants to try the client area grants credits in the admin dashboard).

    Everything happens in the caller's transaction: the grant is a ledger entry with idempotency
    key ``signup:{user_id}`` and expiry ``now + credit_validity_days``.

    Raises:
        EmailAlreadyRegisteredError: the e-mail is taken.
    """
    settings = get_settings()
    now = now or datetime.now(UTC)
    if find_user_by_email(session, email):
        raise EmailAlreadyRegisteredError(email)
    user = User(
        id=uuid.uuid4(),
        email=normalise_email(email),
        password_hash=hash_password(password),
        email_confirmed_at=now if confirmed else None,
    )
    session.add(user)
    session.flush()
    profile = Profile(
        id=user.id,
        email=user.email,
        first_name=first_name,
        last_name=last_name,
        user_role=role.value,
        credits_remaining=0,
        is_active=True,
        max_concurrent_jobs=5,
    )
    session.add(profile)
    session.flush()
    if role is UserRole.client and settings.signup_free_credits > 0:
        ledger.grant(
            session,
            user_id=user.id,
            amount=settings.signup_free_credits,
            idempotency_key=f"signup:{user.id}",
            expires_at=now + timedelta(days=settings.credit_validity_days),
            note="crediti gratuiti di benvenuto",
        )
    return profile

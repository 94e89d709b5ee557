"""The append-only credit ledger and the balance on ``profiles.credits_remaining``.

Every change of a user's credits is one ``credit_ledger`` row with a unique idempotency key, written
in the same transaction that updates ``profiles.credits_remaining`` (row-locked with
``SELECT … FOR UPDATE``), so the balance always equals the ledger's sum and, by the table's check
constraint, never goes negative. Writing an entry whose key already exists is a no-op that returns
``False``: Temporal may retry an activity, and the ledger books it once.

Signs (see :class:`fotopronta.domain.LedgerKind`): grant +n, reserve −n, charge 0 (makes a
reservation final), release +n (gives a reservation back), expire −n.
"""

from __future__ import annotations

import uuid
from datetime import datetime

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from fotopronta.domain import LedgerKind
from fotopronta.models import CreditLedgerEntry, Profile


class InsufficientCreditsError(Exception):
    """The user's balance is below the amount to reserve. Message: 'Insufficient credits'."""

    def __init__(self, needed: int, available: int) -> None:
        super().__init__(f"Insufficient credits: needed {needed}, available {available}")
        self.needed = needed
        self.available = available


class ReservationMissingError(Exception):
    """A charge or release names a reservation that was never booked."""


def _locked_profile(session: Session, user_id: uuid.UUID) -> Profile:
    profile = session.execute(select(Profile).where(Profile.id == user_id).with_for_update()).scalar_one()
    return profile


def _entry(session: Session, key: str) -> CreditLedgerEntry | None:
    return session.execute(
        select(CreditLedgerEntry).where(CreditLedgerEntry.idempotency_key == key)
    ).scalar_one_or_none()


def _append(
    session: Session,
    profile: Profile,
    *,
    kind: LedgerKind,
    amount: int,
    key: str,
    job_id: uuid.UUID | None = None,
    purchase_id: uuid.UUID | None = None,
    expires_at: datetime | None = None,
    note: str | None = None,
) -> None:
    session.add(
        CreditLedgerEntry(
            user_id=profile.id,
            kind=kind.value,
            amount=amount,
            idempotency_key=key,
            job_id=job_id,
            purchase_id=purchase_id,
            expires_at=expires_at,
            note=note,
        )
    )
    profile.credits_remaining += amount
    session.flush()


def grant(
    session: Session,
    *,
    user_id: uuid.UUID,
    amount: int,
    idempotency_key: str,
    expires_at: datetime | None,
    purchase_id: uuid.UUID | None = None,
    note: str | None = None,
) -> bool:
    """Add ``amount`` credits (> 0) valid until ``expires_at``; return ``False`` if already booked.

    Also moves ``profiles.credits_expiry_date`` to the latest expiry of the user's grants.

    Raises:
        ValueError: ``amount`` is not positive.
    """
    if amount <= 0:
        raise ValueError("grant amount must be positive")
    profile = _locked_profile(session, user_id)
    if _entry(session, f"grant:{idempotency_key}"):
        return False
    _append(
        session,
        profile,
        kind=LedgerKind.grant,
        amount=amount,
        key=f"grant:{idempotency_key}",
        purchase_id=purchase_id,
        expires_at=expires_at,
        note=note,
    )
    if expires_at is not None and (
        profile.credits_expiry_date is None or expires_at > profile.credits_expiry_date
    ):
        profile.credits_expiry_date = expires_at
    return True


def reserve(
    session: Session, *, user_id: uuid.UUID, reservation_id: str, amount: int, job_id: uuid.UUID | None = None
) -> bool:
    """Hold ``amount`` credits for a job run; return ``False`` if this reservation exists already.

    Raises:
        InsufficientCreditsError: the balance is below ``amount`` (nothing is written).
    """
    profile = _locked_profile(session, user_id)
    if _entry(session, f"reserve:{reservation_id}"):
        return False
    if profile.credits_remaining < amount:
        raise InsufficientCreditsError(amount, profile.credits_remaining)
    _append(
        session,
        profile,
        kind=LedgerKind.reserve,
        amount=-amount,
        key=f"reserve:{reservation_id}",
        job_id=job_id,
    )
    return True


def charge(
    session: Session, *, user_id: uuid.UUID, reservation_id: str, job_id: uuid.UUID | None = None
) -> bool:
    """Make a reservation final (a 0-amount entry); ``False`` if already charged.

    Raises:
        ReservationMissingError: no such reservation, or it was released.
    """
    profile = _locked_profile(session, user_id)
    if _entry(session, f"charge:{reservation_id}"):
        return False
    if not _entry(session, f"reserve:{reservation_id}") or _entry(session, f"release:{reservation_id}"):
        raise ReservationMissingError(reservation_id)
    _append(session, profile, kind=LedgerKind.charge, amount=0, key=f"charge:{reservation_id}", job_id=job_id)
    return True


def release(
    session: Session, *, user_id: uuid.UUID, reservation_id: str, job_id: uuid.UUID | None = None
) -> bool:
    """Give a reservation's credits back; ``False`` when there is nothing to release (no reservation,
    already released, or already charged)."""
    profile = _locked_profile(session, user_id)
    reserved = _entry(session, f"reserve:{reservation_id}")
    if (
        reserved is None
        or _entry(session, f"release:{reservation_id}")
        or _entry(session, f"charge:{reservation_id}")
    ):
        return False
    _append(
        session,
        profile,
        kind=LedgerKind.release,
        amount=-reserved.amount,
        key=f"release:{reservation_id}",
        job_id=job_id,
    )
    return True


def ledger_balance(session: Session, user_id: uuid.UUID) -> int:
    """Sum of the user's ledger amounts (credits); equals ``profiles.credits_remaining``."""
    total = session.execute(
        select(func.coalesce(func.sum(CreditLedgerEntry.amount), 0)).where(
            CreditLedgerEntry.user_id == user_id
        )
    ).scalar_one()
    return int(total)


def expire(session: Session, *, user_id: uuid.UUID, grant_key: str, amount: int) -> bool:
    """Book the expiry of what is left (``amount`` ≥ 0 credits) of the grant ``grant_key``.

    A 0-amount entry still records that the grant was handled. Returns ``False`` if already booked.
    """
    profile = _locked_profile(session, user_id)
    key = f"expire:{grant_key}"
    if _entry(session, key):
        return False
    _append(session, profile, kind=LedgerKind.expire, amount=-amount, key=key, note="crediti scaduti")
    return True

"""Buying credits: the purchase transactions behind ``api/routes/payments.py`` and the development
test checkout (``api/routes/dev_mail.py``). A purchase becomes ``completed`` only through
:func:`fotopronta.payments.complete_purchase` (row lock + ledger idempotency key ``purchase:{id}``);
resuming the jobs that waited for credits is :func:`api.job_control.resume_after_credit`, after the
commit."""

from __future__ import annotations

import uuid
from dataclasses import dataclass

from sqlalchemy import select
from sqlalchemy.orm import Session, selectinload

from api.errors import ApiError
from fotopronta.models import CreditPackage, CreditPurchase, Profile
from fotopronta.payments import (
    TEST_SESSION_PREFIX,
    UNPAID_ENDED,
    CheckoutSession,
    PurchaseResult,
    check_session_matches,
    checkout_expired,
    complete_purchase,
    end_unpaid_purchase,
    expire_stale_purchases,
    find_purchase,
)

CHECKOUT_TITLE = "Impossibile avviare il pagamento"
VERIFY_TITLE = "Errore Verifica Pagamento"


def purchasable_packages(session: Session) -> list[CreditPackage]:
    """Purchasable packages: active, price above 0, ascending by price (then name)."""
    return list(
        session.execute(
            select(CreditPackage)
            .where(CreditPackage.is_active.is_(True), CreditPackage.price_cents > 0)
            .order_by(CreditPackage.price_cents, CreditPackage.name)
        ).scalars()
    )


def recent_purchases(session: Session, user_id: uuid.UUID, recent: int) -> list[CreditPurchase]:
    """The user's pending purchases plus the last ``recent`` completed and the last ``recent`` ended
    unpaid, newest first, packages loaded; stale pending ones are marked ``expired`` first (commits
    then)."""
    if expire_stale_purchases(session, user_id):
        session.commit()
    base = (
        select(CreditPurchase)
        .options(selectinload(CreditPurchase.package))
        .where(CreditPurchase.user_id == user_id)
    )
    pending = session.execute(base.where(CreditPurchase.status == "pending")).scalars().all()
    newest = CreditPurchase.created_at.desc()
    completed = session.execute(
        base.where(CreditPurchase.status == "completed").order_by(newest).limit(recent)
    ).scalars()
    ended = session.execute(
        base.where(CreditPurchase.status.in_(UNPAID_ENDED)).order_by(newest).limit(recent)
    ).scalars()
    return sorted([*pending, *completed, *ended], key=lambda p: p.created_at, reverse=True)


def purchasable_package(session: Session, package_id: uuid.UUID) -> CreditPackage:
    """An active package priced above 0 (SPEC §6).

    Raises:
        ApiError: 404 'Pacchetto crediti non disponibile.'.
    """
    package = session.get(CreditPackage, package_id)
    if package is None or not package.is_active or package.price_cents <= 0:
        raise ApiError(404, "Pacchetto crediti non disponibile.", "package_not_found", CHECKOUT_TITLE)
    return package


def add_pending_purchase(
    session: Session, *, purchase_id: uuid.UUID, user_id: uuid.UUID, package: CreditPackage, session_id: str
) -> None:
    """Insert the ``pending`` purchase of a created checkout session (``stripe_payment_intent_id`` = the
    provider's session id; amount in cents); commits."""
    session.add(
        CreditPurchase(
            id=purchase_id,
            user_id=user_id,
            package_id=package.id,
            credits_purchased=package.credits,
            amount_paid_cents=package.price_cents,
            currency=package.currency,
            status="pending",
            stripe_payment_intent_id=session_id,
        )
    )
    session.commit()


def own_purchase(session: Session, session_id: str, user_id: uuid.UUID) -> tuple[CreditPurchase, int]:
    """The caller's purchase of checkout ``session_id`` and the caller's balance (credits).

    Raises:
        ApiError: 404 'Pagamento non trovato.' (no such purchase, or another user's).
    """
    purchase = find_purchase(session, session_id)
    if purchase is None or purchase.user_id != user_id:
        raise ApiError(404, "Pagamento non trovato.", "purchase_not_found", VERIFY_TITLE)
    return purchase, session.get_one(Profile, user_id).credits_remaining


def complete_by_session_id(
    session: Session, session_id: str, checkout: CheckoutSession | None
) -> PurchaseResult | None:
    """Lock the purchase of ``session_id`` and complete it (commits); ``None`` if no such purchase.

    Raises:
        PurchaseMismatchError: the provider's session does not match the purchase.
    """
    session.rollback()  # start a fresh transaction: the lock below sees the latest committed row
    purchase = find_purchase(session, session_id, lock=True)
    if purchase is None:
        return None
    result = complete_purchase(session, purchase=purchase, checkout=checkout)
    session.commit()
    return result


def expire_by_session(session: Session, checkout: CheckoutSession) -> bool | None:
    """Mark the pending purchase of an unpaid, expired provider session ``expired`` (commits);
    ``None`` if no such purchase, else whether it changed.

    Raises:
        PurchaseMismatchError: the session does not carry this purchase's id, user and amount.
    """
    session.rollback()
    purchase = find_purchase(session, checkout.id, lock=True)
    if purchase is None:
        return None
    check_session_matches(checkout, purchase)
    changed = end_unpaid_purchase(session, purchase, "expired")
    session.commit()
    return changed


# --- the development test checkout ----------------------------------------------------------------------
@dataclass(frozen=True)
class DevCheckoutView:
    """What the test checkout page shows: the package name, credits, price (cents, currency) and the
    purchase's ``status``."""

    package_name: str
    credits: int
    amount_cents: int
    currency: str
    status: str


def dev_checkout_view(session: Session, session_id: str) -> DevCheckoutView | None:
    """The test session's purchase (``None`` for an unknown or non-test session); a pending purchase
    past its checkout expiry is marked ``expired`` first (commits)."""
    purchase = find_purchase(session, session_id)
    if purchase is None or not session_id.startswith(TEST_SESSION_PREFIX):
        return None
    if purchase.status == "pending" and checkout_expired(purchase):
        end_unpaid_purchase(session, purchase, "expired")
        session.commit()
    package = session.get_one(CreditPackage, purchase.package_id)
    return DevCheckoutView(
        package_name=package.name,
        credits=purchase.credits_purchased,
        amount_cents=purchase.amount_paid_cents,
        currency=purchase.currency,
        status=purchase.status,
    )


def end_dev_session(session: Session, session_id: str, status: str) -> bool:
    """End a test session unpaid (``canceled`` or ``expired``; commits); ``False`` if there is no such
    session."""
    if dev_checkout_view(session, session_id) is None:
        return False
    purchase = find_purchase(session, session_id, lock=True)
    if purchase is not None:
        end_unpaid_purchase(session, purchase, status)
        session.commit()
    return True

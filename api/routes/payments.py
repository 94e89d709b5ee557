"""Buying credits (``/api/payments``, SPEC §7 create-credit-checkout / verify-payment, §8 Payments).

- ``POST /checkout {package_id}`` → ``{url, session_id}``: a provider checkout session and a pending
  ``credit_purchases`` row (``stripe_payment_intent_id`` = the session id).
- ``POST /verify {sessionId}`` → ``{success, creditsAdded, totalCredits, error}``.
- ``POST /webhook``: Stripe's signed ``checkout.session.completed`` (purchase completed) and
  ``checkout.session.expired`` (a pending purchase becomes ``expired``, 'Scaduto').

Verify and webhook both go through :func:`fotopronta.payments.complete_purchase` (row lock + ledger
idempotency key ``purchase:{id}``, via :mod:`api.services.payments`), so credits are added once
however often and in whatever order they arrive; jobs waiting for credits are resumed after the
commit (:func:`api.job_control.resume_after_credit`).
"""

from __future__ import annotations

import logging
import uuid
from typing import Any

from fastapi import APIRouter, Request
from fastapi.concurrency import run_in_threadpool
from pydantic import AliasChoices, BaseModel, ConfigDict, Field

from api.deps import OptionalTemporalDep, SellerUser, SessionDep
from api.errors import ApiError
from api.job_control import resume_after_credit
from api.services import payments as service
from api.services.payments import CHECKOUT_TITLE, VERIFY_TITLE
from api.text_rules import SingleLine
from fotopronta.links import public_base_url
from fotopronta.payments import (
    CheckoutRequest,
    PaymentProviderError,
    PurchaseMismatchError,
    WebhookSignatureError,
    get_payment_provider,
)
from fotopronta.settings import get_settings

router = APIRouter(prefix="/api/payments", tags=["payments"])
log = logging.getLogger("fotopronta.api.payments")

NOT_COMPLETED = "Pagamento non completato"
VERIFY_FAILED = "Verifica pagamento fallita"
COMPLETING_EVENTS = ("checkout.session.completed", "checkout.session.async_payment_succeeded")
EXPIRING_EVENT = "checkout.session.expired"
EXPIRED = "Sessione di pagamento scaduta"


class CheckoutIn(BaseModel):
    """``POST /api/payments/checkout``: the package to buy (``package_id`` or ``packageId``)."""

    package_id: uuid.UUID = Field(validation_alias=AliasChoices("package_id", "packageId"))


class CheckoutOut(BaseModel):
    """The hosted payment page to open, and its session id."""

    url: str
    session_id: str


class VerifyIn(BaseModel):
    """``POST /api/payments/verify``: the checkout session id (``sessionId`` or ``session_id``)."""

    session_id: SingleLine = Field(
        min_length=1, max_length=255, validation_alias=AliasChoices("sessionId", "session_id")
    )


class VerifyOut(BaseModel):
    """SPEC §3 payment verification response."""

    model_config = ConfigDict(populate_by_name=True)

    success: bool
    credits_added: int = Field(default=0, serialization_alias="creditsAdded")
    total_credits: int = Field(default=0, serialization_alias="totalCredits")
    error: str | None = None


@router.post("/checkout", response_model=CheckoutOut, operation_id="payments-checkout")
async def checkout(body: CheckoutIn, user: SellerUser, session: SessionDep) -> CheckoutOut:
    """Start a checkout for an active package priced above 0 (SPEC §6); success URL
    ``{public_url}/dashboard?success=true&session_id={CHECKOUT_SESSION_ID}``, cancel
    ``{public_url}/dashboard?canceled=true``.

    Errors (title 'Impossibile avviare il pagamento'): 404 package not purchasable; 502 provider
    failure; 502 'URL di pagamento non ricevuto'.
    """
    settings = get_settings()
    package = await run_in_threadpool(service.purchasable_package, session, body.package_id)
    base = public_base_url(settings)
    purchase_id = uuid.uuid4()
    request = CheckoutRequest(
        purchase_id=purchase_id,
        user_id=user.id,
        customer_email=user.email,
        package_id=package.id,
        package_name=package.name,
        credits=package.credits,
        amount_cents=package.price_cents,
        currency=package.currency,
        success_url=f"{base}/dashboard?success=true&session_id={{CHECKOUT_SESSION_ID}}",
        cancel_url=f"{base}/dashboard?canceled=true",
    )
    try:
        created = await get_payment_provider(settings).create_checkout_session(request)
    except PaymentProviderError as exc:
        log.error("checkout for %s failed: %s", user.id, exc)
        raise ApiError(502, CHECKOUT_TITLE, "checkout_failed", "Errore") from exc
    if not created.url:
        raise ApiError(502, "URL di pagamento non ricevuto", "checkout_url_missing", CHECKOUT_TITLE)

    await run_in_threadpool(
        lambda: service.add_pending_purchase(
            session, purchase_id=purchase_id, user_id=user.id, package=package, session_id=created.id
        )
    )
    return CheckoutOut(url=created.url, session_id=created.id)


@router.post(
    "/verify", response_model=VerifyOut, response_model_by_alias=True, operation_id="payments-verify"
)
async def verify(
    body: VerifyIn, user: SellerUser, session: SessionDep, temporal: OptionalTemporalDep
) -> VerifyOut:
    """Check a checkout session of the caller and, if paid, add its credits (once).

    Returns ``success: false, error: 'Pagamento non completato'`` while unpaid. Errors (title 'Errore
    Verifica Pagamento'): 404 not the caller's session; 502 'Verifica pagamento fallita' when the
    provider cannot be asked.
    """
    purchase, balance = await run_in_threadpool(service.own_purchase, session, body.session_id, user.id)
    if purchase.status == "completed":
        return VerifyOut(success=True, credits_added=purchase.credits_purchased, total_credits=balance)
    try:
        checkout_session = await get_payment_provider().retrieve_checkout_session(body.session_id)
    except PaymentProviderError as exc:
        log.error("verify %s failed: %s", body.session_id, exc)
        raise ApiError(502, VERIFY_FAILED, "verify_failed", VERIFY_TITLE) from exc
    if not checkout_session.paid:
        if checkout_session.status == "expired":
            try:
                await run_in_threadpool(service.expire_by_session, session, checkout_session)
            except PurchaseMismatchError as exc:
                log.error("verify %s: %s", body.session_id, exc)
            return VerifyOut(success=False, total_credits=balance, error=EXPIRED)
        return VerifyOut(success=False, total_credits=balance, error=NOT_COMPLETED)
    try:
        result = await run_in_threadpool(
            service.complete_by_session_id, session, body.session_id, checkout_session
        )
    except PurchaseMismatchError as exc:
        log.error("verify %s: %s", body.session_id, exc)
        raise ApiError(409, VERIFY_FAILED, "purchase_mismatch", VERIFY_TITLE) from exc
    assert result is not None
    if result.newly_completed:
        await resume_after_credit(temporal, session, user.id)
    return VerifyOut(success=True, credits_added=result.credits_added, total_credits=result.total_credits)


@router.post("/webhook", operation_id="payments-webhook")
async def webhook(request: Request, session: SessionDep, temporal: OptionalTemporalDep) -> dict[str, Any]:
    """Stripe webhook (public, authenticated by the ``Stripe-Signature`` header): a paid
    ``checkout.session.completed`` completes the purchase once; an unpaid ``checkout.session.expired``
    marks a pending purchase ``expired``; other events are acknowledged.

    Errors: 400 'Firma del webhook non valida.'; 400 when the session does not match its purchase.
    """
    payload = await request.body()
    try:
        event = get_payment_provider().parse_webhook(payload, request.headers.get("stripe-signature"))
    except WebhookSignatureError as exc:
        log.warning("webhook refused: %s", exc)
        raise ApiError(400, "Firma del webhook non valida.", "invalid_signature") from exc
    if event.type == EXPIRING_EVENT and event.session is not None and not event.session.paid:
        try:
            changed = await run_in_threadpool(service.expire_by_session, session, event.session)
        except PurchaseMismatchError as exc:
            log.error("webhook %s: %s", event.id, exc)
            raise ApiError(400, VERIFY_FAILED, "purchase_mismatch") from exc
        return {"received": True, "handled": bool(changed)}
    if event.type not in COMPLETING_EVENTS or event.session is None or not event.session.paid:
        return {"received": True, "handled": False}
    try:
        result = await run_in_threadpool(
            service.complete_by_session_id, session, event.session.id, event.session
        )
    except PurchaseMismatchError as exc:
        log.error("webhook %s: %s", event.id, exc)
        raise ApiError(400, VERIFY_FAILED, "purchase_mismatch") from exc
    if result is None:
        log.warning("webhook %s: no purchase for session %s", event.id, event.session.id)
        return {"received": True, "handled": False}
    if result.newly_completed:
        await resume_after_credit(temporal, session, result.user_id)
    return {"received": True, "handled": True}

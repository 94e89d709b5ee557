"""Payment providers behind one interface, and completing a credit purchase exactly once.

Two implementations of :class:`PaymentProvider` (setting ``FOTOPRONTA_PAYMENT_PROVIDER``; default
``stripe`` when ``FOTOPRONTA_STRIPE_SECRET_KEY`` is set, else ``test``):

- :class:`StripeProvider`: Stripe Checkout through the official ``stripe`` SDK (``StripeClient`` with a
  configurable API base, ``FOTOPRONTA_STRIPE_API_BASE``, so tests can point it at a local server) and
  signed webhooks (``stripe.Webhook.construct_event`` with ``FOTOPRONTA_STRIPE_WEBHOOK_SECRET``).
- :class:`TestCheckoutProvider`: development only; the API itself serves a checkout page marked
  'MODALITÀ TEST — nessun addebito reale' at ``/dev/checkout/{session_id}`` whose 'Paga' button
  completes the purchase the way Stripe's webhook would. No network needed.

:func:`complete_purchase` is the one place a purchase becomes ``completed`` (webhook, verify, test
page): it locks the purchase row (``SELECT … FOR UPDATE``) and grants the credits through the ledger
with idempotency key ``purchase:{purchase_id}``, so concurrent or repeated deliveries add them once
(SPEC §4 Purchase, §9: valid 365 days).

A purchase is ``pending`` until paid, then ``completed``; an unpaid checkout ends as ``canceled``
(the test page's 'Annulla') or ``expired`` (Stripe's ``checkout.session.expired`` webhook, or
:func:`expire_stale_purchases` once ``checkout_expiry_s`` plus a grace period has passed). Stripe
sessions are created with ``expires_at`` = now + ``checkout_expiry_s``. A paid session still completes
an expired purchase (the money was taken), so the order of deliveries never loses credits.
"""

from __future__ import annotations

import asyncio
import time
import uuid
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any, Protocol

import stripe
from sqlalchemy import select, update
from sqlalchemy.orm import Session

from fotopronta import ledger
from fotopronta.models import CreditPackage, CreditPurchase, Profile
from fotopronta.settings import Settings, get_settings

TEST_SESSION_PREFIX = "cs_test_local_"
UNPAID_ENDED = ("expired", "canceled")
"""Final states of a purchase whose checkout ended unpaid ('Scaduto', 'Annullato')."""
EXPIRY_GRACE_S = 300
"""After a checkout's expiry, how long a pending purchase waits for a late webhook before it is
marked expired locally."""


class PaymentProviderError(Exception):
    """The provider could not be reached or refused the request (message in English, for logs)."""


class WebhookSignatureError(Exception):
    """A webhook's payload or signature is not valid."""


class PurchaseMismatchError(Exception):
    """The provider's session does not belong to the purchase it names (metadata or amount differ)."""


@dataclass(frozen=True)
class CheckoutSession:
    """What we need of a provider's checkout session.

    ``status``: ``open``, ``complete`` or ``expired``; ``payment_status``: ``paid``, ``unpaid`` or
    ``no_payment_required``; ``amount_total`` in cents; ``metadata`` holds ``purchase_id``,
    ``user_id`` and ``package_id``.
    """

    id: str
    url: str | None
    status: str
    payment_status: str
    amount_total: int | None = None
    currency: str | None = None
    metadata: dict[str, str] = field(default_factory=dict)

    @property
    def paid(self) -> bool:
        """Whether the customer has paid (Stripe: ``payment_status == 'paid'``)."""
        return self.payment_status == "paid"


@dataclass(frozen=True)
class WebhookEvent:
    """A verified webhook event: its ``type`` and, for ``checkout.session.*``, the session."""

    id: str
    type: str
    session: CheckoutSession | None


@dataclass(frozen=True)
class CheckoutRequest:
    """What a checkout session is created for (amount in cents; URLs absolute)."""

    purchase_id: uuid.UUID
    user_id: uuid.UUID
    customer_email: str
    package_id: uuid.UUID
    package_name: str
    credits: int
    amount_cents: int
    currency: str
    success_url: str
    cancel_url: str


class PaymentProvider(Protocol):
    """A checkout provider (Stripe, or the local test page)."""

    name: str

    async def create_checkout_session(self, request: CheckoutRequest) -> CheckoutSession:
        """Create a hosted checkout session. Raises: PaymentProviderError."""
        ...

    async def retrieve_checkout_session(self, session_id: str) -> CheckoutSession:
        """Fetch a session's current state. Raises: PaymentProviderError."""
        ...

    def parse_webhook(self, payload: bytes, signature: str | None) -> WebhookEvent:
        """Verify and parse a webhook delivery. Raises: WebhookSignatureError."""
        ...


def _to_session(obj: Any) -> CheckoutSession:
    """Map a Stripe ``checkout.session`` object (SDK object or plain dict) to :class:`CheckoutSession`."""
    data: dict[str, Any] = obj.to_dict() if hasattr(obj, "to_dict") else dict(obj)
    get = data.get
    metadata = get("metadata") or {}
    return CheckoutSession(
        id=str(get("id")),
        url=get("url"),
        status=str(get("status") or "open"),
        payment_status=str(get("payment_status") or "unpaid"),
        amount_total=get("amount_total"),
        currency=get("currency"),
        metadata={str(k): str(v) for k, v in dict(metadata).items()},
    )


class StripeProvider:
    """Stripe Checkout (``mode=payment``, one line item with ``price_data``) via ``stripe.StripeClient``.

    SDK calls are synchronous HTTP (its default client) run in a thread, so no async HTTP library is
    required; ``api_base`` replaces ``https://api.stripe.com`` (tests use a local server).
    """

    name = "stripe"

    def __init__(self, *, secret_key: str, webhook_secret: str | None, api_base: str) -> None:
        self._client = stripe.StripeClient(
            secret_key, base_addresses={"api": api_base}, max_network_retries=1
        )
        self._webhook_secret = webhook_secret

    async def create_checkout_session(self, request: CheckoutRequest) -> CheckoutSession:
        """``POST /v1/checkout/sessions``; metadata carries purchase, user and package ids.

        Raises:
            PaymentProviderError: Stripe refused or was unreachable.
        """
        metadata = {
            "purchase_id": str(request.purchase_id),
            "user_id": str(request.user_id),
            "package_id": str(request.package_id),
        }
        params: dict[str, Any] = {
            "mode": "payment",
            "success_url": request.success_url,
            "cancel_url": request.cancel_url,
            "customer_email": request.customer_email,
            "client_reference_id": str(request.purchase_id),
            "metadata": metadata,
            "payment_intent_data": {"metadata": metadata},
            "expires_at": int(time.time()) + get_settings().checkout_expiry_s,
            "line_items": [
                {
                    "quantity": 1,
                    "price_data": {
                        "currency": request.currency.lower(),
                        "unit_amount": request.amount_cents,
                        "product_data": {
                            "name": f"FotoPronta {request.package_name} — {request.credits} crediti"
                        },
                    },
                }
            ],
        }
        try:
            created = await asyncio.to_thread(
                self._client.v1.checkout.sessions.create,
                params,  # type: ignore[arg-type]
                {"idempotency_key": f"checkout-{request.purchase_id}"},
            )
        except stripe.StripeError as exc:
            raise PaymentProviderError(f"stripe checkout create failed: {exc}") from exc
        return _to_session(created)

    async def retrieve_checkout_session(self, session_id: str) -> CheckoutSession:
        """``GET /v1/checkout/sessions/{id}``. Raises: PaymentProviderError."""
        try:
            found = await asyncio.to_thread(self._client.v1.checkout.sessions.retrieve, session_id)
        except stripe.StripeError as exc:
            raise PaymentProviderError(f"stripe checkout retrieve failed: {exc}") from exc
        return _to_session(found)

    def parse_webhook(self, payload: bytes, signature: str | None) -> WebhookEvent:
        """Check the ``Stripe-Signature`` header (5-minute tolerance) and parse the event.

        Raises:
            WebhookSignatureError: no secret configured, missing or wrong signature, bad JSON.
        """
        if not self._webhook_secret or not signature:
            raise WebhookSignatureError("missing webhook secret or signature")
        try:
            event = stripe.Webhook.construct_event(payload, signature, self._webhook_secret)
        except (stripe.SignatureVerificationError, ValueError) as exc:
            raise WebhookSignatureError(str(exc)) from exc
        obj = event.data.object if event.type.startswith("checkout.session.") else None
        return WebhookEvent(
            id=event.id, type=event.type, session=_to_session(obj) if obj is not None else None
        )


class TestCheckoutProvider:
    """Development checkout: sessions are the purchase rows themselves (id ``cs_test_local_…``), paid
    once the test page's 'Paga' button ran :func:`complete_purchase`. Never used in production."""

    name = "test"

    def __init__(self, public_url: str) -> None:
        self._public_url = public_url.rstrip("/")

    async def create_checkout_session(self, request: CheckoutRequest) -> CheckoutSession:
        """A new local session whose URL is the API's ``/dev/checkout/{id}`` page."""
        session_id = TEST_SESSION_PREFIX + uuid.uuid4().hex
        return CheckoutSession(
            id=session_id,
            url=f"{self._public_url}/dev/checkout/{session_id}",
            status="open",
            payment_status="unpaid",
            amount_total=request.amount_cents,
            currency=request.currency.lower(),
            metadata={
                "purchase_id": str(request.purchase_id),
                "user_id": str(request.user_id),
                "package_id": str(request.package_id),
            },
        )

    async def retrieve_checkout_session(self, session_id: str) -> CheckoutSession:
        """The session's state from its purchase row (paid iff completed). Raises: PaymentProviderError."""
        from fotopronta.db import session_scope

        def read() -> CheckoutSession:
            with session_scope() as session:
                purchase = find_purchase(session, session_id)
                if purchase is None:
                    raise PaymentProviderError(f"unknown test session {session_id}")
                done = purchase.status == "completed"
                ended = purchase.status in UNPAID_ENDED or checkout_expired(purchase)
                return CheckoutSession(
                    id=session_id,
                    url=None,
                    status="complete" if done else "expired" if ended else "open",
                    payment_status="paid" if done else "unpaid",
                    amount_total=purchase.amount_paid_cents,
                    metadata={
                        "purchase_id": str(purchase.id),
                        "user_id": str(purchase.user_id),
                        "package_id": str(purchase.package_id),
                    },
                )

        return await asyncio.to_thread(read)

    def parse_webhook(self, payload: bytes, signature: str | None) -> WebhookEvent:  # noqa: ARG002
        """The test provider sends no webhooks. Raises: WebhookSignatureError always."""
        raise WebhookSignatureError("the test payment provider has no webhooks")


def get_payment_provider(settings: Settings | None = None) -> PaymentProvider:
    """The configured provider (see module docstring).

    Raises:
        RuntimeError: ``stripe`` chosen without ``FOTOPRONTA_STRIPE_SECRET_KEY``.
    """
    settings = settings or get_settings()
    if settings.effective_payment_provider == "stripe":
        if not settings.stripe_secret_key:
            raise RuntimeError("FOTOPRONTA_STRIPE_SECRET_KEY is required for the stripe payment provider")
        return StripeProvider(
            secret_key=settings.stripe_secret_key,
            webhook_secret=settings.stripe_webhook_secret,
            api_base=settings.stripe_api_base,
        )
    from fotopronta.links import public_base_url

    return TestCheckoutProvider(public_base_url(settings))


def find_purchase(session: Session, session_id: str, *, lock: bool = False) -> CreditPurchase | None:
    """The purchase whose ``stripe_payment_intent_id`` is checkout session ``session_id``."""
    query = select(CreditPurchase).where(CreditPurchase.stripe_payment_intent_id == session_id)
    if lock:
        query = query.with_for_update().execution_options(populate_existing=True)
    return session.execute(query).scalar_one_or_none()


def check_session_matches(checkout: CheckoutSession, purchase: CreditPurchase) -> None:
    """Refuse a provider session that is not provably the one created for ``purchase``.

    Every session we create carries ``metadata.purchase_id``, ``metadata.user_id`` and the package
    price (:meth:`StripeProvider.create_checkout_session`), so a session *without* them (created by
    someone else on the same Stripe account, or by another integration) never completes a purchase:
    ``purchase_id`` must be present and equal, ``user_id`` must be equal when present, and
    ``amount_total`` (cents) must be present and equal to ``amount_paid_cents``; the currency, when
    given, must be the purchase's.

    Raises:
        PurchaseMismatchError: any of the above does not hold (message in English, for logs).
    """
    meta = checkout.metadata
    if meta.get("purchase_id") != str(purchase.id):
        raise PurchaseMismatchError(
            f"session {checkout.id} names purchase {meta.get('purchase_id')!r}, not {purchase.id}"
        )
    if "user_id" in meta and meta["user_id"] != str(purchase.user_id):
        raise PurchaseMismatchError(f"session {checkout.id} names user {meta['user_id']!r}")
    if checkout.amount_total is None or checkout.amount_total != purchase.amount_paid_cents:
        raise PurchaseMismatchError(
            f"session {checkout.id} amount {checkout.amount_total} != {purchase.amount_paid_cents}"
        )
    if checkout.currency and purchase.currency and checkout.currency.lower() != purchase.currency.lower():
        raise PurchaseMismatchError(
            f"session {checkout.id} currency {checkout.currency} != {purchase.currency}"
        )


@dataclass(frozen=True)
class PurchaseResult:
    """Outcome of :func:`complete_purchase`: ``newly_completed`` is false when it was already done."""

    purchase_id: uuid.UUID
    user_id: uuid.UUID
    credits_added: int
    total_credits: int
    newly_completed: bool


def complete_purchase(
    session: Session,
    *,
    purchase: CreditPurchase,
    checkout: CheckoutSession | None,
    now: datetime | None = None,
) -> PurchaseResult:
    """Mark ``purchase`` completed and grant its credits (valid ``credit_validity_days``), exactly once.

    ``purchase`` must have been read with ``lock=True`` in this transaction (:func:`find_purchase`).
    ``checkout`` is the provider's paid session, checked against the purchase (metadata and amount);
    ``None`` only for the test provider's own page. The caller commits.

    Raises:
        PurchaseMismatchError: the session does not carry this purchase's id, user and amount
            (:func:`check_session_matches`).
    """
    profile = session.get_one(Profile, purchase.user_id)
    if purchase.status == "completed":
        return PurchaseResult(
            purchase.id,
            purchase.user_id,
            purchase.credits_purchased,
            profile.credits_remaining,
            newly_completed=False,
        )
    if checkout is not None:
        check_session_matches(checkout, purchase)
    now = now or datetime.now(UTC)
    expires_at = now + timedelta(days=get_settings().credit_validity_days)
    package = session.get(CreditPackage, purchase.package_id)
    ledger.grant(
        session,
        user_id=purchase.user_id,
        amount=purchase.credits_purchased,
        idempotency_key=f"purchase:{purchase.id}",
        expires_at=expires_at,
        purchase_id=purchase.id,
        note=f"acquisto pacchetto {package.name if package else purchase.package_id}",
    )
    purchase.status = "completed"
    purchase.credits_expiry_date = expires_at
    session.flush()
    return PurchaseResult(
        purchase.id,
        purchase.user_id,
        purchase.credits_purchased,
        profile.credits_remaining,
        newly_completed=True,
    )


def checkout_expired(purchase: CreditPurchase, now: datetime | None = None) -> bool:
    """Whether ``purchase``'s checkout is past ``checkout_expiry_s`` (whatever its status)."""
    now = now or datetime.now(UTC)
    return purchase.created_at + timedelta(seconds=get_settings().checkout_expiry_s) <= now


def end_unpaid_purchase(session: Session, purchase: CreditPurchase, status: str) -> bool:
    """Mark a still ``pending`` purchase ``expired`` or ``canceled`` (the caller commits); a completed
    or already ended one is left alone. Returns whether it changed."""
    if status not in UNPAID_ENDED:
        raise ValueError(f"not an unpaid end state: {status}")
    if purchase.status != "pending":
        return False
    purchase.status = status
    session.flush()
    return True


def expire_stale_purchases(session: Session, user_id: uuid.UUID, now: datetime | None = None) -> int:
    """Mark the user's pending purchases older than ``checkout_expiry_s`` + :data:`EXPIRY_GRACE_S`
    ``expired`` (the caller commits); returns how many."""
    now = now or datetime.now(UTC)
    cutoff = now - timedelta(seconds=get_settings().checkout_expiry_s + EXPIRY_GRACE_S)
    result = session.execute(
        update(CreditPurchase)
        .where(
            CreditPurchase.user_id == user_id,
            CreditPurchase.status == "pending",
            CreditPurchase.created_at < cutoff,
        )
        .values(status="expired")
    )
    return int(getattr(result, "rowcount", 0) or 0)

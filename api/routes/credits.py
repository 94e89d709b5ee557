"""Credit packages, the caller's purchases and orders (SPEC §2 /credits, /orders; §7 Tables).

- ``GET /api/credit-packages``: active packages priced above 0, cheapest first (SPEC §6).
- ``GET /api/credits/purchases``: the caller's pending purchases, the last 10 completed ones and the
  last 10 whose checkout ended unpaid (``expired``, ``canceled``), newest first; pending ones past
  their checkout's expiry are marked ``expired`` first (``fotopronta.payments.expire_stale_purchases``),
  each with its package (``package`` and, as the original client named it, ``credit_packages``).
- ``GET /api/orders``: the caller's orders, newest first (``total_amount`` in credits).

Every query is filtered by the caller's id.
"""

from __future__ import annotations

import uuid
from datetime import datetime

from fastapi import APIRouter
from pydantic import BaseModel, ConfigDict

from api.deps import SellerUser, SessionDep
from api.schemas import OrderOutcome
from api.services import orders, payments
from api.services.queries import begin_snapshot
from fotopronta.models import CreditPackage

router = APIRouter(prefix="/api", tags=["credits"])

RECENT_COMPLETED = 10
"""Completed purchases returned (SPEC §9: query limit 10, the page shows 5)."""


class PackagePublic(BaseModel):
    """A purchasable ``credit_packages`` row (price in cents)."""

    model_config = ConfigDict(from_attributes=True)

    id: uuid.UUID
    name: str
    credits: int
    price_cents: int
    currency: str


class PackageSummary(BaseModel):
    """The package fields shown with a purchase."""

    model_config = ConfigDict(from_attributes=True)

    name: str
    credits: int
    price_cents: int


class PurchasePublic(BaseModel):
    """A ``credit_purchases`` row; ``stripe_payment_intent_id`` is the checkout session id to verify."""

    model_config = ConfigDict(from_attributes=True)

    id: uuid.UUID
    package_id: uuid.UUID
    credits_purchased: int
    amount_paid_cents: int
    currency: str
    status: str
    created_at: datetime
    credits_expiry_date: datetime | None
    stripe_payment_intent_id: str | None
    package: PackageSummary
    credit_packages: PackageSummary


class OrderPublic(OrderOutcome):
    """SPEC §3 ``orders``: ``total_amount`` is the credits the batch was to cost (``JOB_COSTS`` ×
    photos), not money; the :class:`~api.schemas.OrderOutcome` fields say what each photo became and
    what the batch really cost."""

    model_config = ConfigDict(from_attributes=True)

    id: uuid.UUID
    package_type: str
    total_photos: int
    processed_photos: int
    status: str
    created_at: datetime
    total_amount: int


@router.get("/credit-packages", response_model=list[PackagePublic], operation_id="credit-packages-list")
def list_packages(_user: SellerUser, session: SessionDep) -> list[CreditPackage]:
    """Purchasable packages: active, price above 0, ascending by price."""
    return payments.purchasable_packages(session)


@router.get("/credits/purchases", response_model=list[PurchasePublic], operation_id="credits-purchases")
def list_purchases(user: SellerUser, session: SessionDep) -> list[PurchasePublic]:
    """The caller's pending purchases plus the last 10 completed and the last 10 ended unpaid, newest
    first (stale pending ones are marked expired first)."""
    rows = payments.recent_purchases(session, user.id, RECENT_COMPLETED)
    out = []
    for p in rows:
        summary = PackageSummary.model_validate(p.package)
        out.append(
            PurchasePublic.model_validate(
                {
                    **{
                        k: getattr(p, k)
                        for k in (
                            "id",
                            "package_id",
                            "credits_purchased",
                            "amount_paid_cents",
                            "currency",
                            "status",
                            "created_at",
                            "credits_expiry_date",
                            "stripe_payment_intent_id",
                        )
                    },
                    "package": summary,
                    "credit_packages": summary,
                }
            )
        )
    return out


@router.get("/orders", response_model=list[OrderPublic], operation_id="orders-list")
def list_orders(user: SellerUser, session: SessionDep) -> list[OrderPublic]:
    """The caller's orders, newest first, each with its photos' outcomes and the credits it really
    cost (one snapshot, so the counters agree)."""
    begin_snapshot(session)
    rows = orders.user_orders(session, user.id)
    outcomes = orders.order_outcomes(session, [o.id for o in rows])
    return [
        OrderPublic.model_validate(
            {
                **{k: getattr(o, k) for k in OrderPublic.model_fields if k not in OrderOutcome.model_fields},
                **outcomes[o.id].model_dump(),
            }
        )
        for o in rows
    ]

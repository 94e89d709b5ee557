"""A seller's webhook endpoints in the web app ('Sviluppatori'): the same endpoints, delivery log,
'Reinvia' and secret rotation as ``/v1/webhook-endpoints`` (:mod:`api.public.webhooks`), for the
signed-in seller (clients and admins) with the web session's token; live mode. Another account's
endpoint or delivery → 404."""

from __future__ import annotations

import uuid
from typing import Annotated

from fastapi import APIRouter, Query, status
from fastapi.concurrency import run_in_threadpool

from api.deps import SellerUser, SessionDep, TemporalDep
from api.public.schemas import (
    WebhookDeliveryList,
    WebhookDeliveryOut,
    WebhookEndpointCreated,
    WebhookEndpointIn,
    WebhookEndpointOut,
)
from api.public.webhooks import check_webhook_url, resend
from api.services import webhooks as service
from api.services.api_keys import KeyCaller
from fotopronta.models import Profile

router = APIRouter(prefix="/api", tags=["webhooks"])


def _owner(user: Profile) -> KeyCaller:
    """The seller as the webhook services see a caller: their live-mode endpoints."""
    return KeyCaller(
        key_id=uuid.UUID(int=0),
        user_id=user.id,
        mode="live",
        scopes=frozenset({"webhooks:manage"}),
        monthly_credit_cap=None,
    )


@router.get("/webhook-endpoints", response_model=list[WebhookEndpointOut], operation_id="webhooks-list")
def list_endpoints(user: SellerUser, session: SessionDep) -> list[WebhookEndpointOut]:
    """The seller's endpoints, newest first (never their secrets)."""
    return service.list_endpoints(session, _owner(user)).data


@router.post(
    "/webhook-endpoints",
    status_code=status.HTTP_201_CREATED,
    response_model=WebhookEndpointCreated,
    operation_id="webhooks-create",
)
async def create_endpoint(
    body: WebhookEndpointIn, user: SellerUser, session: SessionDep
) -> WebhookEndpointCreated:
    """Register an endpoint; the answer holds its signing secret (``whsec_…``), this once only. The URL
    is checked as ``image_url`` (400 ``webhook_url_*``)."""
    await check_webhook_url(body.url)

    def create() -> WebhookEndpointCreated:
        created = service.create_endpoint(session, _owner(user), body)
        session.commit()
        return created

    return await run_in_threadpool(create)


@router.delete(
    "/webhook-endpoints/{endpoint_id}", status_code=status.HTTP_204_NO_CONTENT, operation_id="webhooks-delete"
)
def delete_endpoint(endpoint_id: uuid.UUID, user: SellerUser, session: SessionDep) -> None:
    """Delete an endpoint (pending retries to it stop). 404 for one that is not the seller's."""
    service.delete_endpoint(session, _owner(user), endpoint_id)
    session.commit()


@router.post(
    "/webhook-endpoints/{endpoint_id}/rotate-secret",
    response_model=WebhookEndpointCreated,
    operation_id="webhooks-rotate-secret",
)
def rotate_secret(endpoint_id: uuid.UUID, user: SellerUser, session: SessionDep) -> WebhookEndpointCreated:
    """A new signing secret, shown this once; the old one keeps signing beside it for 24 hours."""
    rotated = service.rotate_secret(session, _owner(user), endpoint_id)
    session.commit()
    return rotated


@router.get(
    "/webhook-endpoints/{endpoint_id}/deliveries",
    response_model=WebhookDeliveryList,
    operation_id="webhooks-deliveries",
)
def list_deliveries(
    endpoint_id: uuid.UUID,
    user: SellerUser,
    session: SessionDep,
    limit: Annotated[int, Query(ge=1, le=100)] = 20,
    cursor: Annotated[str | None, Query(max_length=500)] = None,
) -> WebhookDeliveryList:
    """The endpoint's delivery log, newest first, with every attempt."""
    return service.list_deliveries(session, _owner(user), endpoint_id, limit=limit, cursor=cursor)


@router.post(
    "/webhook-deliveries/{delivery_id}/retry",
    status_code=status.HTTP_202_ACCEPTED,
    response_model=WebhookDeliveryOut,
    operation_id="webhooks-retry",
)
async def retry_delivery(
    delivery_id: uuid.UUID, user: SellerUser, session: SessionDep, temporal: TemporalDep
) -> WebhookDeliveryOut:
    """'Reinvia': attempt the delivery now (or once more when it has ended)."""
    view = await run_in_threadpool(service.owned_delivery, session, _owner(user), delivery_id)
    await resend(temporal, delivery_id)
    return view

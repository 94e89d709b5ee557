"""``/v1`` routes of webhooks: endpoints (``/v1/webhook-endpoints``), their delivery log and 'Reinvia'
(``/v1/webhook-deliveries/{id}/retry``), for keys with the ``webhooks:manage`` scope. See
:mod:`fotopronta.webhooks` for the signature and :mod:`workflows.webhook_delivery` for the retries."""

from __future__ import annotations

import uuid
from typing import Annotated

from fastapi import APIRouter, Query, Response, status
from fastapi.concurrency import run_in_threadpool
from temporalio.client import Client, WorkflowExecutionStatus
from temporalio.service import RPCError

from activities.contracts import (
    SIGNAL_WEBHOOK_RETRY_NOW,
    TASK_QUEUE_JOBS,
    WebhookDeliveryInput,
    workflow_id_for_delivery,
)
from api.deps import TemporalDep
from api.errors import ApiError
from api.public.auth import require_scope
from api.public.jobs import ERRORS
from api.public.schemas import (
    WebhookDeliveryList,
    WebhookDeliveryOut,
    WebhookEndpointCreated,
    WebhookEndpointIn,
    WebhookEndpointList,
    WebhookEndpointOut,
)
from api.services import webhooks as service
from api.services.api_keys import KeyCaller
from fotopronta.db import session_factory
from fotopronta.safe_fetch import FetchError, check_public_url
from workflows.starter import TEMPORAL_UNAVAILABLE
from workflows.webhook_delivery import WebhookDeliveryWorkflow

router = APIRouter(tags=["webhooks"])
HooksCaller = Annotated[KeyCaller, require_scope("webhooks:manage")]


async def check_webhook_url(url: str) -> None:
    """A webhook URL is checked as ``image_url`` is (:func:`fotopronta.safe_fetch.check_public_url`):
    public http(s) only, loopback only under ``fetch_allow_loopback`` (``make dev``).

    Raises:
        ApiError: 400 ``webhook_url_invalid``, ``webhook_url_forbidden``, ``webhook_url_unresolvable``.
    """
    try:
        await check_public_url(url, prefix="webhook_url")
    except FetchError as exc:
        raise ApiError(400, exc.message, exc.code, "URL del webhook non valido") from exc


@router.post(
    "/webhook-endpoints",
    status_code=status.HTTP_201_CREATED,
    response_model=WebhookEndpointCreated,
    operation_id="webhook-endpoints-create",
    responses=ERRORS,
)
async def create_endpoint(body: WebhookEndpointIn, caller: HooksCaller) -> WebhookEndpointCreated:
    """Register an endpoint for the chosen events. The answer carries the signing secret
    (`whsec_…`), shown only this once: every delivery is signed with it by the Standard Webhooks
    specification (`webhook-id`, `webhook-timestamp`, `webhook-signature`)."""
    await check_webhook_url(body.url)

    def create() -> WebhookEndpointCreated:
        with session_factory().begin() as session:
            return service.create_endpoint(session, caller, body)

    return await run_in_threadpool(create)


@router.get(
    "/webhook-endpoints",
    response_model=WebhookEndpointList,
    operation_id="webhook-endpoints-list",
    responses=ERRORS,
)
def list_endpoints(caller: HooksCaller) -> WebhookEndpointList:
    """The account's endpoints, newest first (never their secrets)."""
    with session_factory()() as session:
        return service.list_endpoints(session, caller)


@router.get(
    "/webhook-endpoints/{endpoint_id}",
    response_model=WebhookEndpointOut,
    operation_id="webhook-endpoints-read",
    responses=ERRORS,
)
def read_endpoint(endpoint_id: uuid.UUID, caller: HooksCaller) -> WebhookEndpointOut:
    """One endpoint; `status` `disabled` with its `disabled_reason` when it receives no more events."""
    with session_factory()() as session:
        return service.endpoint_out(service.owned_endpoint(session, caller, endpoint_id))


@router.delete(
    "/webhook-endpoints/{endpoint_id}",
    status_code=status.HTTP_204_NO_CONTENT,
    operation_id="webhook-endpoints-delete",
    responses=ERRORS,
)
def delete_endpoint(endpoint_id: uuid.UUID, caller: HooksCaller) -> Response:
    """Delete an endpoint: it receives no new event, and deliveries still waiting for a retry stop."""
    with session_factory().begin() as session:
        service.delete_endpoint(session, caller, endpoint_id)
    return Response(status_code=204)


@router.post(
    "/webhook-endpoints/{endpoint_id}/rotate-secret",
    response_model=WebhookEndpointCreated,
    operation_id="webhook-endpoints-rotate-secret",
    responses=ERRORS,
)
def rotate_secret(endpoint_id: uuid.UUID, caller: HooksCaller) -> WebhookEndpointCreated:
    """A new signing secret, shown only this once. For 24 hours every delivery carries two `v1,`
    signatures in `webhook-signature`, one with the new secret and one with the old, so the receiver
    can switch to the new secret without missing an event."""
    with session_factory().begin() as session:
        return service.rotate_secret(session, caller, endpoint_id)


@router.get(
    "/webhook-endpoints/{endpoint_id}/deliveries",
    response_model=WebhookDeliveryList,
    operation_id="webhook-deliveries-list",
    responses=ERRORS,
)
def list_deliveries(
    endpoint_id: uuid.UUID,
    caller: HooksCaller,
    limit: Annotated[int, Query(ge=1, le=100)] = 20,
    cursor: Annotated[str | None, Query(max_length=500)] = None,
) -> WebhookDeliveryList:
    """The endpoint's delivery log, newest first: event, status, each attempt (status code, response
    time, error) and the next retry."""
    with session_factory()() as session:
        return service.list_deliveries(session, caller, endpoint_id, limit=limit, cursor=cursor)


@router.post(
    "/webhook-deliveries/{delivery_id}/retry",
    status_code=status.HTTP_202_ACCEPTED,
    response_model=WebhookDeliveryOut,
    operation_id="webhook-deliveries-retry",
    responses=ERRORS,
)
async def retry_delivery(
    delivery_id: uuid.UUID, caller: HooksCaller, temporal: TemporalDep
) -> WebhookDeliveryOut:
    """Send a delivery again now ('Reinvia'): a delivery still waiting for its next retry is attempted
    at once; one that has ended (delivered or failed) gets one more attempt. Same `webhook-id`, so the
    receiver can tell it is the same event."""

    def read() -> WebhookDeliveryOut:
        with session_factory()() as session:
            return service.owned_delivery(session, caller, delivery_id)

    view = await run_in_threadpool(read)
    await resend(temporal, delivery_id)
    return view


async def resend(temporal: Client, delivery_id: uuid.UUID) -> None:
    """'Reinvia' of a delivery the caller owns: signal its workflow to attempt now when it is waiting
    for a retry, else start a one-attempt run.

    Raises:
        ApiError: 503 ``service_unavailable`` when Temporal cannot be reached.
    """
    workflow_id = workflow_id_for_delivery(str(delivery_id))
    try:
        handle = temporal.get_workflow_handle(workflow_id)
        try:
            running = (await handle.describe()).status == WorkflowExecutionStatus.RUNNING
        except RPCError:
            running = False
        if running:
            await handle.signal(SIGNAL_WEBHOOK_RETRY_NOW)
        else:
            await temporal.start_workflow(
                WebhookDeliveryWorkflow.run,
                WebhookDeliveryInput(delivery_id=str(delivery_id), manual=True),
                id=f"{workflow_id}-resend-{uuid.uuid4().hex[:12]}",
                task_queue=TASK_QUEUE_JOBS,
            )
    except TEMPORAL_UNAVAILABLE as exc:
        raise ApiError(
            503, "Servizio momentaneamente non disponibile: riprova tra poco.", "service_unavailable"
        ) from exc

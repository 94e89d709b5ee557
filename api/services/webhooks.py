"""Webhook endpoints and their delivery log for the public API (``/v1/webhook-endpoints``,
``/v1/webhook-deliveries``): the transactions behind ``api/public/webhooks.py``.

Every read and write is confined to the key owner's endpoints of the key's mode; another account's
endpoint or delivery is answered as not found (404), never as forbidden.
"""

from __future__ import annotations

import base64
import json
import uuid
from datetime import UTC, datetime, timedelta

from sqlalchemy import func, select, tuple_
from sqlalchemy.orm import Session

from api.errors import ApiError
from api.public.schemas import (
    WebhookAttemptOut,
    WebhookDeliveryList,
    WebhookDeliveryOut,
    WebhookEndpointCreated,
    WebhookEndpointIn,
    WebhookEndpointList,
    WebhookEndpointOut,
)
from api.services.api_keys import KeyCaller
from fotopronta import webhooks
from fotopronta.models import WebhookAttempt, WebhookDelivery, WebhookEndpoint, WebhookEvent

MAX_ENDPOINTS = 16
"""Endpoints (not deleted) an account may have per mode."""
ENDPOINT_NOT_FOUND = ApiError(
    404, "Endpoint webhook non trovato.", "webhook_endpoint_not_found", "Risorsa non trovata"
)
DELIVERY_NOT_FOUND = ApiError(
    404, "Invio webhook non trovato.", "webhook_delivery_not_found", "Risorsa non trovata"
)


def endpoint_out(endpoint: WebhookEndpoint) -> WebhookEndpointOut:
    """The ``/v1`` view of an endpoint (never its secret)."""
    return WebhookEndpointOut(
        id=endpoint.id,
        url=endpoint.url,
        description=endpoint.description,
        events=list(endpoint.events),
        status="disabled" if endpoint.disabled_at is not None else "enabled",
        disabled_reason=endpoint.disabled_reason,
        livemode=endpoint.livemode,
        created_at=endpoint.created_at,
    )


def create_endpoint(session: Session, caller: KeyCaller, body: WebhookEndpointIn) -> WebhookEndpointCreated:
    """Store a new endpoint with a fresh secret (the URL already checked by the caller); the answer
    carries the secret, which is never shown again.

    Raises:
        ApiError: 400 ``too_many_webhook_endpoints`` past :data:`MAX_ENDPOINTS`.
    """
    livemode = caller.mode == "live"
    count = session.execute(
        select(func.count()).where(
            WebhookEndpoint.user_id == caller.user_id,
            WebhookEndpoint.livemode.is_(livemode),
            WebhookEndpoint.deleted_at.is_(None),
        )
    ).scalar_one()
    if count >= MAX_ENDPOINTS:
        raise ApiError(
            400,
            f"Puoi avere al massimo {MAX_ENDPOINTS} endpoint webhook: eliminane uno prima di aggiungerne un altro.",
            "too_many_webhook_endpoints",
        )
    endpoint = WebhookEndpoint(
        user_id=caller.user_id,
        url=body.url,
        description=body.description,
        events=sorted(set(body.events), key=webhooks.EVENT_TYPES.index),
        secret=webhooks.new_secret(),
        livemode=livemode,
    )
    session.add(endpoint)
    session.flush()
    session.refresh(endpoint)
    return WebhookEndpointCreated(**endpoint_out(endpoint).model_dump(), secret=endpoint.secret)


def owned_endpoint(session: Session, caller: KeyCaller, endpoint_id: uuid.UUID) -> WebhookEndpoint:
    """The owner's endpoint of the key's mode, not deleted.

    Raises:
        ApiError: 404 ``webhook_endpoint_not_found`` (also for another account's).
    """
    endpoint = session.get(WebhookEndpoint, endpoint_id)
    if (
        endpoint is None
        or endpoint.user_id != caller.user_id
        or endpoint.livemode != (caller.mode == "live")
        or endpoint.deleted_at is not None
    ):
        raise ENDPOINT_NOT_FOUND
    return endpoint


def list_endpoints(session: Session, caller: KeyCaller) -> WebhookEndpointList:
    """The owner's endpoints of the key's mode, newest first."""
    rows = session.execute(
        select(WebhookEndpoint)
        .where(
            WebhookEndpoint.user_id == caller.user_id,
            WebhookEndpoint.livemode.is_(caller.mode == "live"),
            WebhookEndpoint.deleted_at.is_(None),
        )
        .order_by(WebhookEndpoint.created_at.desc(), WebhookEndpoint.id.desc())
    ).scalars()
    return WebhookEndpointList(data=[endpoint_out(e) for e in rows])


def delete_endpoint(session: Session, caller: KeyCaller, endpoint_id: uuid.UUID) -> None:
    """Mark the endpoint deleted: no new event, and its pending deliveries stop at their next attempt.

    Raises:
        ApiError: 404 ``webhook_endpoint_not_found``.
    """
    owned_endpoint(session, caller, endpoint_id).deleted_at = datetime.now(UTC)


def _delivery_out(
    delivery: WebhookDelivery, event: WebhookEvent, attempts: list[WebhookAttempt]
) -> WebhookDeliveryOut:
    return WebhookDeliveryOut(
        id=delivery.id,
        endpoint_id=delivery.endpoint_id,
        event_id=event.id,
        event_type=event.type,
        job_id=event.job_id,
        status=delivery.status,  # type: ignore[arg-type]
        attempt_count=delivery.attempts,
        last_status_code=delivery.last_status_code,
        last_error=delivery.last_error,
        next_attempt_at=delivery.next_attempt_at,
        created_at=delivery.created_at,
        completed_at=delivery.completed_at,
        attempts=[
            WebhookAttemptOut(
                number=a.number,
                started_at=a.started_at,
                status_code=a.status_code,
                response_ms=a.response_ms,
                error=a.error,
                manual=a.manual,
            )
            for a in attempts
        ],
    )


def _attempts_of(session: Session, ids: list[uuid.UUID]) -> dict[uuid.UUID, list[WebhookAttempt]]:
    found: dict[uuid.UUID, list[WebhookAttempt]] = {i: [] for i in ids}
    if ids:
        for attempt in session.execute(
            select(WebhookAttempt).where(WebhookAttempt.delivery_id.in_(ids)).order_by(WebhookAttempt.id)
        ).scalars():
            found[attempt.delivery_id].append(attempt)
    return found


def _cursor(delivery: WebhookDelivery) -> str:
    raw = json.dumps([delivery.created_at.isoformat(), str(delivery.id)]).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def _uncursor(cursor: str) -> tuple[datetime, uuid.UUID]:
    try:
        created, delivery_id = json.loads(base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)))
        return datetime.fromisoformat(created), uuid.UUID(delivery_id)
    except (ValueError, TypeError, json.JSONDecodeError) as exc:
        raise ApiError(400, "Cursore di paginazione non valido.", "invalid_cursor") from exc


def list_deliveries(
    session: Session, caller: KeyCaller, endpoint_id: uuid.UUID, *, limit: int, cursor: str | None
) -> WebhookDeliveryList:
    """An endpoint's deliveries, newest first, each with its attempts.

    Raises:
        ApiError: 404 ``webhook_endpoint_not_found``; 400 ``invalid_cursor``.
    """
    endpoint = owned_endpoint(session, caller, endpoint_id)
    query = (
        select(WebhookDelivery, WebhookEvent)
        .join(WebhookEvent, WebhookEvent.id == WebhookDelivery.event_id)
        .where(WebhookDelivery.endpoint_id == endpoint.id)
        .order_by(WebhookDelivery.created_at.desc(), WebhookDelivery.id.desc())
        .limit(limit + 1)
    )
    if cursor:
        query = query.where(
            tuple_(WebhookDelivery.created_at, WebhookDelivery.id) < tuple_(*_uncursor(cursor))
        )
    rows = session.execute(query).all()
    page, more = rows[:limit], len(rows) > limit
    attempts = _attempts_of(session, [d.id for d, _ in page])
    return WebhookDeliveryList(
        data=[_delivery_out(d, e, attempts[d.id]) for d, e in page],
        has_more=more,
        next_cursor=_cursor(page[-1][0]) if more else None,
    )


def owned_delivery(session: Session, caller: KeyCaller, delivery_id: uuid.UUID) -> WebhookDeliveryOut:
    """One delivery of the owner's endpoint, with its attempts.

    Raises:
        ApiError: 404 ``webhook_delivery_not_found`` (also another account's, or a deleted endpoint's).
    """
    row = session.execute(
        select(WebhookDelivery, WebhookEvent)
        .join(WebhookEvent, WebhookEvent.id == WebhookDelivery.event_id)
        .where(WebhookDelivery.id == delivery_id)
    ).one_or_none()
    if row is None:
        raise DELIVERY_NOT_FOUND
    delivery, event = row
    try:
        owned_endpoint(session, caller, delivery.endpoint_id)
    except ApiError as exc:
        raise DELIVERY_NOT_FOUND from exc
    return _delivery_out(delivery, event, _attempts_of(session, [delivery.id])[delivery.id])


def rotate_secret(session: Session, caller: KeyCaller, endpoint_id: uuid.UUID) -> WebhookEndpointCreated:
    """Give the endpoint a fresh secret; the one it replaces keeps signing beside it (a second ``v1,``
    signature) for :data:`fotopronta.webhooks.ROTATION_OVERLAP_S` (24 h), so a receiver can switch
    without losing an event. Rotating again within the 24 h drops the oldest secret.

    Raises:
        ApiError: 404 ``webhook_endpoint_not_found``.
    """
    endpoint = owned_endpoint(session, caller, endpoint_id)
    endpoint.previous_secret = endpoint.secret
    endpoint.previous_secret_expires_at = datetime.now(UTC) + timedelta(seconds=webhooks.ROTATION_OVERLAP_S)
    endpoint.secret = webhooks.new_secret()
    session.flush()
    return WebhookEndpointCreated(**endpoint_out(endpoint).model_dump(), secret=endpoint.secret)

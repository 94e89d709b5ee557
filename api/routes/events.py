"""Live updates as server-sent events: ``GET /api/events`` (SPEC §7 Realtime, DESIGN.md HTTP API).

Each change the caller may see (``api.events_bus.audience_payload``) arrives as one event::

    event: job | photo | notification
    data: {"table": ..., "op": "insert"|"update", "id": ..., "user_id": ..., "status": ..., ...}

with a comment line (``: ping``) every 15 s to keep proxies from closing the connection. Events are
not replayed after a disconnect: the web app reloads its data when the stream (re)opens.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator

from fastapi import APIRouter, Request
from sse_starlette import EventSourceResponse, ServerSentEvent
from starlette.background import BackgroundTask

from api.deps import StreamUser, effective_role
from api.errors import ApiError
from api.events_bus import EventBus, Subscriber, get_bus

router = APIRouter(prefix="/api/events", tags=["events"])

PING_INTERVAL_S = 15
"""Keep-alive comment interval (seconds)."""
RETRY_MS = 3000
"""Reconnection delay suggested to ``EventSource`` (milliseconds), sent once at the start."""


async def _stream(bus: EventBus, sub: Subscriber) -> AsyncIterator[ServerSentEvent]:
    """Yield the subscriber's events until the client goes away; always unsubscribe."""
    try:
        yield ServerSentEvent(comment="connesso", retry=RETRY_MS)
        while True:
            event = await sub.queue.get()
            yield ServerSentEvent(event=event.name, data=json.dumps(event.data, separators=(",", ":")))
    finally:
        bus.unsubscribe(sub)


@router.get(
    "",
    operation_id="events-stream",
    response_class=EventSourceResponse,
    responses={
        200: {"content": {"text/event-stream": {}}, "description": "event stream"},
        401: {"description": "missing, invalid or expired token"},
        503: {"description": "live updates unavailable"},
    },
)
async def events_stream(request: Request, user: StreamUser) -> EventSourceResponse:
    """Stream the caller's job, photo and notification changes (token in header or ``?access_token=``).

    Raises:
        ApiError: 401 without a valid token; 503 when the database listener cannot start within 5 s.
    """
    bus = get_bus(request.app)
    sub = bus.subscribe(user_id=user.id, role=effective_role(user))
    if not await bus.wait_listening(5.0):
        bus.unsubscribe(sub)
        raise ApiError(
            503, "Aggiornamenti in tempo reale non disponibili, riprova tra poco.", "events_unavailable"
        )
    return EventSourceResponse(
        _stream(bus, sub),
        ping=PING_INTERVAL_S,
        background=BackgroundTask(bus.unsubscribe, sub),  # also when the generator never started
    )

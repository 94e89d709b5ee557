"""Live updates as server-sent events: ``GET /api/events`` (SPEC §7 Realtime, DESIGN.md HTTP API).

Each change the caller may see (``api.events_bus.audience_payload``) arrives as one event::

    event: job | photo | notification
    data: {"table": ..., "op": "insert"|"update", "id": ..., "user_id": ..., "status": ..., ...}

with a comment line (``: ping``) every 15 s to keep proxies from closing the connection. Events are
not replayed after a disconnect: the web app reloads its data when the stream (re)opens.

Authentication (DESIGN.md: "by cookie or a short-lived single-use stream ticket, never the access
token in the URL"): a bearer header, or ``?ticket=`` from ``POST /api/events/ticket`` (valid
``events_ticket_ttl_s`` seconds, once). While open, the stream re-checks its sign-in session every
``events_session_check_s`` seconds; after a logout or password change it sends
``event: session`` / ``data: {"reason":"revoked"}`` and closes.
"""

from __future__ import annotations

import asyncio
import json
import time
import uuid
from collections.abc import AsyncIterator

from fastapi import APIRouter, Request
from fastapi.concurrency import run_in_threadpool
from pydantic import BaseModel
from sse_starlette import EventSourceResponse, ServerSentEvent
from starlette.background import BackgroundTask

from api.deps import (
    CurrentAuth,
    SessionDep,
    StreamAuth,
    effective_role,
    session_is_live,
)
from api.errors import ApiError
from api.events_bus import EventBus, Subscriber, get_bus
from api.services import auth as auth_service
from fotopronta.db import session_factory
from fotopronta.settings import get_settings

router = APIRouter(prefix="/api/events", tags=["events"])

PING_INTERVAL_S = 15
"""Keep-alive comment interval (seconds)."""
RETRY_MS = 3000
"""Reconnection delay suggested to ``EventSource`` (milliseconds), sent once at the start."""


class TicketOut(BaseModel):
    """``POST /api/events/ticket``: a single-use ticket for ``GET /api/events?ticket=…``."""

    ticket: str
    expires_in: int


def _live(user_id: uuid.UUID, session_id: uuid.UUID) -> bool:
    with session_factory()() as session:
        return session_is_live(session, user_id, session_id)


async def _stream(
    bus: EventBus, sub: Subscriber, session_id: uuid.UUID, check_s: float
) -> AsyncIterator[ServerSentEvent]:
    """Yield the subscriber's events until the client goes away or the sign-in session is revoked
    (checked every ``check_s`` seconds); always unsubscribe."""
    try:
        yield ServerSentEvent(comment="connesso", retry=RETRY_MS)
        checked = time.monotonic()
        while True:
            try:
                event = await asyncio.wait_for(sub.queue.get(), timeout=check_s)
            except TimeoutError:
                event = None
            if time.monotonic() - checked >= check_s:
                if not await run_in_threadpool(_live, sub.user_id, session_id):
                    yield ServerSentEvent(event="session", data='{"reason":"revoked"}')
                    return
                checked = time.monotonic()
            if event is not None:
                yield ServerSentEvent(event=event.name, data=json.dumps(event.data, separators=(",", ":")))
    finally:
        bus.unsubscribe(sub)


@router.post("/ticket", response_model=TicketOut, operation_id="events-ticket")
def events_ticket(auth: CurrentAuth, session: SessionDep) -> TicketOut:
    """A short-lived (``events_ticket_ttl_s``), single-use ticket that opens one event stream
    (``GET /api/events?ticket=…``) for the caller's sign-in session.

    Raises:
        ApiError: 401 without a valid access token.
    """
    settings = get_settings()
    ticket = auth_service.new_stream_ticket(session, auth.profile.id, auth.session_id)
    return TicketOut(ticket=ticket, expires_in=settings.events_ticket_ttl_s)


@router.get(
    "",
    operation_id="events-stream",
    response_class=EventSourceResponse,
    responses={
        200: {"content": {"text/event-stream": {}}, "description": "event stream"},
        401: {"description": "missing, invalid, expired or revoked token or ticket"},
        503: {"description": "live updates unavailable"},
    },
)
async def events_stream(request: Request, auth: StreamAuth) -> EventSourceResponse:
    """Stream the caller's job, photo and notification changes (bearer header or ``?ticket=``).

    Raises:
        ApiError: 401 without a valid token or ticket; 503 when the database listener cannot start
            within 5 s.
    """
    user = auth.profile
    bus = get_bus(request.app)
    sub = bus.subscribe(user_id=user.id, role=effective_role(user))
    if not await bus.wait_listening(5.0):
        bus.unsubscribe(sub)
        raise ApiError(
            503, "Aggiornamenti in tempo reale non disponibili, riprova tra poco.", "events_unavailable"
        )
    return EventSourceResponse(
        _stream(bus, sub, auth.session_id, get_settings().events_session_check_s),
        ping=PING_INTERVAL_S,
        background=BackgroundTask(bus.unsubscribe, sub),  # also when the generator never started
    )

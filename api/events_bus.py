"""Live updates: one PostgreSQL ``LISTEN`` connection per API process, fanned out to subscribers.

Migration ``0002`` sends a ``pg_notify`` on channel ``fotopronta_events`` after every insert or update
of ``photo_processing_jobs``, ``photos`` and ``notifications``, with a JSON payload
``{"table", "op", "id", "user_id", "status", "assigned_to", "photo_id", "job_type"}`` (the last four
only where the table has them). :class:`EventBus` keeps one psycopg 3 async connection listening on
that channel and copies each change into the bounded queue of every :class:`Subscriber` allowed to
see it (:func:`audience_payload`); ``GET /api/events`` (``api/routes/events.py``) turns a queue into
server-sent events.

Lifecycle: the listener task starts with the first subscriber, reconnects after 1, 2, 5, 10 s
(SPEC §9 realtime reconnect delays) when the connection drops, checks a quiet connection every
``heartbeat_s`` seconds with ``SELECT 1``, and stops by itself once nobody has listened for
``idle_close_s`` seconds. NOTIFY is not durable: changes made while the listener reconnects are not
replayed, so clients reload their data whenever their stream (re)opens.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import uuid
from dataclasses import dataclass, field
from typing import Any

import psycopg
from fastapi import FastAPI
from sqlalchemy.engine import make_url

from fotopronta.domain import JobStatus, JobType, UserRole
from fotopronta.settings import get_settings

log = logging.getLogger("fotopronta.api.events")

CHANNEL = "fotopronta_events"
"""The ``pg_notify`` channel of migration 0002."""
APPLICATION_NAME = "fotopronta-events"
"""``application_name`` of the listener connection (visible in ``pg_stat_activity``)."""
EVENT_NAMES = {"photo_processing_jobs": "job", "photos": "photo", "notifications": "notification"}
"""SSE ``event:`` name per table."""
RECONNECT_DELAYS_S = (1.0, 2.0, 5.0, 10.0)
"""Waits before reconnect attempts 1, 2, 3 and 4+ (seconds)."""
DEFAULT_QUEUE_SIZE = 100
"""Events buffered per subscriber; on overflow the oldest is dropped."""


@dataclass(frozen=True)
class Event:
    """One change for one subscriber: SSE ``name`` (job, photo, notification) and JSON ``data``."""

    name: str
    data: dict[str, Any]


@dataclass(eq=False)
class Subscriber:
    """One open event stream: who listens (``user_id``, effective ``role``) and its bounded queue.

    ``dropped`` counts events discarded because the client read too slowly.
    """

    user_id: uuid.UUID
    role: UserRole
    queue: asyncio.Queue[Event] = field(default_factory=lambda: asyncio.Queue(DEFAULT_QUEUE_SIZE))
    dropped: int = 0

    def offer(self, event: Event) -> None:
        """Enqueue without waiting; when the queue is full drop its oldest event first."""
        while True:
            try:
                self.queue.put_nowait(event)
                return
            except asyncio.QueueFull:
                with contextlib.suppress(asyncio.QueueEmpty):
                    self.queue.get_nowait()
                    self.dropped += 1


def audience_payload(payload: dict[str, Any], *, user_id: uuid.UUID, role: UserRole) -> dict[str, Any] | None:
    """What a subscriber may see of one change: the payload, a reduced copy, or ``None``.

    Rules (SPEC §6 and §7 Realtime):

    - the owner (``payload["user_id"]``) sees every change of their jobs, photos and notifications;
    - admins see every job change;
    - designers (effective role graphic) see changes of human jobs (``background_removal_human``)
      that are in the pool (unassigned) or assigned to them; when a pool job is taken by another
      designer (status ``assigned_to_graphic``, someone else's id) they get only
      ``{table, op, id, status, job_type}``, so the job leaves their pool without revealing who took it;
    - nobody else sees anything.

    Args:
        payload: the decoded NOTIFY payload of migration 0002.
        user_id: the subscriber's profile id.
        role: the subscriber's effective role (``api.deps.effective_role``).
    """
    if str(payload.get("user_id")) == str(user_id):
        return payload
    if payload.get("table") != "photo_processing_jobs":
        return None
    if role is UserRole.admin:
        return payload
    if role is UserRole.graphic and payload.get("job_type") == JobType.background_removal_human.value:
        assigned = payload.get("assigned_to")
        if assigned is None or str(assigned) == str(user_id):
            return payload
        if payload.get("status") == JobStatus.assigned_to_graphic.value:
            return {k: payload.get(k) for k in ("table", "op", "id", "status", "job_type")}
    return None


def listener_conninfo() -> str:
    """libpq URL of the application database (the settings' SQLAlchemy URL without the driver)."""
    url = make_url(get_settings().sqlalchemy_url).set(drivername="postgresql")
    return url.render_as_string(hide_password=False)


class EventBus:
    """Fans one ``LISTEN fotopronta_events`` connection out to many :class:`Subscriber` queues.

    Args:
        conninfo: libpq URL; default :func:`listener_conninfo`.
        queue_size: events buffered per subscriber (drop-oldest beyond that).
        heartbeat_s: seconds without notifications after which the connection is checked.
        idle_close_s: seconds without subscribers after which the listener stops (restarted lazily).
    """

    def __init__(
        self,
        conninfo: str | None = None,
        *,
        queue_size: int = DEFAULT_QUEUE_SIZE,
        heartbeat_s: float = 10.0,
        idle_close_s: float = 60.0,
    ) -> None:
        self._conninfo = conninfo
        self.queue_size = queue_size
        self.heartbeat_s = heartbeat_s
        self.idle_close_s = idle_close_s
        self._subscribers: set[Subscriber] = set()
        self._task: asyncio.Task[None] | None = None
        self._ready = asyncio.Event()
        self.connections = 0
        """How many times the listener has connected and issued ``LISTEN`` (1 + reconnects)."""
        self.backend_pid: int | None = None
        """PostgreSQL backend pid of the current listener connection, if connected."""

    @property
    def subscriber_count(self) -> int:
        """Open streams in this process."""
        return len(self._subscribers)

    @property
    def listening(self) -> bool:
        """Whether the listener is connected and has issued ``LISTEN``."""
        return self._ready.is_set()

    def subscribe(self, *, user_id: uuid.UUID, role: UserRole) -> Subscriber:
        """Register a stream and start the listener if it is not running."""
        sub = Subscriber(user_id=user_id, role=role, queue=asyncio.Queue(self.queue_size))
        self._subscribers.add(sub)
        if self._task is None or self._task.done():
            self._ready.clear()
            self._task = asyncio.create_task(self._run(), name="fotopronta-events-listener")
        return sub

    def unsubscribe(self, sub: Subscriber) -> None:
        """Forget a stream (idempotent)."""
        self._subscribers.discard(sub)

    async def wait_listening(self, timeout_s: float = 5.0) -> bool:
        """Wait up to ``timeout_s`` seconds for ``LISTEN`` to be in place; return whether it is."""
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._ready.wait(), timeout_s)
        return self._ready.is_set()

    def dispatch(self, raw: str) -> None:
        """Decode one NOTIFY payload and offer it to every subscriber allowed to see it."""
        try:
            payload = json.loads(raw)
            name = EVENT_NAMES[payload["table"]]
        except (ValueError, KeyError, TypeError):
            log.warning("ignoring malformed notification payload %r", raw[:200])
            return
        for sub in list(self._subscribers):
            data = audience_payload(payload, user_id=sub.user_id, role=sub.role)
            if data is not None:
                sub.offer(Event(name, data))

    async def close(self) -> None:
        """Stop the listener and forget every subscriber (app shutdown, tests)."""
        self._subscribers.clear()
        task, self._task = self._task, None
        if task is not None and not task.done():
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
        self._ready.clear()

    async def _run(self) -> None:
        """Listen, dispatch, reconnect on errors; return once idle for ``idle_close_s``."""
        failures = 0
        loop = asyncio.get_running_loop()
        idle_since = loop.time()
        while True:
            try:
                async with await psycopg.AsyncConnection.connect(
                    self._conninfo or listener_conninfo(), autocommit=True, application_name=APPLICATION_NAME
                ) as conn:
                    await conn.execute(f"LISTEN {CHANNEL}")
                    self.backend_pid = conn.info.backend_pid
                    self.connections += 1
                    self._ready.set()
                    failures = 0
                    log.info("listening on %s (backend pid %s)", CHANNEL, self.backend_pid)
                    while True:
                        async for notify in conn.notifies(timeout=self.heartbeat_s):
                            self.dispatch(notify.payload)
                        if self._subscribers:
                            idle_since = loop.time()
                        elif loop.time() - idle_since >= self.idle_close_s:
                            log.info("no subscribers for %.0f s: listener stops", self.idle_close_s)
                            return
                        await conn.execute("SELECT 1")  # raises if the connection silently died
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                delay = RECONNECT_DELAYS_S[min(failures, len(RECONNECT_DELAYS_S) - 1)]
                failures += 1
                log.warning(
                    "event listener lost (%s: %s); reconnecting in %.0f s", exc.__class__.__name__, exc, delay
                )
            finally:
                self._ready.clear()
                self.backend_pid = None
            await asyncio.sleep(delay)
            if not self._subscribers and loop.time() - idle_since >= self.idle_close_s:
                return


def get_bus(app: FastAPI) -> EventBus:
    """The application's :class:`EventBus`, created on first use (one per app, so one per process)."""
    bus: EventBus | None = getattr(app.state, "events_bus", None)
    if bus is None:
        bus = EventBus()
        app.state.events_bus = bus
    return bus

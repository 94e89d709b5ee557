"""``GET /api/events`` on the real stack: a real uvicorn, the real LISTEN/NOTIFY triggers, real workflows.

Who receives what (SPEC §6, §7 Realtime): the owner gets their job, photo and notification changes;
designers get human jobs in the pool or assigned to them; admins get every job change; nobody else
gets anything. Plus: token in the query string, 401s, reconnect after the listener connection dies,
subscriber clean-up, and the bounded queue.
"""

from __future__ import annotations

import asyncio
import time
import uuid

import httpx
import pytest
from sqlalchemy import select, text

from api.events_bus import APPLICATION_NAME, Event, Subscriber, audience_payload, get_bus
from fotopronta.db import session_scope
from fotopronta.domain import JobStatus, JobType, UserRole
from fotopronta.models import Notification, Photo, PhotoProcessingJob, Profile
from tests.utils.factories import make_user, product_photo_bytes
from tests.utils.live_server import LiveServer, SseEvent, open_stream
from tests.utils.stack import Stack

pytestmark = pytest.mark.stack


async def token_for(client: httpx.AsyncClient, role: UserRole = UserRole.client) -> tuple[str, uuid.UUID]:
    """Create a user with ``role``, log in through the API; returns ``(access token, user id)``."""
    email, password = make_user(role=role)
    resp = await client.post("/api/auth/login", json={"email": email, "password": password})
    assert resp.status_code == 200, resp.text
    body = resp.json()
    return body["access_token"], uuid.UUID(body["user"]["id"])


def is_(name: str, **fields: object):  # type: ignore[no-untyped-def]
    """Predicate: an event called ``name`` whose data has these ``fields``."""

    def pred(ev: SseEvent) -> bool:
        return ev.event == name and all(str(ev.data.get(k)) == str(v) for k, v in fields.items())

    return pred


async def test_owner_admin_and_stranger_streams_during_a_real_job(stack: Stack, live_api: LiveServer) -> None:
    c = live_api.client
    owner, owner_id = await token_for(c)
    stranger, _ = await token_for(c)
    admin, _ = await token_for(c, UserRole.admin)
    async with (
        open_stream(c, token=owner) as own,
        open_stream(c, ticket_token=stranger) as other,
        open_stream(c, token=admin) as adm,
    ):
        resp = await c.post(
            "/api/photos",
            headers={"Authorization": f"Bearer {owner}"},
            files=[("files", ("borsa.jpg", product_photo_bytes((160, 120)), "image/jpeg"))],
        )
        assert resp.status_code == 201, resp.text
        photo = resp.json()[0]
        job_id, photo_id = photo["jobs"][0]["id"], photo["id"]

        done = await own.wait_for(is_("job", id=job_id, status="completed"), timeout_s=180)
        assert done.data["user_id"] == str(owner_id) and done.data["photo_id"] == photo_id
        assert done.data["job_type"] == "background_removal" and done.data["table"] == "photo_processing_jobs"
        await own.wait_for(is_("job", id=job_id, op="insert"))
        await own.wait_for(is_("job", id=job_id, status="processing"))
        await own.wait_for(is_("photo", id=photo_id, status="processed"))
        note = await own.wait_for(is_("notification", user_id=owner_id))
        assert set(note.data) >= {"table", "op", "id", "user_id"}
        assert own.comments[0] == "connesso"

        await adm.wait_for(is_("job", id=job_id, status="completed"))
        assert not [e for e in adm.events if e.event != "job" and e.data.get("user_id") == str(owner_id)]
        await asyncio.sleep(0.5)
        assert other.events == [], other.events
    assert all(e.data.get("user_id") == str(owner_id) for e in own.events)


async def test_missing_or_invalid_token_is_401(stack: Stack, live_api: LiveServer) -> None:
    c = live_api.client
    resp = await c.get("/api/events")
    assert resp.status_code == 401
    assert resp.json()["code"] == "not_authenticated"
    for kwargs in (
        {"params": {"ticket": "non-un-ticket"}},
        {"headers": {"Authorization": "Bearer non-un-token"}},
    ):
        resp = await c.get("/api/events", **kwargs)  # type: ignore[arg-type]
        assert resp.status_code == 401
        assert resp.json() == {
            "detail": "Sessione non valida o scaduta: accedi di nuovo.",
            "code": "invalid_token",
        }


def _insert_human_job(owner_id: uuid.UUID) -> uuid.UUID:
    """A photo and a ``pending_human`` job of ``owner_id`` inserted directly (fires the real triggers)."""
    with session_scope() as session:
        photo = Photo(
            user_id=owner_id,
            original_filename="scarpa.jpg",
            file_size=10,
            file_format="image/jpeg",
            upload_path=f"{owner_id}/x.jpg",
        )
        session.add(photo)
        session.flush()
        job = PhotoProcessingJob(
            photo_id=photo.id,
            user_id=owner_id,
            status=JobStatus.pending_human.value,
            job_type=JobType.background_removal_human.value,
        )
        session.add(job)
        session.flush()
        return job.id


def _update_job(job_id: uuid.UUID, **values: object) -> None:
    with session_scope() as session:
        job = session.get(PhotoProcessingJob, job_id)
        assert job is not None
        for k, v in values.items():
            setattr(job, k, v)


async def test_designers_see_the_pool_and_their_own_jobs(stack: Stack, live_api: LiveServer) -> None:
    c = live_api.client
    owner, owner_id = await token_for(c)
    anna, anna_id = await token_for(c, UserRole.graphic)
    bruno, _ = await token_for(c, UserRole.graphic)
    async with (
        open_stream(c, token=owner) as own,
        open_stream(c, ticket_token=anna) as a,
        open_stream(c, token=bruno) as b,
    ):
        job_id = _insert_human_job(owner_id)
        for stream in (own, a, b):
            await stream.wait_for(is_("job", id=job_id, status="pending_human", op="insert"))
        assert not [e for e in a.events + b.events if e.event == "photo"]  # photos are the owner's only

        _update_job(job_id, status=JobStatus.assigned_to_graphic.value, assigned_to=anna_id)
        mine = await a.wait_for(is_("job", id=job_id, status="assigned_to_graphic"))
        assert mine.data["assigned_to"] == str(anna_id) and mine.data["user_id"] == str(owner_id)
        taken = await b.wait_for(is_("job", id=job_id, status="assigned_to_graphic"))
        assert set(taken.data) == {"table", "op", "id", "status", "job_type"}  # leaves Bruno's pool

        _update_job(job_id, status=JobStatus.in_progress_human.value)
        await a.wait_for(is_("job", id=job_id, status="in_progress_human"))
        await own.wait_for(is_("job", id=job_id, status="in_progress_human"))
        await asyncio.sleep(0.5)
        assert not [e for e in b.events if e.data.get("status") == "in_progress_human"]

        # an AI job of the same owner is nobody's business but the owner's (and admins')
        with session_scope() as session:
            ai = session.execute(
                select(PhotoProcessingJob).where(PhotoProcessingJob.id == job_id)
            ).scalar_one()
            ai_job = PhotoProcessingJob(
                photo_id=ai.photo_id,
                user_id=owner_id,
                status="pending",
                job_type=JobType.background_removal.value,
            )
            session.add(ai_job)
            session.flush()
            ai_id = ai_job.id
        await own.wait_for(is_("job", id=ai_id))
        await asyncio.sleep(0.5)
        assert not [e for e in a.events + b.events if e.data.get("id") == str(ai_id)]


async def test_inactive_designer_is_a_client(stack: Stack, live_api: LiveServer) -> None:
    c = live_api.client
    _, owner_id = await token_for(c)
    carla, carla_id = await token_for(c, UserRole.graphic)
    with session_scope() as session:
        profile = session.get(Profile, carla_id)
        assert profile is not None
        profile.is_active = False
    async with open_stream(c, token=carla) as stream:
        _insert_human_job(owner_id)
        await asyncio.sleep(1.0)
        assert stream.events == []


async def test_listener_reconnects_and_subscribers_are_cleaned_up(stack: Stack, live_api: LiveServer) -> None:
    c = live_api.client
    owner, owner_id = await token_for(c)
    bus = get_bus(live_api.app)
    async with open_stream(c, ticket_token=owner) as stream:
        assert bus.listening and bus.subscriber_count >= 1
        before, old_pid = bus.connections, bus.backend_pid
        with session_scope() as session:
            killed = (
                session.execute(
                    text(
                        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = :n"
                    ),
                    {"n": APPLICATION_NAME},
                )
                .scalars()
                .all()
            )
        assert killed == [True]
        deadline = time.monotonic() + 20
        while not (bus.listening and bus.connections > before):
            assert time.monotonic() < deadline, "listener did not reconnect"
            await asyncio.sleep(0.1)
        assert bus.backend_pid != old_pid
        with session_scope() as session:
            session.add(Notification(user_id=owner_id, title="Prova", message="dopo la riconnessione"))
        await stream.wait_for(is_("notification", user_id=owner_id), timeout_s=10)
        open_count = bus.subscriber_count
    deadline = time.monotonic() + 10
    while bus.subscriber_count != open_count - 1:
        assert time.monotonic() < deadline, "subscriber not removed after disconnect"
        await asyncio.sleep(0.1)


def test_queue_drops_oldest_and_audience_rules() -> None:
    sub = Subscriber(user_id=uuid.uuid4(), role=UserRole.client, queue=asyncio.Queue(2))
    for i in range(5):
        sub.offer(Event("job", {"n": i}))
    assert sub.dropped == 3
    assert [sub.queue.get_nowait().data["n"] for _ in range(2)] == [3, 4]

    me, other, designer = uuid.uuid4(), uuid.uuid4(), uuid.uuid4()
    job = {
        "table": "photo_processing_jobs",
        "op": "update",
        "id": "j",
        "user_id": str(other),
        "status": "completed",
        "assigned_to": None,
        "photo_id": "p",
        "job_type": "background_removal",
    }
    assert audience_payload(job, user_id=me, role=UserRole.client) is None
    assert audience_payload(job, user_id=me, role=UserRole.admin) == job
    assert audience_payload({**job, "user_id": str(me)}, user_id=me, role=UserRole.client) is not None
    assert audience_payload(job, user_id=designer, role=UserRole.graphic) is None  # AI job
    note = {"table": "notifications", "op": "insert", "id": "n", "user_id": str(other)}
    assert audience_payload(note, user_id=me, role=UserRole.admin) is None
    human = {
        **job,
        "job_type": "background_removal_human",
        "status": "completed_human",
        "assigned_to": str(other),
    }
    assert audience_payload(human, user_id=designer, role=UserRole.graphic) is None

"""On the real stack: a rejected free rework leaves the paid AI result in place
(download, order ZIP, counters), and a photo queued for designers can be cancelled and deleted until a
designer starts it (the workflow releases the reserved credits)."""

from __future__ import annotations

import io
import uuid
import zipfile

import httpx
import pytest
from sqlalchemy import select

from fotopronta.db import session_factory
from fotopronta.domain import UserRole
from fotopronta.models import Order, Photo, Profile
from tests.utils.factories import login, product_photo_bytes
from tests.utils.histories import maybe_record
from tests.utils.jobs import count_rows, credits_and_ledger, ledger_kinds, new_user, wait_job_status
from tests.utils.stack import Stack

pytestmark = pytest.mark.stack

BUSY_MESSAGE = "La foto è in lavorazione: potrai eliminarla al termine."


async def _login_id(api: httpx.AsyncClient, user_id: uuid.UUID) -> dict[str, str]:
    with session_factory()() as session:
        email = session.execute(select(Profile.email).where(Profile.id == user_id)).scalar_one()
    return await login(api, email, "segreto123")


async def _upload(api: httpx.AsyncClient, client: dict[str, str], job_type: str, name: str) -> dict:
    resp = await api.post(
        "/api/photos",
        headers=client,
        data={"job_type": job_type},
        files=[("files", (name, product_photo_bytes((160, 120)), "image/jpeg"))],
    )
    assert resp.status_code == 201, resp.text
    return dict(resp.json()[0])


async def _photo(api: httpx.AsyncClient, client: dict[str, str], photo_id: str) -> dict:
    photos = (await api.get("/api/photos", headers=client)).json()["items"]
    return dict(next(p for p in photos if p["id"] == photo_id))


async def test_rejected_free_rework_keeps_the_paid_result(stack: Stack, api: httpx.AsyncClient) -> None:
    sessions = session_factory()
    client_id, designer_id = new_user(sessions), new_user(sessions, role=UserRole.graphic)
    client, designer = await _login_id(api, client_id), await _login_id(api, designer_id)
    photo = await _upload(api, client, "background_removal", "tazza.jpg")
    pid, ai_job = photo["id"], photo["jobs"][0]["id"]
    await wait_job_status(sessions, ai_job, {"completed"})
    first = await api.get(f"/api/photos/{pid}/download", headers=client)
    assert first.status_code == 200 and first.content[:2] == b"\xff\xd8"

    resp = await api.post(f"/api/photos/{pid}/rework", headers=client, json={"notes": "bordo più netto"})
    assert resp.status_code == 200, resp.text
    rework = resp.json()["jobs"][-1]["id"]
    await wait_job_status(sessions, rework, {"pending_human"})
    assert (await api.post(f"/api/designer/jobs/{rework}/assign-to-me", headers=designer)).status_code == 200
    assert (await api.post(f"/api/designer/jobs/{rework}/start", headers=designer)).status_code == 200
    # while the designer works, the delivered result stays downloadable and counted as delivered
    assert (await _photo(api, client, pid))["status"] == "processed"
    assert (await api.get(f"/api/photos/{pid}/download", headers=client)).status_code == 200

    reason = "Il prodotto è già scontornato correttamente"
    resp = await api.post(f"/api/designer/jobs/{rework}/reject", headers=designer, json={"notes": reason})
    assert resp.status_code == 200, resp.text
    await wait_job_status(sessions, rework, {"rejected_human"})

    seen = await _photo(api, client, pid)
    assert seen["status"] == "processed"  # the dashboard counts it as delivered, not 'In Coda'
    latest = max(seen["jobs"], key=lambda j: j["created_at"])
    assert latest["id"] == rework and latest["status"] == "rejected_human"
    assert latest["error_message"] == reason and latest["graphic_notes"] == reason
    again = await api.get(f"/api/photos/{pid}/download", headers=client)
    assert again.status_code == 200 and again.content == first.content
    webp = await api.get(f"/api/photos/{pid}/download", headers=client, params={"format": "webp"})
    assert webp.status_code == 200 and webp.content[:4] == b"RIFF"

    order_id = seen["order_id"]
    resp = await api.get(f"/api/orders/{order_id}/download", headers=client)
    assert resp.status_code == 200, resp.text
    with zipfile.ZipFile(io.BytesIO(resp.content)) as archive:
        assert len(archive.namelist()) == 1
        assert archive.read(archive.namelist()[0]) == first.content
    with sessions() as session:
        order = session.get_one(Order, uuid.UUID(order_id))
        assert (order.processed_photos, order.status) == (1, "completed")
    assert credits_and_ledger(sessions, client_id) == (14, 14)  # one AI credit, the rework is free
    assert ledger_kinds(sessions, rework) == ["reserve", "release"]


async def test_seller_cancels_a_queued_designer_photo(stack: Stack, api: httpx.AsyncClient) -> None:
    sessions = session_factory()
    client_id = new_user(sessions)
    client = await _login_id(api, client_id)
    photo = await _upload(api, client, "background_removal_human", "borsa.jpg")
    pid, jid = photo["id"], photo["jobs"][0]["id"]
    await wait_job_status(sessions, jid, {"pending_human"})
    assert credits_and_ledger(sessions, client_id) == (12, 12)

    handle = stack.temporal.get_workflow_handle(f"photo-job-{jid}")
    resp = await api.delete(f"/api/photos/{pid}", headers=client)
    assert resp.status_code == 204, resp.text
    assert credits_and_ledger(sessions, client_id) == (15, 15)
    assert ledger_kinds(sessions, jid) == ["reserve", "release"]
    assert count_rows(sessions, Photo, id=uuid.UUID(pid)) == 0
    await maybe_record(handle, "human-cancelled")


async def test_cancel_until_the_designer_starts(stack: Stack, api: httpx.AsyncClient) -> None:
    sessions = session_factory()
    client_id, designer_id = new_user(sessions), new_user(sessions, role=UserRole.graphic)
    client, designer = await _login_id(api, client_id), await _login_id(api, designer_id)
    assigned = await _upload(api, client, "background_removal_human", "assegnata.jpg")
    started = await _upload(api, client, "background_removal_human", "iniziata.jpg")
    for p in (assigned, started):
        jid = p["jobs"][0]["id"]
        await wait_job_status(sessions, jid, {"pending_human"})
        assert (await api.post(f"/api/designer/jobs/{jid}/assign-to-me", headers=designer)).status_code == 200
    sid = started["jobs"][0]["id"]
    assert (await api.post(f"/api/designer/jobs/{sid}/start", headers=designer)).status_code == 200
    assert credits_and_ledger(sessions, client_id) == (9, 9)

    # started by the designer: refused, the credits stay reserved
    resp = await api.delete(f"/api/photos/{started['id']}", headers=client)
    assert resp.status_code == 409 and resp.json()["detail"] == BUSY_MESSAGE
    assert resp.json()["title"] == "Impossibile eliminare la foto"
    assert ledger_kinds(sessions, sid) == ["reserve"]

    # assigned but not started yet: the seller may still cancel
    aid = assigned["jobs"][0]["id"]
    handle = stack.temporal.get_workflow_handle(f"photo-job-{aid}")
    resp = await api.delete(f"/api/photos/{assigned['id']}", headers=client)
    assert resp.status_code == 204, resp.text
    assert ledger_kinds(sessions, aid) == ["reserve", "release"]
    assert credits_and_ledger(sessions, client_id) == (12, 12)
    mine = (await api.get("/api/designer/jobs", headers=designer)).json()
    assert [j["id"] for j in mine if j["id"] in (aid, sid)] == [sid]
    await maybe_record(handle, "human-assigned-cancelled")

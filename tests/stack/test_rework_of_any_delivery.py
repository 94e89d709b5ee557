"""The free rework ('Revisione gratuita') holds for every delivery, a designer's too, once per photo
within 7 days; and a photo whose free rework was rejected is what the seller has, a delivered photo:
its badge job, the /photos filter and counters and the order's counts say so, the rejected rework
stays on the photo as a note."""

from __future__ import annotations

import io
import uuid
from datetime import UTC, datetime, timedelta

import httpx
import pytest
from PIL import Image
from sqlalchemy import select

from fotopronta.db import session_factory
from fotopronta.domain import UserRole
from fotopronta.models import PhotoProcessingJob, Profile
from tests.utils.factories import login, product_photo_bytes
from tests.utils.jobs import credits_and_ledger, ledger_kinds, new_user, wait_job_status
from tests.utils.stack import Stack

pytestmark = pytest.mark.stack


async def _login_id(api: httpx.AsyncClient, user_id: uuid.UUID) -> dict[str, str]:
    with session_factory()() as session:
        email = session.execute(select(Profile.email).where(Profile.id == user_id)).scalar_one()
    return await login(api, email, "segreto123")


def _png(colour: tuple[int, int, int]) -> bytes:
    buf = io.BytesIO()
    Image.new("RGB", (200, 150), colour).save(buf, "PNG")
    return buf.getvalue()


async def _page(api: httpx.AsyncClient, client: dict[str, str], **params: str) -> dict:
    resp = await api.get("/api/photos", headers=client, params=params)
    assert resp.status_code == 200, resp.text
    return dict(resp.json())


async def _designer_delivers(
    api: httpx.AsyncClient, designer: dict[str, str], job_id: str, png: bytes
) -> None:
    assert (await api.post(f"/api/designer/jobs/{job_id}/assign-to-me", headers=designer)).status_code == 200
    assert (await api.post(f"/api/designer/jobs/{job_id}/start", headers=designer)).status_code == 200
    resp = await api.post(
        f"/api/designer/jobs/{job_id}/complete", headers=designer, files={"file": ("r.png", png, "image/png")}
    )
    assert resp.status_code == 200, resp.text


async def test_designer_delivery_gets_one_free_rework_and_a_rejected_rework_leaves_it_delivered(
    stack: Stack, api: httpx.AsyncClient
) -> None:
    sessions = session_factory()
    client_id, designer_id = new_user(sessions), new_user(sessions, role=UserRole.graphic)
    client, designer = await _login_id(api, client_id), await _login_id(api, designer_id)
    resp = await api.post(
        "/api/photos",
        headers=client,
        data={"job_type": "background_removal_human"},
        files=[("files", ("borsa.jpg", product_photo_bytes((200, 150)), "image/jpeg"))],
    )
    assert resp.status_code == 201, resp.text
    pid, paid = resp.json()[0]["id"], resp.json()[0]["jobs"][0]["id"]
    assert resp.json()[0]["can_rework"] is False  # nothing delivered yet
    await wait_job_status(sessions, paid, {"pending_human"})
    delivered = _png((250, 250, 250))
    await _designer_delivers(api, designer, paid, delivered)
    await wait_job_status(sessions, paid, {"completed_human"})

    photo = (await _page(api, client))["items"][0]
    assert photo["id"] == pid and photo["can_rework"] is True and photo["shown_job_id"] == paid

    resp = await api.post(f"/api/photos/{pid}/rework", headers=client, json={"notes": "ombra più morbida"})
    assert resp.status_code == 200, resp.text
    rework = resp.json()["jobs"][-1]["id"]
    assert resp.json()["can_rework"] is False and resp.json()["shown_job_id"] == rework
    again = await api.post(f"/api/photos/{pid}/rework", headers=client, json={})
    assert again.status_code == 409 and again.json()["code"] == "rework_already_requested"
    await wait_job_status(sessions, rework, {"pending_human"})
    assert (await api.post(f"/api/designer/jobs/{rework}/assign-to-me", headers=designer)).status_code == 200
    assert (await api.post(f"/api/designer/jobs/{rework}/start", headers=designer)).status_code == 200
    reason = "Il ritocco consegnato è già corretto"
    resp = await api.post(f"/api/designer/jobs/{rework}/reject", headers=designer, json={"notes": reason})
    assert resp.status_code == 200, resp.text
    await wait_job_status(sessions, rework, {"rejected_human"})

    page = await _page(api, client)
    photo = page["items"][0]
    # what the seller has: the designer's delivery, downloadable; the rejected rework is a note
    assert photo["status"] == "processed" and photo["shown_job_id"] == paid
    assert next(j for j in photo["jobs"] if j["id"] == rework)["error_message"] == reason
    counts = page["counts"]
    assert (counts["completed"], counts["failed"], counts["rejected"]) == (1, 0, 0)
    assert [p["id"] for p in (await _page(api, client, status="completed"))["items"]] == [pid]
    assert (await _page(api, client, status="failed"))["items"] == []
    download = await api.get(f"/api/photos/{pid}/download", headers=client)
    assert download.status_code == 200 and download.content == delivered

    order = next(
        o for o in (await api.get("/api/orders", headers=client)).json() if o["id"] == photo["order_id"]
    )
    assert order["rejected_photos"] == 0 and order["failed_photos"] == 0 and order["downloadable_photos"] == 1
    assert credits_and_ledger(sessions, client_id) == (12, 12)  # the paid designer job only
    assert ledger_kinds(sessions, rework) == ["reserve", "release"]


async def test_a_designer_delivery_is_reworked_free_within_seven_days_only(
    stack: Stack, api: httpx.AsyncClient
) -> None:
    sessions = session_factory()
    client_id, designer_id = new_user(sessions), new_user(sessions, role=UserRole.graphic)
    client, designer = await _login_id(api, client_id), await _login_id(api, designer_id)
    ids = []
    for name in ("vaso.jpg", "lampada.jpg"):
        resp = await api.post(
            "/api/photos",
            headers=client,
            data={"job_type": "background_removal_human"},
            files=[("files", (name, product_photo_bytes((200, 150)), "image/jpeg"))],
        )
        assert resp.status_code == 201, resp.text
        ids.append((resp.json()[0]["id"], resp.json()[0]["jobs"][0]["id"]))
    for _, job in ids:
        await wait_job_status(sessions, job, {"pending_human"})
        await _designer_delivers(api, designer, job, _png((240, 240, 240)))
        await wait_job_status(sessions, job, {"completed_human"})

    # the second delivery is eight days old: the window is over
    (late_photo, late_job) = ids[1]
    with sessions.begin() as session:
        session.get_one(PhotoProcessingJob, uuid.UUID(late_job)).completed_at = datetime.now(UTC) - timedelta(
            days=8
        )
    resp = await api.post(f"/api/photos/{late_photo}/rework", headers=client, json={})
    assert resp.status_code == 409 and resp.json()["code"] == "rework_expired"
    assert "entro 7 giorni" in resp.json()["detail"]

    pid, _ = ids[0]
    resp = await api.post(f"/api/photos/{pid}/rework", headers=client, json={"notes": "più luce"})
    assert resp.status_code == 200, resp.text
    rework = resp.json()["jobs"][-1]
    assert rework["job_type"] == "background_removal_human" and rework["client_notes"] == "più luce"
    await wait_job_status(sessions, rework["id"], {"pending_human"})
    redone = _png((255, 255, 255))
    await _designer_delivers(api, designer, rework["id"], redone)
    await wait_job_status(sessions, rework["id"], {"completed_human"})
    download = await api.get(f"/api/photos/{pid}/download", headers=client)
    assert download.status_code == 200 and download.content == redone
    photo = next(p for p in (await _page(api, client))["items"] if p["id"] == pid)
    assert photo["can_rework"] is False and photo["shown_job_id"] == rework["id"]  # once per photo
    assert credits_and_ledger(sessions, client_id) == (9, 9)  # two paid designer jobs, the rework free
    assert ledger_kinds(sessions, rework["id"]) == ["reserve", "charge"]

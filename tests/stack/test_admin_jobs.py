"""Admin and designer tools on the real stack: the Italian job timeline with its Temporal UI link,
the job search by e-mail, photo name, status and date with server-side pages and sorting, paginated
sortable users, and for designers the thumbnails of their queue and the notification of an admin's
assignment."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta

import httpx
import pytest
from sqlalchemy import select

from fotopronta.db import session_factory, session_scope
from fotopronta.domain import UserRole
from fotopronta.models import Profile
from tests.stack.test_admin_history import upload, wait_job
from tests.utils.factories import login, make_user, product_photo_bytes
from tests.utils.jobs import wait_job_status
from tests.utils.stack import Stack

pytestmark = pytest.mark.stack


@pytest.fixture
async def admin(api: httpx.AsyncClient) -> dict[str, str]:
    email, password = make_user(role=UserRole.admin)
    return await login(api, email, password)


async def human_job(api: httpx.AsyncClient, client: dict[str, str], name: str = "borsa.jpg") -> str:
    resp = await api.post(
        "/api/photos",
        headers=client,
        data={"job_type": "background_removal_human", "client_notes": "sfondo bianco"},
        files=[("files", (name, product_photo_bytes((200, 150)), "image/jpeg"))],
    )
    assert resp.status_code == 201, resp.text
    job_id = str(resp.json()[0]["jobs"][0]["id"])
    await wait_job_status(session_factory(), job_id, {"pending_human"})
    return job_id


async def test_timeline_of_a_delivered_ai_job(
    stack: Stack, api: httpx.AsyncClient, admin: dict[str, str]
) -> None:
    email, password = make_user()
    owner = await login(api, email, password)
    job_id = await upload(api, owner, "tazza.jpg", product_photo_bytes((200, 150)))
    await wait_job(api, owner, job_id, {"completed"})

    resp = await api.get(f"/api/admin/jobs/{job_id}/timeline", headers=admin)
    assert resp.status_code == 200, resp.text
    body = resp.json()
    assert body["workflow_id"] == f"photo-job-{job_id}" and body["workflow_status"] == "RUNNING"
    assert body["run_id"] and body["temporal_url"].endswith(
        f"/namespaces/default/workflows/photo-job-{job_id}/{body['run_id']}/history"
    )
    assert body["temporal_url"].startswith(stack.settings.temporal_ui_base)
    labels = [s["label"] for s in body["steps"]]
    assert labels[:6] == [
        "Avvio del flusso",
        "Prenotazione crediti",
        "Inizio elaborazione",
        "Ritocco AI",
        "Addebito crediti",
        "Consegna",
    ]
    assert labels[-1] == "Attesa prima della cancellazione dei file"
    retouch = body["steps"][3]
    assert retouch["outcome"] == "ok" and retouch["detail"] == "tentativo 1/3 riuscito"
    assert retouch["duration_ms"] >= 0 and retouch["ended_at"] >= retouch["started_at"]
    assert body["retries"] == 0 and body["failures"] == 0

    assert (await api.get(f"/api/admin/jobs/{job_id}/timeline", headers=owner)).status_code == 403
    missing = await api.get(f"/api/admin/jobs/{uuid.uuid4()}/timeline", headers=admin)
    assert missing.status_code == 404 and missing.json()["code"] == "job_not_found"


async def test_timeline_of_a_human_job_names_the_designer_and_the_deadline(
    stack: Stack, api: httpx.AsyncClient, admin: dict[str, str]
) -> None:
    email, password = make_user()
    client = await login(api, email, password)
    job_id = await human_job(api, client)
    designer_email, designer_password = make_user(role=UserRole.graphic, first_name="Marco")
    designer = await login(api, designer_email, designer_password)
    with session_scope() as session:
        designer_id = session.execute(select(Profile.id).where(Profile.email == designer_email)).scalar_one()

    resp = await api.post(
        f"/api/admin/jobs/{job_id}/assign", headers=admin, json={"designer_id": str(designer_id)}
    )
    assert resp.status_code == 200, resp.text
    body = (await api.get(f"/api/admin/jobs/{job_id}/timeline", headers=admin)).json()
    assign = next(s for s in body["steps"] if s["kind"] == "assign_job")
    assert assign["label"].startswith("Assegnazione a Marco") and assign["outcome"] == "ok"
    assert ", scadenza " in assign["detail"]
    deadline = next(s for s in body["steps"] if s["label"] == "Scadenza dell'assegnazione (72 ore)")
    assert deadline["outcome"] == "waiting" and deadline["detail"].startswith("prevista il ")

    # the designer is notified of the assignment (bell; the events bus carries the row)
    notes = (await api.get("/api/notifications", headers=designer)).json()
    mine = [n for n in notes if n["related_job_id"] == job_id]
    assert len(mine) == 1 and mine[0]["title"] == "Nuovo lavoro assegnato"
    assert "borsa.jpg" in mine[0]["message"] and "da consegnare entro il" in mine[0]["message"]


async def test_designer_thumbnails_follow_the_queue_rules(
    stack: Stack, api: httpx.AsyncClient, admin: dict[str, str]
) -> None:
    email, password = make_user()
    client = await login(api, email, password)
    pool_job = await human_job(api, client, "pool.jpg")
    taken_job = await human_job(api, client, "presa.jpg")
    first = await login(api, *make_user(role=UserRole.graphic))
    second = await login(api, *make_user(role=UserRole.graphic))
    assert (await api.post(f"/api/designer/jobs/{taken_job}/assign-to-me", headers=first)).status_code == 200

    for headers, job_id, expected in [
        (first, pool_job, 200),  # the pool
        (first, taken_job, 200),  # one's own
        (second, pool_job, 200),
        (second, taken_job, 404),  # another designer's job
        (admin, taken_job, 200),
        (client, pool_job, 403),
    ]:
        resp = await api.get(f"/api/designer/jobs/{job_id}/thumbnail", headers=headers, params={"size": 128})
        assert resp.status_code == expected, (job_id, expected, resp.text)
        if expected == 200:
            assert resp.headers["content-type"] == "image/jpeg" and resp.content[:2] == b"\xff\xd8"


async def test_job_search_filters_pages_and_sorts(
    stack: Stack, api: httpx.AsyncClient, admin: dict[str, str]
) -> None:
    tag = uuid.uuid4().hex[:8]
    email, password = make_user(email=f"cerca-{tag}@example.it")
    owner = await login(api, email, password)
    ids = [await upload(api, owner, f"{tag}-{n}.jpg", product_photo_bytes((64, 48))) for n in ("b", "a", "c")]
    for job_id in ids:
        await wait_job(api, owner, job_id, {"completed"})

    async def search(**params: object) -> dict:
        resp = await api.get("/api/admin/jobs", headers=admin, params={"page": 1, **params})
        assert resp.status_code == 200, resp.text
        return dict(resp.json())

    by_email = await search(q=f"CERCA-{tag}")
    assert by_email["total"] == 3 and by_email["page"] == 1 and by_email["size"] == 20
    assert {j["id"] for j in by_email["items"]} == set(ids)
    assert all(j["user_email"] == email and j["job_type"] == "background_removal" for j in by_email["items"])
    assert (await search(q=f"{tag}-a"))["items"][0]["original_filename"] == f"{tag}-a.jpg"
    assert (await search(q=tag, status="failed"))["total"] == 0
    assert (await search(q=tag, status="completed"))["total"] == 3
    today = datetime.now(UTC).date()
    assert (
        await search(q=tag, date_from=str(today - timedelta(days=1)), date_to=str(today + timedelta(days=1)))
    )["total"] == 3
    assert (await search(q=tag, date_to=str(today - timedelta(days=2))))["total"] == 0
    assert (await search(q="%"))["total"] == 0  # LIKE wildcards are literal

    names = [j["original_filename"] for j in (await search(q=tag, sort="filename", order="asc"))["items"]]
    assert names == [f"{tag}-a.jpg", f"{tag}-b.jpg", f"{tag}-c.jpg"]
    page1 = await search(q=tag, sort="filename", order="desc", size=2)
    page2 = await search(q=tag, sort="filename", order="desc", size=2, page=2)
    assert page1["total"] == page2["total"] == 3
    assert [j["original_filename"] for j in page1["items"] + page2["items"]] == [
        f"{tag}-c.jpg",
        f"{tag}-b.jpg",
        f"{tag}-a.jpg",
    ]
    assert (await api.get("/api/admin/jobs", headers=admin, params={"page": 0})).status_code == 422
    assert (
        await api.get("/api/admin/jobs", headers=admin, params={"page": 1, "sort": "x"})
    ).status_code == 422
    assert (await api.get("/api/admin/jobs", headers=owner, params={"page": 1})).status_code == 403
    # without page: the pending human pool, as before
    assert isinstance((await api.get("/api/admin/jobs", headers=admin)).json(), list)


async def test_users_are_paginated_and_sortable(
    stack: Stack, api: httpx.AsyncClient, admin: dict[str, str]
) -> None:
    tag = uuid.uuid4().hex[:8]
    for n, credits in (("c", 3), ("a", 9), ("b", 1)):
        make_user(email=f"{n}-{tag}@pagine.it")
        with session_scope() as session:
            profile = session.execute(
                select(Profile).where(Profile.email == f"{n}-{tag}@pagine.it")
            ).scalar_one()
            profile.credits_remaining = credits

    async def page(**params: object) -> dict:
        resp = await api.get(
            "/api/admin/users", headers=admin, params={"q": tag, "page": 1, "size": 2, **params}
        )
        assert resp.status_code == 200, resp.text
        return dict(resp.json())

    first = await page(sort="email", order="asc")
    second = await page(sort="email", order="asc", page=2)
    assert first["total"] == 3 and len(first["items"]) == 2 and len(second["items"]) == 1
    assert [u["email"][0] for u in first["items"] + second["items"]] == ["a", "b", "c"]
    by_credits = await page(sort="credits_remaining", order="desc", size=3)
    assert [u["credits_remaining"] for u in by_credits["items"]] == [9, 3, 1]
    assert isinstance((await api.get("/api/admin/users", headers=admin, params={"q": tag})).json(), list)

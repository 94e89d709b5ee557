"""The human path on the real stack — assign (designer or admin, capacity and activity
checked), start, complete with the result file or reject, ownership enforced on every action."""

from __future__ import annotations

import io
import uuid

import httpx
import pytest
from PIL import Image
from sqlalchemy import select

from fotopronta.db import session_factory
from fotopronta.domain import JobErrorCode, UserRole
from fotopronta.models import Notification, Profile
from tests.utils.factories import login, product_photo_bytes
from tests.utils.histories import maybe_record
from tests.utils.jobs import credits_and_ledger, job_row, ledger_kinds, new_user, wait_job_status
from tests.utils.stack import Stack

pytestmark = pytest.mark.stack


async def _login_id(api: httpx.AsyncClient, user_id: uuid.UUID) -> dict[str, str]:
    with session_factory()() as session:
        email = session.execute(select(Profile.email).where(Profile.id == user_id)).scalar_one()
    return await login(api, email, "segreto123")


async def _human_job(
    api: httpx.AsyncClient, client: dict[str, str], notes: str = "sfondo bianco, niente ombra"
) -> dict:
    resp = await api.post(
        "/api/photos",
        headers=client,
        data={"job_type": "background_removal_human", "client_notes": notes},
        files=[("files", ("borsa.jpg", product_photo_bytes((200, 150)), "image/jpeg"))],
    )
    assert resp.status_code == 201, resp.text
    job = resp.json()[0]["jobs"][0]
    await wait_job_status(session_factory(), job["id"], {"pending_human"})
    return job


def _png(size: tuple[int, int] = (200, 150)) -> bytes:
    buf = io.BytesIO()
    Image.new("RGB", size, (255, 255, 255)).save(buf, "PNG")
    return buf.getvalue()


async def test_designer_completes_own_job_and_others_cannot(stack: Stack, api: httpx.AsyncClient) -> None:
    sessions = session_factory()
    client_id = new_user(sessions)
    alice_id, bob_id = new_user(sessions, role=UserRole.graphic), new_user(sessions, role=UserRole.graphic)
    client = await _login_id(api, client_id)
    alice = await _login_id(api, alice_id)
    bob = await _login_id(api, bob_id)
    job = await _human_job(api, client)
    jid = job["id"]
    assert credits_and_ledger(sessions, client_id) == (12, 12)  # 3 credits reserved

    queue = (await api.get("/api/designer/jobs", headers=alice)).json()
    assert any(j["id"] == jid and j["client_notes"] == "sfondo bianco, niente ombra" for j in queue)
    resp = await api.post(f"/api/designer/jobs/{jid}/assign-to-me", headers=alice)
    assert resp.status_code == 200, resp.text
    assert resp.json()["status"] == "assigned_to_graphic" and resp.json()["deadline"]
    # taken: Bob cannot take it, and cannot act on Alice's job
    assert (await api.post(f"/api/designer/jobs/{jid}/assign-to-me", headers=bob)).status_code == 409
    assert (await api.post(f"/api/designer/jobs/{jid}/start", headers=bob)).status_code == 403
    assert (await api.get(f"/api/designer/jobs/{jid}/original", headers=bob)).status_code == 403
    assert all(j["id"] != jid for j in (await api.get("/api/designer/jobs", headers=bob)).json())

    resp = await api.post(f"/api/designer/jobs/{jid}/start", headers=alice)
    assert (
        resp.status_code == 200 and resp.json()["status"] == "in_progress_human" and resp.json()["started_at"]
    )
    assert (await api.get(f"/api/designer/jobs/{jid}/original", headers=alice)).status_code == 200
    png = _png()
    assert (
        await api.post(
            f"/api/designer/jobs/{jid}/complete", headers=bob, files={"file": ("r.png", png, "image/png")}
        )
    ).status_code == 403
    assert (
        await api.post(f"/api/designer/jobs/{jid}/reject", headers=bob, json={"notes": "non è un mio lavoro"})
    ).status_code == 403

    # SPEC §5 result checks
    resp = await api.post(
        f"/api/designer/jobs/{jid}/complete", headers=alice, files={"file": ("r.gif", b"GIF89a", "image/gif")}
    )
    assert resp.status_code == 400 and resp.json()["detail"] == "Sono ammessi solo file JPG, PNG e WebP"
    assert resp.json()["title"] == "Formato non supportato"
    resp = await api.post(
        f"/api/designer/jobs/{jid}/complete",
        headers=alice,
        files={"file": ("r.png", png + bytes(10 * 1024 * 1024), "image/png")},
    )
    assert resp.status_code == 400 and resp.json()["detail"] == "Il file deve essere inferiore a 10MB"
    assert resp.json()["title"] == "File troppo grande"

    resp = await api.post(
        f"/api/designer/jobs/{jid}/complete",
        headers=alice,
        data={"notes": "ombra rimossa"},
        files={"file": ("r.png", png, "image/png")},
    )
    assert resp.status_code == 200, resp.text
    assert resp.json()["status"] == "completed_human"
    # 'Completati': in Alice's history (not in her queue), not in Bob's
    history = (await api.get("/api/designer/history", headers=alice)).json()
    assert [j["id"] for j in history] == [jid] and history[0]["completed_at"]
    assert all(j["id"] != jid for j in (await api.get("/api/designer/jobs", headers=alice)).json())
    assert (await api.get("/api/designer/history", headers=bob)).json() == []
    assert (await api.get("/api/designer/history", headers=client)).status_code == 403
    photos = (await api.get("/api/photos", headers=client)).json()["items"]
    photo = next(p for p in photos if p["jobs"][-1]["id"] == jid)
    assert photo["status"] == "processed"
    done = photo["jobs"][-1]
    assert (
        done["progress_percentage"] == 100
        and done["completed_at"]
        and done["graphic_notes"] == "ombra rimossa"
    )
    resp = await api.get(f"/api/photos/{photo['id']}/download", headers=client)
    assert resp.status_code == 200 and resp.content == png
    assert credits_and_ledger(sessions, client_id) == (12, 12)
    assert ledger_kinds(sessions, jid) == ["reserve", "charge"]
    with sessions() as session:
        note = session.execute(
            select(Notification).where(
                Notification.related_job_id == uuid.UUID(jid), Notification.user_id == client_id
            )
        ).scalar_one()
        assert note.type == "success"
    await maybe_record(stack.temporal.get_workflow_handle(f"photo-job-{jid}"), "human-completed")


async def test_reject_releases_credits_and_warns_with_reason(stack: Stack, api: httpx.AsyncClient) -> None:
    sessions = session_factory()
    client_id, designer_id = new_user(sessions), new_user(sessions, role=UserRole.graphic)
    client, designer = await _login_id(api, client_id), await _login_id(api, designer_id)
    jid = (await _human_job(api, client))["id"]
    assert (await api.post(f"/api/designer/jobs/{jid}/assign-to-me", headers=designer)).status_code == 200
    # reject before start is refused by the workflow
    resp = await api.post(
        f"/api/designer/jobs/{jid}/reject", headers=designer, json={"notes": "foto sfocata"}
    )
    assert resp.status_code == 409 and resp.json()["title"] == "Impossibile rifiutare il lavoro"
    assert (await api.post(f"/api/designer/jobs/{jid}/start", headers=designer)).status_code == 200
    reason = "Foto sfocata: serve uno scatto più grande."
    resp = await api.post(f"/api/designer/jobs/{jid}/reject", headers=designer, json={"notes": reason})
    assert resp.status_code == 200 and resp.json()["status"] == "rejected_human"
    job = job_row(sessions, jid)
    assert (job.error_message, job.error_code) == (reason, JobErrorCode.rejected)
    assert credits_and_ledger(sessions, client_id) == (15, 15)
    assert ledger_kinds(sessions, jid) == ["reserve", "release"]
    with sessions() as session:
        note = session.execute(
            select(Notification).where(Notification.related_job_id == uuid.UUID(jid))
        ).scalar_one()
        assert note.type == "warning"
        # the reason's own full stop ends the sentence: no 'più grande.. I crediti'
        assert f"Motivo: {reason} I crediti riservati ti sono stati restituiti." in note.message
        assert ".." not in note.message
    await maybe_record(stack.temporal.get_workflow_handle(f"photo-job-{jid}"), "human-rejected")


async def test_assignment_checks_capacity_and_activity(stack: Stack, api: httpx.AsyncClient) -> None:
    sessions = session_factory()
    client_id = new_user(sessions)
    busy_id = new_user(sessions, role=UserRole.graphic, max_concurrent_jobs=1)
    inactive_id = new_user(sessions, role=UserRole.graphic, is_active=False)
    admin_id = new_user(sessions, role=UserRole.admin)
    client = await _login_id(api, client_id)
    busy = await _login_id(api, busy_id)
    inactive = await _login_id(api, inactive_id)
    admin = await _login_id(api, admin_id)
    first, second = (await _human_job(api, client))["id"], (await _human_job(api, client))["id"]

    pool = (await api.get("/api/admin/jobs", headers=admin)).json()
    assert {first, second} <= {j["id"] for j in pool}
    resp = await api.post(
        f"/api/admin/jobs/{first}/assign", headers=admin, json={"designer_id": str(busy_id)}
    )
    assert resp.status_code == 200, resp.text
    # at max_concurrent_jobs (1): refused, by admin and by assign-to-me
    resp = await api.post(
        f"/api/admin/jobs/{second}/assign", headers=admin, json={"designer_id": str(busy_id)}
    )
    assert resp.status_code == 409 and "capacità" in resp.json()["detail"]
    assert resp.json()["title"] == "Errore nell'assegnazione del lavoro"
    assert (await api.post(f"/api/designer/jobs/{second}/assign-to-me", headers=busy)).status_code == 409
    # an inactive designer is treated as a client (SPEC §6) and cannot be assigned
    assert (await api.post(f"/api/designer/jobs/{second}/assign-to-me", headers=inactive)).status_code == 403
    resp = await api.post(
        f"/api/admin/jobs/{second}/assign", headers=admin, json={"designer_id": str(inactive_id)}
    )
    assert resp.status_code == 409 and resp.json()["detail"] == "Il grafico scelto non è attivo."
    # clients reach no designer or admin route
    for method, path in (
        ("GET", "/api/designer/jobs"),
        ("POST", f"/api/designer/jobs/{second}/assign-to-me"),
        ("POST", f"/api/designer/jobs/{first}/start"),
        ("GET", "/api/admin/jobs"),
        ("POST", f"/api/admin/jobs/{second}/assign"),
    ):
        resp = await api.request(method, path, headers=client, json={"designer_id": str(busy_id)})
        assert resp.status_code == 403, (method, path, resp.status_code)


async def test_free_rework_once_within_seven_days(stack: Stack, api: httpx.AsyncClient) -> None:
    sessions = session_factory()
    client_id, designer_id = new_user(sessions), new_user(sessions, role=UserRole.graphic)
    client, designer = await _login_id(api, client_id), await _login_id(api, designer_id)
    resp = await api.post(
        "/api/photos",
        headers=client,
        files=[("files", ("vaso.jpg", product_photo_bytes((160, 120)), "image/jpeg"))],
    )
    photo = resp.json()[0]
    await wait_job_status(sessions, photo["jobs"][0]["id"], {"completed"})
    assert credits_and_ledger(sessions, client_id) == (14, 14)

    resp = await api.post(
        f"/api/photos/{photo['id']}/rework", headers=client, json={"notes": "ombra più morbida"}
    )
    assert resp.status_code == 200, resp.text
    rework = resp.json()["jobs"][-1]
    assert rework["job_type"] == "background_removal_human" and rework["client_notes"] == "ombra più morbida"
    await wait_job_status(sessions, rework["id"], {"pending_human"})
    again = await api.post(f"/api/photos/{photo['id']}/rework", headers=client, json={})
    assert (
        again.status_code == 409
        and again.json()["detail"] == "Hai già chiesto la revisione gratuita di questa foto."
    )
    # the first result stays downloadable while the designers work
    assert (await api.get(f"/api/photos/{photo['id']}/download", headers=client)).status_code == 200

    assert (
        await api.post(f"/api/designer/jobs/{rework['id']}/assign-to-me", headers=designer)
    ).status_code == 200
    assert (await api.post(f"/api/designer/jobs/{rework['id']}/start", headers=designer)).status_code == 200
    resp = await api.post(
        f"/api/designer/jobs/{rework['id']}/complete",
        headers=designer,
        files={"file": ("r.png", _png(), "image/png")},
    )
    assert resp.status_code == 200, resp.text
    assert credits_and_ledger(sessions, client_id) == (14, 14)  # the rework costs nothing
    assert ledger_kinds(sessions, rework["id"]) == ["reserve", "charge"]
    resp = await api.get(f"/api/photos/{photo['id']}/download", headers=client)
    assert resp.status_code == 200 and resp.headers["content-type"] == "image/png"

"""A day of real work on the real stack: the designer's note reaches the seller (card data, 'Foto
pronta' notification and e-mail), a rejection needs a reason, the counters and orders tell what
happened to each photo and its credits, the admin timeline says until when a delivered job's files
are kept, the jobs tab filters the results the overview flags, and staff accounts are not sellers."""

from __future__ import annotations

import io
import uuid
from datetime import timedelta

import httpx
import pytest
from PIL import Image
from sqlalchemy import select

from fotopronta.db import session_factory
from fotopronta.domain import UserRole
from fotopronta.models import EmailOutbox, Notification, PhotoProcessingJob, Profile
from tests.utils.factories import login, make_user, product_photo_bytes
from tests.utils.jobs import credits_and_ledger, new_user, wait_job_status
from tests.utils.stack import Stack

pytestmark = pytest.mark.stack

NOTE = "Riflesso rimosso dal vetro, colori ritoccati"
REASON = "La foto è troppo sfocata per scontornarla"


async def _login_id(api: httpx.AsyncClient, user_id: uuid.UUID) -> dict[str, str]:
    with session_factory()() as session:
        email = session.execute(select(Profile.email).where(Profile.id == user_id)).scalar_one()
    return await login(api, email, "segreto123")


def _png() -> bytes:
    buf = io.BytesIO()
    Image.new("RGB", (200, 150), (255, 255, 255)).save(buf, "PNG")
    return buf.getvalue()


async def _started_human_job(
    api: httpx.AsyncClient, client: dict[str, str], designer: dict[str, str], name: str
) -> tuple[str, str]:
    """Upload one photo for the designers, take and start it; returns ``(job id, order id)``."""
    resp = await api.post(
        "/api/photos",
        headers=client,
        data={"job_type": "background_removal_human"},
        files=[("files", (name, product_photo_bytes((200, 150)), "image/jpeg"))],
    )
    assert resp.status_code == 201, resp.text
    jid, order_id = resp.json()[0]["jobs"][0]["id"], resp.json()[0]["order_id"]
    await wait_job_status(session_factory(), jid, {"pending_human"})
    assert (await api.post(f"/api/designer/jobs/{jid}/assign-to-me", headers=designer)).status_code == 200
    assert (await api.post(f"/api/designer/jobs/{jid}/start", headers=designer)).status_code == 200
    return jid, order_id


async def test_note_reaches_the_seller_and_a_rejection_needs_a_reason(
    stack: Stack, api: httpx.AsyncClient
) -> None:
    sessions = session_factory()
    client_id, designer_id = new_user(sessions), new_user(sessions, role=UserRole.graphic)
    client, designer = await _login_id(api, client_id), await _login_id(api, designer_id)
    admin = await login(api, *make_user(role=UserRole.admin))

    # the note to the client: on the job (the card), in the notification and in the e-mail
    done, done_order = await _started_human_job(api, client, designer, "vetrina.jpg")
    resp = await api.post(
        f"/api/designer/jobs/{done}/complete",
        headers=designer,
        data={"notes": f"  {NOTE}  "},
        files={"file": ("r.png", _png(), "image/png")},
    )
    assert resp.status_code == 200, resp.text
    photos = (await api.get("/api/photos", headers=client)).json()
    card = next(p for p in photos["items"] if p["jobs"][-1]["id"] == done)
    assert card["jobs"][-1]["graphic_notes"] == NOTE
    with sessions() as session:
        note = session.execute(
            select(Notification).where(Notification.related_job_id == uuid.UUID(done))
        ).scalar_one()
        assert note.title == "Foto pronta" and f"Nota del grafico: {NOTE}" in note.message
        seller_email = session.get_one(Profile, client_id).email
        mails = (
            session.execute(select(EmailOutbox).where(EmailOutbox.to_address == seller_email)).scalars().all()
        )
    ready = [m for m in mails if m.subject == "Foto pronta: vetrina.jpg"]
    assert len(ready) == 1 and NOTE in ready[0].text and ready[0].links[0].endswith("/photos")

    # a rejection without a reason (or with a word or two of nothing) is refused and changes nothing
    rejected, rejected_order = await _started_human_job(api, client, designer, "sfocata.jpg")
    for notes in (None, "", "   ", "no"):
        resp = await api.post(
            f"/api/designer/jobs/{rejected}/reject", headers=designer, json={"notes": notes}
        )
        assert resp.status_code == 400, resp.text
        body = resp.json()
        assert body["code"] == "reason_required" and body["title"] == "Impossibile rifiutare il lavoro"
        assert "motivo del rifiuto" in body["detail"]
    # a reason must be words: not a symbol name nor a row of digits
    for notes in ("__main__", "999999999999", "!!! ??? ...", "a1 b2 c3 d4"):
        resp = await api.post(
            f"/api/designer/jobs/{rejected}/reject", headers=designer, json={"notes": notes}
        )
        assert resp.status_code == 400, (notes, resp.text)
        assert resp.json()["code"] == "reason_without_words"
        assert "a parole" in resp.json()["detail"]
    with sessions() as session:
        assert session.get_one(PhotoProcessingJob, uuid.UUID(rejected)).status == "in_progress_human"
    resp = await api.post(f"/api/designer/jobs/{rejected}/reject", headers=designer, json={"notes": REASON})
    assert resp.status_code == 200 and resp.json()["status"] == "rejected_human"
    with sessions() as session:
        warning = session.execute(
            select(Notification).where(Notification.related_job_id == uuid.UUID(rejected))
        ).scalar_one()
        assert f"Motivo: {REASON}." in warning.message and "nessun motivo" not in warning.message

    # counters: the rejected photo is not 'In Coda'; a photo waiting for a designer is
    queued_resp = await api.post(
        "/api/photos",
        headers=client,
        data={"job_type": "background_removal_human"},
        files=[("files", ("attesa.jpg", product_photo_bytes((200, 150)), "image/jpeg"))],
    )
    await wait_job_status(sessions, queued_resp.json()[0]["jobs"][0]["id"], {"pending_human"})
    counts = (await api.get("/api/photos", headers=client)).json()["counts"]
    assert counts["total"] == 3 and counts["processed"] == 1
    assert counts["queued"] == 1 and counts["rejected"] == 1 and counts["designer_queue"] == 1

    # orders: outcome per photo, the credits actually spent and refunded, nothing to download
    orders = {o["id"]: o for o in (await api.get("/api/orders", headers=client)).json()}
    gone = orders[rejected_order]
    assert gone["status"] == "completed" and gone["total_amount"] == 3
    assert gone["rejected_photos"] == 1 and gone["downloadable_photos"] == 0 and gone["processed_photos"] == 0
    assert gone["credits_reserved"] == 3 and gone["credits_refunded"] == 3 and gone["credits_spent"] == 0
    delivered = orders[done_order]
    assert delivered["downloadable_photos"] == 1 and delivered["credits_spent"] == 3
    assert delivered["credits_refunded"] == 0 and delivered["rejected_photos"] == 0
    detail = (await api.get(f"/api/orders/{rejected_order}", headers=client)).json()
    assert detail["credits_spent"] == 0 and detail["rejected_photos"] == 1
    assert detail["photos"][0]["jobs"][-1]["error_message"] == REASON
    assert (await api.get(f"/api/orders/{rejected_order}/download", headers=client)).status_code == 409
    assert credits_and_ledger(sessions, client_id) == (9, 9)  # 15 − 3 delivered − 3 held by the queued one

    # the admin timeline of the delivered job: kept until completion + 30 days
    timeline = (await api.get(f"/api/admin/jobs/{done}/timeline", headers=admin)).json()
    assert timeline["workflow_status"] == "RUNNING" and timeline["job_status"] == "completed_human"
    with sessions() as session:
        completed_at = session.get_one(PhotoProcessingJob, uuid.UUID(done)).completed_at
    assert completed_at is not None
    kept = timeline["files_kept_until"]
    assert kept is not None and kept.startswith((completed_at + timedelta(days=30)).date().isoformat())
    waiting = (
        await api.get(f"/api/admin/jobs/{queued_resp.json()[0]['jobs'][0]['id']}/timeline", headers=admin)
    ).json()
    assert waiting["files_kept_until"] is None


async def test_needs_review_filter_matches_the_overview(stack: Stack, api: httpx.AsyncClient) -> None:
    sessions = session_factory()
    client = await login(api, *make_user())
    admin = await login(api, *make_user(role=UserRole.admin))
    resp = await api.post(
        "/api/photos",
        headers=client,
        files=[
            ("files", (f"{n}.jpg", product_photo_bytes((160, 120)), "image/jpeg"))
            for n in ("dubbia", "sicura")
        ],
    )
    assert resp.status_code == 201, resp.text
    ids = {p["original_filename"]: p["jobs"][0]["id"] for p in resp.json()}
    for jid in ids.values():
        await wait_job_status(sessions, jid, {"completed"})
    with sessions.begin() as session:
        for name, flagged in (("dubbia.jpg", True), ("sicura.jpg", False)):
            job = session.get_one(PhotoProcessingJob, uuid.UUID(ids[name]))
            job.processing_details = {**(job.processing_details or {}), "needs_review": flagged}
    overview = (await api.get("/api/admin/overview", headers=admin)).json()
    page = (
        await api.get(
            "/api/admin/jobs", headers=admin, params={"page": 1, "size": 100, "needs_review": "true"}
        )
    ).json()
    assert page["total"] == overview["jobs_needing_review"] >= 1
    names = {j["original_filename"] for j in page["items"]}
    assert "dubbia.jpg" in names and "sicura.jpg" not in names


async def test_staff_accounts_are_not_sellers(stack: Stack, api: httpx.AsyncClient) -> None:
    sessions = session_factory()
    client_id = new_user(sessions)
    designer_id, admin_id = new_user(sessions, role=UserRole.graphic), new_user(sessions, role=UserRole.admin)
    assert credits_and_ledger(sessions, client_id) == (15, 15)
    assert credits_and_ledger(sessions, designer_id) == (0, 0)
    assert credits_and_ledger(sessions, admin_id) == (0, 0)

    designer, admin = await _login_id(api, designer_id), await _login_id(api, admin_id)
    upload = [("files", ("scarpa.jpg", product_photo_bytes((160, 120)), "image/jpeg"))]
    resp = await api.post("/api/photos", headers=designer, files=upload)
    assert resp.status_code == 403 and resp.json()["code"] == "seller_only"
    for path in ("/api/photos", "/api/orders", "/api/credits/purchases", "/api/credit-packages"):
        resp = await api.get(path, headers=designer)
        assert resp.status_code == 403 and resp.json()["code"] == "seller_only", path
    resp = await api.post("/api/payments/checkout", headers=designer, json={"package_id": str(uuid.uuid4())})
    assert resp.status_code == 403
    # the designer's own pages still answer
    assert (await api.get("/api/designer/jobs", headers=designer)).status_code == 200
    assert (await api.get("/api/me", headers=designer)).json()["credits_remaining"] == 0
    # the admin's 'assign missing free credits' is for clients only
    resp = await api.post("/api/admin/users/assign-missing-free-credits", headers=admin)
    assert resp.status_code == 200 and str(designer_id) not in resp.json()["user_ids"]
    assert str(admin_id) not in resp.json()["user_ids"]
    assert credits_and_ledger(sessions, designer_id) == (0, 0)
    # SPEC §2, §6: admins keep the client area (with no free credits)
    assert (await api.get("/api/photos", headers=admin)).status_code == 200
    assert (await api.get("/api/orders", headers=admin)).status_code == 200


async def test_batch_keeps_the_good_files_and_names_each_bad_one(
    stack: Stack, api: httpx.AsyncClient
) -> None:
    sessions = session_factory()
    client_id = new_user(sessions)
    client = await _login_id(api, client_id)
    files = [
        ("files", ("scarpa.jpg", product_photo_bytes((160, 120)), "image/jpeg")),
        ("files", ("appunti.jpg", b"non sono una foto", "image/jpeg")),
        ("files", ("vuota.png", b"", "image/png")),
        ("files", ("borsa.jpg", product_photo_bytes((160, 120)), "image/jpeg")),
    ]
    resp = await api.post("/api/photos/batch", headers=client, files=files)
    assert resp.status_code == 201, resp.text
    body = resp.json()
    assert [p["original_filename"] for p in body["photos"]] == ["scarpa.jpg", "borsa.jpg"]
    assert len({p["order_id"] for p in body["photos"]}) == 1
    assert body["rejected"] == [
        {
            "index": 1,
            "filename": "appunti.jpg",
            "code": "unsupported_type",
            "title": "Alcuni file ignorati",
            "detail": "Solo le immagini sono supportate",
        },
        {
            "index": 2,
            "filename": "vuota.png",
            "code": "empty_file",
            "title": "Errore upload",
            "detail": "Impossibile caricare vuota.png: il file è vuoto.",
        },
    ]
    orders = (await api.get("/api/orders", headers=client)).json()
    assert len(orders) == 1 and orders[0]["total_photos"] == 2 and orders[0]["total_amount"] == 2
    for photo in body["photos"]:
        await wait_job_status(sessions, photo["jobs"][0]["id"], {"completed"})
    assert credits_and_ledger(sessions, client_id) == (13, 13)  # the refused files cost nothing

    # only bad files: nothing stored, each one named
    resp = await api.post("/api/photos/batch", headers=client, files=[files[1]])
    assert resp.status_code == 200 and resp.json()["photos"] == []
    assert resp.json()["rejected"][0]["filename"] == "appunti.jpg"
    assert len((await api.get("/api/orders", headers=client)).json()) == 1
    # the all-or-nothing endpoint is unchanged for API clients
    resp = await api.post("/api/photos", headers=client, files=files[:2])
    assert resp.status_code == 400 and resp.json()["code"] == "unsupported_type"

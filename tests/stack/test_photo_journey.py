"""A seller's whole journey on the real stack: sign up, log in, upload two real photos, wait for the
workflows, download the results, and check credits; plus the bad-input cases."""

from __future__ import annotations

import asyncio
import io
import time
from urllib.parse import parse_qs, urlsplit

import httpx
import numpy as np
import pytest
from PIL import Image
from sqlalchemy import func, select

from fotopronta import ledger
from fotopronta.db import session_scope
from fotopronta.domain import JobErrorCode, UserRole
from fotopronta.models import CreditLedgerEntry, Notification, Photo, PhotoProcessingJob, Profile
from tests.utils.factories import (
    login,
    make_user,
    product_photo_bytes,
    shared_photo,
    undecodable_jpeg,
    unique_email,
)
from tests.utils.histories import maybe_record
from tests.utils.stack import Stack
from workflows.photo_job import PhotoJobWorkflow

pytestmark = pytest.mark.stack

JOURNEY_PHOTOS = ("lamp2_meitu_1.jpg", "Banana_Iconic.jpg")


async def wait_jobs(
    api: httpx.AsyncClient, headers: dict[str, str], n: int, *, timeout_s: float = 240
) -> list[dict]:
    """Poll ``GET /api/photos`` until ``n`` photos have a finished job (completed or failed)."""
    deadline = time.monotonic() + timeout_s
    while True:
        photos = (await api.get("/api/photos", headers=headers)).json()["items"]
        done = [p for p in photos if p["jobs"] and p["jobs"][-1]["status"] in ("completed", "failed")]
        if len(done) >= n:
            return photos
        assert time.monotonic() < deadline, f"jobs not finished: {[p['jobs'] for p in photos]}"
        await asyncio.sleep(0.5)


def storage_files(stack: Stack) -> set[str]:
    """Every object currently in local storage (relative paths)."""
    root = stack.storage_root
    return {str(p.relative_to(root)) for p in root.rglob("*") if p.is_file()} if root.exists() else set()


def balance_and_ledger(email: str) -> tuple[int, int, int]:
    """``(credits_remaining, ledger sum, ledger entries)`` of the user with ``email``."""
    with session_scope() as session:
        profile = session.execute(select(Profile).where(Profile.email == email)).scalar_one()
        entries = session.execute(
            select(func.count()).select_from(CreditLedgerEntry).where(CreditLedgerEntry.user_id == profile.id)
        ).scalar_one()
        return profile.credits_remaining, ledger.ledger_balance(session, profile.id), entries


async def test_signup_upload_two_photos_download_white_results(stack: Stack, api: httpx.AsyncClient) -> None:
    email = unique_email()
    resp = await api.post(
        "/api/auth/signup",
        json={"email": email, "password": "segreto123", "first_name": "Giulia", "last_name": "Bianchi"},
    )
    assert resp.status_code == 201, resp.text
    # confirm the account through the e-mailed link (development outbox), then log in
    mails = (await api.get("/api/dev/mail", params={"to": email})).json()
    link = next(u for m in mails for u in m["links"] if "token_hash=" in u)
    query = parse_qs(urlsplit(link).query)
    resp = await api.post("/api/auth/verify", json={"token_hash": query["token_hash"][0], "type": "signup"})
    assert resp.status_code == 200, resp.text
    headers = await login(api, email, "segreto123")
    assert (await api.get("/api/me", headers=headers)).json()["credits_remaining"] == 15

    files = []
    for name in JOURNEY_PHOTOS:
        found = shared_photo(name)
        if found is None:  # ../shared/photos absent: a synthetic product shot stands in
            found = (name, product_photo_bytes())
        files.append(("files", (found[0], found[1], "image/jpeg")))
    resp = await api.post("/api/photos", headers=headers, files=files)
    assert resp.status_code == 201, resp.text
    uploaded = resp.json()
    assert len(uploaded) == 2 and all(p["jobs"][0]["job_type"] == "background_removal" for p in uploaded)
    for p in uploaded:
        assert p["upload_path"].startswith(f"{p['user_id']}/")

    photos = await wait_jobs(api, headers, 2)
    for photo in photos:
        job = photo["jobs"][-1]
        assert job["status"] == "completed", job
        assert job["progress_percentage"] == 100 and job["completed_at"]
        assert photo["status"] == "processed"
        for fmt, kind in (("jpeg", "JPEG"), ("webp", "WEBP")):
            resp = await api.get(
                f"/api/photos/{photo['id']}/download", params={"format": fmt}, headers=headers
            )
            assert resp.status_code == 200, resp.text
            img = Image.open(io.BytesIO(resp.content))
            assert img.format == kind
            if kind == "JPEG":
                rgb = np.asarray(img.convert("RGB"))
                corners = [rgb[0, 0], rgb[0, -1], rgb[-1, 0], rgb[-1, -1]]
                assert all((c >= 254).all() for c in corners), corners

    me = (await api.get("/api/me", headers=headers)).json()
    assert me["credits_remaining"] == 13
    remaining, ledger_sum, _ = balance_and_ledger(email)
    assert remaining == ledger_sum == 13
    with session_scope() as session:
        notes = session.execute(select(Notification).where(Notification.user_id == me["id"])).scalars().all()
        assert len([n for n in notes if n.type == "success"]) == 2


async def test_upload_options_reach_the_retouch_pipeline(stack: Stack, api: httpx.AsyncClient) -> None:
    """The preset, the shadow switch and the SEO hints chosen at upload are what the retouch activity
    runs with: an ``amazon`` delivery is 2000 x 2000 with >= 85% fill, no shadow, and named after the
    brand, category and main colour (SPEC §3 ``processing_details``)."""
    email, password = make_user()
    headers = await login(api, email, password)
    # at Amazon's 1000 px minimum (a smaller photo keeps its own size: the test below)
    resp = await api.post(
        "/api/photos",
        headers=headers,
        files=[("files", ("prodotto.jpg", product_photo_bytes((1200, 900)), "image/jpeg"))],
        data={"preset": "amazon", "shadow": "false", "brand": "Ciàò Frutta", "category": "Banane bio"},
    )
    assert resp.status_code == 201, resp.text
    photo = (await wait_jobs(api, headers, 1))[0]
    job = photo["jobs"][-1]
    assert job["status"] == "completed", job
    details = job["processing_details"]
    assert details["preset"] == "amazon" and details["shadow"] is False
    assert details["brand"] == "Ciàò Frutta" and details["category"] == "Banane bio"
    short_id = job["id"][:8]
    assert details["seo_filename"].startswith("ciao-frutta-banane-bio-")
    assert details["seo_filename"].endswith(f"-{short_id}.jpg"), details["seo_filename"]
    rules = details["compliance"]["rules"]
    assert details["compliance"]["passed"] and rules["fill_ratio"]["value"] >= 0.85, rules
    assert details["bytes_saved"] == details["bytes_in"] - details["bytes_out_jpeg"]
    resp = await api.get(f"/api/photos/{photo['id']}/download", params={"format": "jpeg"}, headers=headers)
    assert resp.status_code == 200, resp.text
    img = Image.open(io.BytesIO(resp.content))
    assert img.size == (2000, 2000)
    # no shadow asked: the canvas below the product is pure white
    rgb = np.asarray(img.convert("RGB"))
    assert (rgb[-40:] >= 254).all()


async def test_amazon_keeps_a_photo_under_its_minimum_at_native_size(
    stack: Stack, api: httpx.AsyncClient
) -> None:
    """A 198 x 198 photo with the Amazon preset is not enlarged to 2000 x 2000: it is framed at its own
    resolution and the result says why ('Risoluzione sotto il minimo Amazon: 1000 px sul lato lungo')
    in the compliance report and in ``resolution_notice`` (the /photos card shows it)."""
    headers = await login(api, *make_user())
    name, data = shared_photo("Banana_Iconic.jpg") or ("banana.jpg", product_photo_bytes((198, 198)))
    resp = await api.post(
        "/api/photos",
        headers=headers,
        files=[("files", (name, data, "image/jpeg"))],
        data={"preset": "amazon"},
    )
    assert resp.status_code == 201, resp.text
    job = (await wait_jobs(api, headers, 1))[0]["jobs"][-1]
    assert job["status"] == "completed", job
    details = job["processing_details"]
    notice = "Risoluzione sotto il minimo Amazon: 1000 px sul lato lungo"
    assert details["resolution_notice"] == notice and details["compliance"]["notice"] == notice
    assert details["output_width"] == details["output_height"] < 400
    assert details["compliance"]["rules"]["size"]["passed"] is False


async def test_non_image_is_refused_and_nothing_is_stored(stack: Stack, api: httpx.AsyncClient) -> None:
    email, password = make_user()
    headers = await login(api, email, password)
    before_files = storage_files(stack)
    before = balance_and_ledger(email)
    resp = await api.post(
        "/api/photos",
        headers=headers,
        files=[
            ("files", ("foto.jpg", product_photo_bytes(), "image/jpeg")),
            ("files", ("listino.pdf", b"%PDF-1.4 not an image", "application/pdf")),
        ],
    )
    assert resp.status_code == 400
    assert resp.json()["detail"] == "Solo le immagini sono supportate"
    assert storage_files(stack) == before_files
    assert balance_and_ledger(email) == before
    assert (await api.get("/api/photos", headers=headers)).json()["items"] == []


async def test_undecodable_image_fails_its_job_and_releases_the_credit(
    stack: Stack, api: httpx.AsyncClient
) -> None:
    email, password = make_user()
    headers = await login(api, email, password)
    resp = await api.post(
        "/api/photos",
        headers=headers,
        files=[("files", ("rotta.jpg", undecodable_jpeg(), "image/jpeg"))],
    )
    assert resp.status_code == 201, resp.text
    photos = await wait_jobs(api, headers, 1, timeout_s=60)
    job = photos[0]["jobs"][-1]
    assert job["status"] == "failed"
    assert job["error_message"].startswith("Impossibile leggere l'immagine"), job["error_message"]
    with session_scope() as session:
        code = session.execute(
            select(PhotoProcessingJob.error_code).where(PhotoProcessingJob.id == job["id"])
        ).scalar_one()
        assert code == JobErrorCode.bad_image  # not reprocessable, below
    remaining, ledger_sum, entries = balance_and_ledger(email)
    assert remaining == ledger_sum == 15
    assert entries == 3  # grant, reserve, release
    with session_scope() as session:
        kinds = (
            session.execute(
                select(CreditLedgerEntry.kind)
                .where(CreditLedgerEntry.job_id == job["id"])
                .order_by(CreditLedgerEntry.id)
            )
            .scalars()
            .all()
        )
        assert kinds == ["reserve", "release"]
    handle = stack.temporal.get_workflow_handle_for(PhotoJobWorkflow.run, f"photo-job-{job['id']}")
    assert await handle.query(PhotoJobWorkflow.status) == "failed"
    await maybe_record(handle, "ai-bad-image")
    # a bad image is not retryable: reprocess is refused
    resp = await api.post(f"/api/photos/{photos[0]['id']}/reprocess", headers=headers)
    assert resp.status_code == 409


async def test_batch_limits_are_enforced_by_the_server(stack: Stack, api: httpx.AsyncClient) -> None:
    email, password = make_user()
    headers = await login(api, email, password)
    small = product_photo_bytes((64, 48))
    resp = await api.post(
        "/api/photos",
        headers=headers,
        files=[("files", (f"f{i}.jpg", small, "image/jpeg")) for i in range(11)],
    )
    assert resp.status_code == 400
    assert resp.json()["title"] == "Troppi file (Limite standard)"
    big = b"\xff\xd8" + bytes(51 * 1024 * 1024)
    resp = await api.post(
        "/api/photos", headers=headers, files=[("files", (f"g{i}.jpg", big, "image/jpeg")) for i in range(2)]
    )
    assert resp.status_code == 413  # refused while the body streams, before it is all read
    body = resp.json()
    assert body["title"] == "Batch troppo grande"
    assert body["detail"] == "La dimensione totale non può superare 100MB"

    admin_email, admin_password = make_user(role=UserRole.admin)
    admin = await login(api, admin_email, admin_password)
    resp = await api.post(
        "/api/photos", headers=admin, files=[("files", (f"f{i}.jpg", small, "image/jpeg")) for i in range(26)]
    )
    assert resp.status_code == 400
    assert resp.json()["title"] == "Troppi file (Limite admin)"
    with session_scope() as session:
        for who in (email, admin_email):
            uid = session.execute(select(Profile.id).where(Profile.email == who)).scalar_one()
            assert (
                session.execute(
                    select(func.count()).select_from(Photo).where(Photo.user_id == uid)
                ).scalar_one()
                == 0
            )
            assert (
                session.execute(
                    select(func.count())
                    .select_from(PhotoProcessingJob)
                    .where(PhotoProcessingJob.user_id == uid)
                ).scalar_one()
                == 0
            )


async def test_auth_errors_and_ownership(stack: Stack, api: httpx.AsyncClient) -> None:
    email, password = make_user()
    resp = await api.post(
        "/api/auth/signup", json={"email": email, "password": "altra123", "first_name": "X"}
    )
    assert resp.status_code == 400
    assert resp.json()["detail"] == "Un utente con questa email è già registrato"
    resp = await api.post("/api/auth/login", json={"email": email, "password": "sbagliata"})
    assert resp.status_code == 401
    assert resp.json()["detail"] == "Email o password non corretti"
    assert (await api.get("/api/me")).status_code == 401
    assert (await api.get("/api/photos")).status_code == 401

    owner = await login(api, email, password)
    resp = await api.post(
        "/api/photos",
        headers=owner,
        files=[("files", ("a.jpg", product_photo_bytes((96, 72)), "image/jpeg"))],
    )
    photo_id = resp.json()[0]["id"]
    other_email, other_password = make_user()
    other = await login(api, other_email, other_password)
    assert (await api.get(f"/api/photos/{photo_id}/download", headers=other)).status_code == 404
    assert all(p["id"] != photo_id for p in (await api.get("/api/photos", headers=other)).json()["items"])
    await wait_jobs(api, owner, 1, timeout_s=120)


async def test_refresh_rotation_and_logout(stack: Stack, api: httpx.AsyncClient) -> None:
    email, password = make_user()
    first = (await api.post("/api/auth/login", json={"email": email, "password": password})).json()
    rotated = await api.post("/api/auth/refresh", json={"refresh_token": first["refresh_token"]})
    assert rotated.status_code == 200
    second = rotated.json()
    assert second["refresh_token"] != first["refresh_token"]
    # re-using the rotated-out token is refused and revokes the newer one too
    assert (
        await api.post("/api/auth/refresh", json={"refresh_token": first["refresh_token"]})
    ).status_code == 401
    assert (
        await api.post("/api/auth/refresh", json={"refresh_token": second["refresh_token"]})
    ).status_code == 401
    third = (await api.post("/api/auth/login", json={"email": email, "password": password})).json()
    assert (
        await api.post("/api/auth/logout", json={"refresh_token": third["refresh_token"]})
    ).status_code == 204
    assert (
        await api.post("/api/auth/refresh", json={"refresh_token": third["refresh_token"]})
    ).status_code == 401


async def test_camera_raw_sent_without_a_type_is_accepted(stack: Stack, api: httpx.AsyncClient) -> None:
    """Browsers often send .CR2/.NEF/.DNG/.HEIC without an image/ type: the bytes decide (a file
    named .dng that LibRaw does not recognise is refused)."""
    from tests.retouch.retouch_images import tiny_dng

    email, password = make_user()
    headers = await login(api, email, password)
    resp = await api.post(
        "/api/photos",
        headers=headers,
        files=[("files", ("IMG_0001.dng", b"not really a dng", "application/octet-stream"))],
    )
    assert resp.status_code == 400 and resp.json()["detail"] == "Solo le immagini sono supportate"
    resp = await api.post(
        "/api/photos",
        headers=headers,
        files=[("files", ("IMG_0001.dng", tiny_dng(), "application/octet-stream"))],
    )
    assert resp.status_code == 201, resp.text
    assert resp.json()[0]["file_format"] == "image/x-adobe-dng"
    resp = await api.post(
        "/api/photos", headers=headers, files=[("files", ("listino.xlsx", b"PK", "application/octet-stream"))]
    )
    assert resp.status_code == 400 and resp.json()["detail"] == "Solo le immagini sono supportate"
    await wait_jobs(api, headers, 1, timeout_s=60)

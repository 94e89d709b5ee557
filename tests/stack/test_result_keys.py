"""Result files are stored under ids, one per job; the SEO name is only the download
name; deleting one photo never deletes another's file; migration 0004 repairs rows that shared a key.
"""

from __future__ import annotations

import asyncio
import importlib.util
import time
import uuid
from datetime import UTC, datetime, timedelta

import httpx
import pytest
from alembic.migration import MigrationContext
from alembic.operations import Operations
from sqlalchemy import select

from fotopronta import ledger
from fotopronta.db import MIGRATIONS_DIR, get_engine, session_scope
from fotopronta.domain import JobStatus
from fotopronta.models import CreditLedgerEntry, Notification, Photo, PhotoProcessingJob, Profile
from fotopronta.storage import BUCKET_PROCESSED, BUCKET_UPLOADS, get_storage, new_upload_key
from tests.utils.factories import login, make_user, product_photo_bytes
from tests.utils.stack import Stack

pytestmark = pytest.mark.stack

BRAND = "Antica Manifattura Fiorentina Pelletteria Artigianale Toscana"
CATEGORY = "Borse tracolla donna vera pelle vitello conciata vegetale"


async def wait_final(api: httpx.AsyncClient, headers: dict[str, str], ids: set[str]) -> list[dict]:
    """Poll until every photo in ``ids`` has a completed or failed latest job; returns them."""
    deadline = time.monotonic() + 240
    while True:
        photos = [
            p for p in (await api.get("/api/photos", headers=headers)).json()["items"] if p["id"] in ids
        ]
        if all(p["jobs"] and p["jobs"][-1]["status"] in ("completed", "failed") for p in photos):
            return photos
        assert time.monotonic() < deadline, [p["jobs"][-1]["status"] for p in photos]
        await asyncio.sleep(0.5)


async def test_long_seo_names_never_share_a_file(stack: Stack, api: httpx.AsyncClient) -> None:
    headers = await login(api, *make_user())
    resp = await api.post(
        "/api/photos",
        headers=headers,
        data={"brand": BRAND, "category": CATEGORY},
        files=[
            ("files", ("borsa-1.jpg", product_photo_bytes((320, 240)), "image/jpeg")),
            ("files", ("borsa-2.jpg", product_photo_bytes((400, 300)), "image/jpeg")),
        ],
    )
    assert resp.status_code == 201, resp.text
    photos = await wait_final(api, headers, {p["id"] for p in resp.json()})
    assert [p["jobs"][-1]["status"] for p in photos] == ["completed", "completed"]
    with session_scope() as session:
        rows = [session.get_one(Photo, uuid.UUID(p["id"])) for p in photos]
        keys = [(r.processed_path, r.processed_webp_path, str(r.jobs[-1].id), str(r.user_id)) for r in rows]
    assert len({k[0] for k in keys}) == 2 and len({k[1] for k in keys}) == 2, keys
    for jpeg, webp, job_id, user_id in keys:  # storage keys are ids, not SEO names
        assert (jpeg, webp) == (f"{user_id}/{job_id}.jpg", f"{user_id}/{job_id}.webp")

    downloads = {}
    for photo in photos:
        dl = await api.get(f"/api/photos/{photo['id']}/download", headers=headers)
        assert dl.status_code == 200, dl.text
        disposition = dl.headers["content-disposition"]
        assert disposition.startswith('attachment; filename="antica-manifattura-fiorentina'), disposition
        assert disposition.endswith(".jpg") and "filename*=UTF-8''antica-manifattura" in disposition
        downloads[photo["id"]] = dl.content
    assert len(set(downloads.values())) == 2, "two photos, two different results"

    first, second = photos
    assert (await api.delete(f"/api/photos/{first['id']}", headers=headers)).status_code == 204
    dl = await api.get(f"/api/photos/{second['id']}/download", headers=headers)
    assert dl.status_code == 200 and dl.content == downloads[second["id"]]


def _legacy_delivered_photo(
    user_id: uuid.UUID, key: str, completed_at: datetime, *, webp: str | None = None
) -> tuple[uuid.UUID, uuid.UUID]:
    """A photo delivered by the old code at ``key`` (job completed at ``completed_at``, 1 credit
    reserved and charged); returns ``(photo_id, job_id)``."""
    upload = new_upload_key(user_id, "jpg")
    get_storage().put(BUCKET_UPLOADS, upload, product_photo_bytes((64, 48)), "image/jpeg")
    with session_scope() as session:
        photo = Photo(
            user_id=user_id,
            original_filename="borsa.jpg",
            file_size=10,
            file_format="image/jpeg",
            upload_path=upload,
            status="processed",
            processed_path=key,
            processed_webp_path=webp if webp is not None else key.replace(".jpg", ".webp"),
        )
        session.add(photo)
        session.flush()
        job = PhotoProcessingJob(
            photo_id=photo.id,
            user_id=user_id,
            job_type="background_removal",
            status=JobStatus.completed.value,
            progress_percentage=100,
            completed_at=completed_at,
            processing_details={"seo_filename": key.rsplit("/", 1)[1]},
        )
        session.add(job)
        session.flush()
        ledger.reserve(session, user_id=user_id, reservation_id=f"{job.id}:1", amount=1, job_id=job.id)
        ledger.charge(session, user_id=user_id, reservation_id=f"{job.id}:1", job_id=job.id)
        return photo.id, job.id


def _user_id(email: str) -> uuid.UUID:
    with session_scope() as session:
        return session.execute(select(Profile.id).where(Profile.email == email)).scalar_one()


async def test_deleting_a_photo_keeps_a_file_another_photo_uses(stack: Stack, api: httpx.AsyncClient) -> None:
    email, password = make_user()
    headers = await login(api, email, password)
    user_id = _user_id(email)
    shared = f"{user_id}/antica-manifattura-fiorentina-pelletteria-artigianale-toscana-borse-tracolla.jpg"
    storage = get_storage()
    storage.put(BUCKET_PROCESSED, shared, b"jpeg", "image/jpeg")
    storage.put(BUCKET_PROCESSED, shared.replace(".jpg", ".webp"), b"webp", "image/webp")
    now = datetime.now(UTC)
    first, _ = _legacy_delivered_photo(user_id, shared, now - timedelta(minutes=2))
    second, _ = _legacy_delivered_photo(user_id, shared, now - timedelta(minutes=1))
    assert (await api.delete(f"/api/photos/{first}", headers=headers)).status_code == 204
    assert storage.exists(BUCKET_PROCESSED, shared) and storage.exists(
        BUCKET_PROCESSED, shared.replace(".jpg", ".webp")
    )
    dl = await api.get(f"/api/photos/{second}/download", headers=headers)
    assert dl.status_code == 200 and dl.content == b"jpeg"
    assert (await api.delete(f"/api/photos/{second}", headers=headers)).status_code == 204
    assert not storage.exists(BUCKET_PROCESSED, shared)  # the last user of the file deletes it


def _run_migration_0004_upgrade() -> None:
    """Run revision 0004's ``upgrade()`` alone on the test database (later revisions stay applied).

    Downgrading to 0003 and back would also undo and redo every later revision (e.g. 0005's session
    ids), which would sign out the other tests' users; the repair itself is what this test checks.
    """
    path = MIGRATIONS_DIR / "versions" / "0004_unique_result_keys.py"
    spec = importlib.util.spec_from_file_location("migration_0004", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    with get_engine().begin() as conn, Operations.context(MigrationContext.configure(conn)):
        module.upgrade()


async def test_migration_0004_repairs_shared_keys(stack: Stack, api: httpx.AsyncClient) -> None:
    email, password = make_user()
    user_id = _user_id(email)
    shared = f"{user_id}/antica-manifattura-fiorentina-pelletteria-artigianale-toscana-borse-tracolla.jpg"
    unique = f"{user_id}/nike-scarpe-da-corsa-rosso-a1b2c3d4.jpg"
    now = datetime.now(UTC)
    lost_a = _legacy_delivered_photo(user_id, shared, now - timedelta(minutes=3))
    keeper = _legacy_delivered_photo(user_id, shared, now - timedelta(minutes=1))
    lost_b = _legacy_delivered_photo(user_id, shared, now - timedelta(minutes=2))
    alone = _legacy_delivered_photo(user_id, unique, now - timedelta(minutes=5))
    with session_scope() as session:
        before = session.get_one(Profile, user_id).credits_remaining
    assert before == 15 - 4

    for _ in range(2):  # applying the repair twice changes nothing more
        _run_migration_0004_upgrade()

    with session_scope() as session:
        for photo_id, job_id in (lost_a, lost_b):
            photo, job = session.get_one(Photo, photo_id), session.get_one(PhotoProcessingJob, job_id)
            assert (photo.status, photo.processed_path, photo.processed_webp_path) == ("uploaded", None, None)
            assert job.status == "failed" and "andato perso" in (job.error_message or "")
        photo = session.get_one(Photo, keeper[0])
        assert (photo.status, photo.processed_path) == ("processed", shared)
        photo = session.get_one(Photo, alone[0])
        assert (photo.status, photo.processed_path) == ("processed", unique)
        profile = session.get_one(Profile, user_id)
        assert profile.credits_remaining == before + 2 == ledger.ledger_balance(session, user_id)
        refunds = session.execute(
            select(CreditLedgerEntry.idempotency_key).where(
                CreditLedgerEntry.user_id == user_id,
                CreditLedgerEntry.idempotency_key.like("grant:repair-0004:%"),
            )
        ).scalars()
        assert sorted(refunds) == sorted(f"grant:repair-0004:{job}" for _, job in (lost_a, lost_b))
        notes = session.execute(
            select(Notification.title).where(Notification.user_id == user_id, Notification.type == "warning")
        ).scalars()
        assert list(notes) == ["Risultato non disponibile"] * 2

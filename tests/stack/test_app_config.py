"""Issue 14 item 2: the server's product constants reach the web app through the API, once:
``GET /api/config`` (public) and ``can_rework`` / ``can_reprocess`` on each photo of ``GET /api/photos``,
decided by the same rules the POST routes enforce (409 where the flag is false)."""

from __future__ import annotations

import io
import uuid
from datetime import UTC, datetime, timedelta

import httpx
import pytest
from PIL import Image
from sqlalchemy import select

from activities.contracts import RETRYABLE_ERROR_MARKERS
from fotopronta.db import session_factory
from fotopronta.domain import FREE_REWORK_DAYS, JOB_COSTS, JobStatus, JobType
from fotopronta.models import PhotoProcessingJob, Profile
from fotopronta.settings import get_settings
from fotopronta.storage import get_storage
from retouch.decode import MAX_PIXELS
from tests.utils.factories import login, make_user
from tests.utils.jobs import new_photo_job, new_user
from tests.utils.stack import Stack

pytestmark = pytest.mark.stack


async def test_config_is_public_and_matches_the_constants(stack: Stack, api: httpx.AsyncClient) -> None:
    resp = await api.get("/api/config")
    assert resp.status_code == 200, resp.text
    settings = get_settings()
    assert resp.json() == {
        "job_costs": {kind.value: cost for kind, cost in JOB_COSTS.items()},
        "free_rework_days": FREE_REWORK_DAYS,
        "free_credits": settings.signup_free_credits,
        "max_upload_bytes": settings.max_file_bytes,
        "max_upload_megapixels": MAX_PIXELS // 1_000_000,
        "accepted_formats": ["JPG", "PNG", "WebP", "GIF", "BMP", "TIFF", "HEIC", "AVIF", RAW_LABEL],
        "accepted_extensions": [*PLAIN_EXTENSIONS, *RAW_EXTENSIONS],
    }
    assert set(resp.json()["job_costs"]) == {kind.value for kind in JobType}


RAW_EXTENSIONS = [".cr2", ".nef", ".arw", ".dng", ".raf", ".orf", ".rw2", ".mrw", ".x3f"]
RAW_LABEL = "RAW (CR2, NEF, ARW, DNG, RAF, ORF, RW2, MRW, X3F)"
PLAIN_EXTENSIONS = [
    ".jpg",
    ".jpeg",
    ".png",
    ".webp",
    ".gif",
    ".bmp",
    ".tif",
    ".tiff",
    ".heic",
    ".heif",
    ".avif",
]


async def test_every_listed_format_is_accepted_by_the_upload(stack: Stack, api: httpx.AsyncClient) -> None:
    """The formats the web app lists (``accepted_formats``) are ones the upload takes: one small image
    per Pillow-written format goes through ``POST /api/photos``'s checks (RAW and HEIC have their own
    upload tests)."""
    headers = await login(api, *make_user())
    listed = (await api.get("/api/config")).json()["accepted_formats"]
    for label, pil_format, name in [
        ("JPG", "JPEG", "a.jpg"),
        ("PNG", "PNG", "a.png"),
        ("WebP", "WEBP", "a.webp"),
        ("GIF", "GIF", "a.gif"),
        ("BMP", "BMP", "a.bmp"),
        ("TIFF", "TIFF", "a.tif"),
    ]:
        assert label in listed
        buf = io.BytesIO()
        Image.new("RGB", (64, 48), (200, 30, 40)).save(buf, pil_format)
        resp = await api.post(
            "/api/photos",
            headers=headers,
            files=[("files", (name, buf.getvalue(), "application/octet-stream"))],
            data={"job_type": "background_removal_human"},
        )
        assert resp.status_code == 201, (label, resp.text)


def _photo_with_job(user_id: uuid.UUID, status: JobStatus, **job: object) -> uuid.UUID:
    """A photo whose only job has ``status`` and the given columns; returns the photo id."""
    sessions = session_factory()
    photo_id, job_id = new_photo_job(sessions, get_storage(), user_id)
    with sessions.begin() as session:
        row = session.get_one(PhotoProcessingJob, job_id)
        row.status = status.value
        for name, value in job.items():
            setattr(row, name, value)
    return photo_id


async def test_can_rework_and_can_reprocess_follow_the_post_rules(
    stack: Stack, api: httpx.AsyncClient
) -> None:
    sessions = session_factory()
    user_id = new_user(sessions)
    with sessions() as session:
        email = session.execute(select(Profile.email).where(Profile.id == user_id)).scalar_one()
    client = await login(api, email, "segreto123")
    now = datetime.now(UTC)
    window = timedelta(days=FREE_REWORK_DAYS)
    # photo id -> (can_rework, can_reprocess)
    expected = {
        _photo_with_job(user_id, JobStatus.completed, completed_at=now - timedelta(hours=1)): (True, False),
        _photo_with_job(user_id, JobStatus.completed, completed_at=now - window - timedelta(hours=1)): (
            False,
            False,
        ),
        _photo_with_job(
            user_id, JobStatus.completed, completed_at=now, options={"preset": "original", "rework": True}
        ): (False, False),
        _photo_with_job(user_id, JobStatus.failed, error_message=f"Errore: {RETRYABLE_ERROR_MARKERS[0]}"): (
            False,
            True,
        ),
        _photo_with_job(user_id, JobStatus.failed, error_message="immagine non valida"): (False, False),
        _photo_with_job(
            user_id,
            JobStatus.failed,
            error_message=RETRYABLE_ERROR_MARKERS[-1],
            completed_at=now,
        ): (False, True),
        _photo_with_job(user_id, JobStatus.processing): (False, False),
    }
    items = (await api.get("/api/photos", headers=client, params={"limit": 100})).json()["items"]
    flags = {uuid.UUID(p["id"]): (p["can_rework"], p["can_reprocess"]) for p in items}
    assert flags == expected

    # the POST routes refuse exactly where the flags are false (no workflow is started by a refusal)
    for photo_id, (can_rework, can_reprocess) in expected.items():
        if not can_rework:
            resp = await api.post(f"/api/photos/{photo_id}/rework", headers=client, json={})
            assert resp.status_code == 409, resp.text
        if not can_reprocess:
            resp = await api.post(f"/api/photos/{photo_id}/reprocess", headers=client)
            assert resp.status_code == 409, resp.text

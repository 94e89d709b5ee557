"""The server's product constants reach the web app through the API, once:
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

from fotopronta.db import session_factory
from fotopronta.domain import (
    FREE_REWORK_DAYS,
    JOB_COSTS,
    RETRYABLE_ERROR_MARKERS,
    JobErrorCode,
    JobStatus,
    JobType,
)
from fotopronta.models import PhotoProcessingJob, Profile
from fotopronta.settings import get_settings
from fotopronta.storage import get_storage
from retouch.decode import MAX_PIXELS
from tests.utils.factories import login, make_user, settings_env
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
        "batch_limits": {
            "standard": {"max_files": 10, "max_bytes": 100 * MB},
            "admin": {"max_files": 25, "max_bytes": 250 * MB},
        },
        "job_status_labels": {
            "pending": "In attesa",
            "waiting_for_credits": "In attesa di crediti",
            "processing": "Processamento AI",
            "completed": "Completata",
            "failed": "Errore",
            "pending_human": "In coda per grafici",
            "assigned_to_graphic": "Assegnato a grafico",
            "in_progress_human": "In lavorazione",
            "completed_human": "Processata da grafico",
            "rejected_human": "Rifiutata",
        },
        "no_job_label": "Non processata",
        "job_type_labels": {
            "background_removal": "Ritocco AI",
            "smart_backgrounds": "Sfondi intelligenti",
            "background_removal_human": "Ritocco del team grafico",
        },
        "status_groups": {
            "active": sorted(
                [
                    "pending",
                    "waiting_for_credits",
                    "processing",
                    "pending_human",
                    "assigned_to_graphic",
                    "in_progress_human",
                ]
            ),
            "final": sorted(["completed", "completed_human", "failed", "rejected_human"]),
            "delivered": ["completed", "completed_human"],
            "ended_undelivered": ["failed", "rejected_human"],
            "working": ["in_progress_human", "processing"],
            "designer_queue": ["assigned_to_graphic", "pending_human"],
            "with_designer": ["assigned_to_graphic", "in_progress_human"],
            "cancellable": ["assigned_to_graphic", "pending_human"],
            "reworkable": ["completed", "completed_human"],
            "reprocessable": ["failed"],
        },
        "status_filters": {
            "pending": "pending",
            "waiting_for_credits": "pending",
            "processing": "processing",
            "completed": "completed",
            "failed": "failed",
            "pending_human": "pending",
            "assigned_to_graphic": "pending",
            "in_progress_human": "processing",
            "completed_human": "completed",
            "rejected_human": "failed",
        },
        "presets": [
            {"value": "original", "label": "Dimensioni originali"},
            {"value": "amazon", "label": "Amazon – 2000×2000, prodotto all’85%"},
            {"value": "zalando", "label": "Zalando – 1801×2600"},
            {"value": "etsy", "label": "Etsy – lato lungo 2000 px"},
            {"value": "shopify", "label": "Shopify – 2048×2048"},
        ],
        "default_preset": "original",
        "background_categories": [
            {"value": "minimal_studio", "label": "Studio minimal"},
            {"value": "home_lifestyle", "label": "Casa e lifestyle"},
            {"value": "outdoor_natural", "label": "Esterni naturali"},
            {"value": "professional_office", "label": "Ufficio professionale"},
            {"value": "seasonal_themed", "label": "Stagionale a tema"},
        ],
        "photos_page_size": 24,
        "photos_page_max": 100,
    }
    assert set(resp.json()["job_costs"]) == {kind.value for kind in JobType}


MB = 1024 * 1024


async def test_every_job_status_and_type_has_its_italian_label(stack: Stack, api: httpx.AsyncClient) -> None:
    """Every status and job type the API can return (the ``status`` / ``job_type`` enums of the OpenAPI
    document, which the response models validate against) has an Italian label in ``GET /api/config``,
    a filter group, and sits in exactly one of the two halves ``active`` / ``final``."""
    config = (await api.get("/api/config")).json()
    schemas = (await api.get("/openapi.json")).json()["components"]["schemas"]
    statuses = set(schemas["JobStatus"]["enum"])
    types = set(schemas["JobType"]["enum"])
    assert statuses == {s.value for s in JobStatus}
    assert set(config["job_status_labels"]) == statuses
    assert all(label.strip() for label in config["job_status_labels"].values())
    assert set(config["job_type_labels"]) == types
    assert all(label.strip() for label in config["job_type_labels"].values())
    assert set(config["status_filters"]) == statuses
    groups = config["status_groups"]
    assert set(groups["active"]) | set(groups["final"]) == statuses
    assert not set(groups["active"]) & set(groups["final"])
    for name, members in groups.items():
        assert set(members) <= statuses, name


async def test_batch_limits_follow_the_settings(stack: Stack, api: httpx.AsyncClient) -> None:
    """The batch limits the upload page offers come from the settings, so a deployment that changes
    ``FOTOPRONTA_MAX_BATCH_FILES_STANDARD`` (or the bytes, or the admin class) changes them too."""
    with settings_env(
        max_batch_files_standard="4",
        max_batch_bytes_standard=str(40 * MB),
        max_batch_files_admin="7",
    ):
        limits = (await api.get("/api/config")).json()["batch_limits"]
    assert limits == {
        "standard": {"max_files": 4, "max_bytes": 40 * MB},
        "admin": {"max_files": 7, "max_bytes": 250 * MB},
    }


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
        # the error code decides; a failure without a code (written before codes) falls back to the
        # SPEC §4 markers of its message
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
        _photo_with_job(
            user_id, JobStatus.failed, error_message="Tempo scaduto", error_code=JobErrorCode.timeout.value
        ): (False, True),
        _photo_with_job(
            user_id,
            JobStatus.failed,
            error_message="Errore elaborazione (server error): file illeggibile",
            error_code=JobErrorCode.bad_image.value,
        ): (False, False),
        _photo_with_job(
            user_id,
            JobStatus.failed,
            error_message="Annullato (network error)",
            error_code=JobErrorCode.cancelled_by_client.value,
        ): (False, False),
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

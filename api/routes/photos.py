"""Photos: upload (starts one ``PhotoJobWorkflow`` each), list, download (``/api/photos``)."""

from __future__ import annotations

import io
import logging
import uuid
from pathlib import PurePath
from typing import Annotated

from fastapi import APIRouter, File, Form, Query, UploadFile, status
from fastapi.responses import Response
from PIL import Image
from sqlalchemy import select
from sqlalchemy.orm import selectinload

from api.deps import CurrentUser, SessionDep, TemporalDep, effective_role
from api.errors import ApiError
from api.schemas import PhotoPublic
from fotopronta import ledger
from fotopronta.models import JobStatus, JobType, Photo, PhotoProcessingJob, UserRole
from fotopronta.settings import get_settings
from fotopronta.storage import BUCKET_PROCESSED, BUCKET_UPLOADS, ObjectNotFoundError, get_storage, new_upload_key
from retouch import PRESETS, SMART_BACKGROUND_CATEGORIES
from workflows.photo_job import PhotoJobWorkflow
from workflows.shared import TASK_QUEUE_JOBS, PhotoJobInput, workflow_id_for_job

router = APIRouter(prefix="/api/photos", tags=["photos"])
log = logging.getLogger("fotopronta.api.photos")

JOB_COSTS = {
    JobType.background_removal: ledger.AI_COST,
    JobType.smart_backgrounds: ledger.SMART_BACKGROUND_COST,
    JobType.background_removal_human: ledger.HUMAN_COST,
}
MIME_EXTENSIONS = {"image/jpeg": "jpg", "image/png": "png", "image/webp": "webp", "image/tiff": "tif",
                   "image/heic": "heic", "image/heif": "heif"}


def _extension(upload: UploadFile) -> str:
    suffix = PurePath(upload.filename or "").suffix.lower().lstrip(".")
    if suffix and suffix.isalnum() and len(suffix) <= 5:
        return suffix
    return MIME_EXTENSIONS.get((upload.content_type or "").lower(), "bin")


def _image_size(data: bytes) -> tuple[int | None, int | None]:
    """Width and height in px from the image header, or ``(None, None)`` when undecodable."""
    try:
        with Image.open(io.BytesIO(data)) as img:
            return img.size
    except Exception:
        return None, None


def check_batch(files: list[UploadFile], role: UserRole) -> None:
    """Server-side batch rules of SPEC §5/§9: images only, at most 10 files / 100 MB (25 / 250 MB for
    admins).

    Raises:
        ApiError: 400 with the SPEC's title and message.
    """
    settings = get_settings()
    if not files:
        raise ApiError(400, "Seleziona almeno una foto da caricare.", "no_files", "Errore upload")
    if any(not (f.content_type or "").lower().startswith("image/") for f in files):
        raise ApiError(400, "Solo le immagini sono supportate", "unsupported_type", "Alcuni file ignorati")
    admin = role is UserRole.admin
    max_files = settings.max_batch_files_admin if admin else settings.max_batch_files_standard
    max_bytes = settings.max_batch_bytes_admin if admin else settings.max_batch_bytes_standard
    if len(files) > max_files:
        label = "(Limite admin)" if admin else "(Limite standard)"
        raise ApiError(400, f"Puoi caricare al massimo {max_files} foto alla volta {label}", "too_many_files",
                       f"Troppi file {label}")
    total = sum(f.size or 0 for f in files)
    if total > max_bytes:
        raise ApiError(400, f"La dimensione totale non può superare {max_bytes // (1024 * 1024)}MB",
                       "batch_too_large", "Batch troppo grande")


@router.post("", status_code=status.HTTP_201_CREATED, response_model=list[PhotoPublic],
             operation_id="photos-upload")
async def upload_photos(
    user: CurrentUser,
    session: SessionDep,
    temporal: TemporalDep,
    files: Annotated[list[UploadFile], File(description="one or more images")],
    job_type: Annotated[str, Form()] = JobType.background_removal.value,
    background_category: Annotated[str | None, Form()] = None,
    preset: Annotated[str, Form()] = "original",
    shadow: Annotated[bool, Form()] = True,
    brand: Annotated[str | None, Form(max_length=100)] = None,
    category: Annotated[str | None, Form(max_length=100)] = None,
) -> list[Photo]:
    """Store each original, insert its photo and job, start one workflow per photo."""
    role = effective_role(user)
    check_batch(files, role)
    try:
        kind = JobType(job_type)
    except ValueError as exc:
        raise ApiError(400, "Tipo di lavorazione non valido.", "invalid_job_type") from exc
    if kind is JobType.background_removal_human:
        raise ApiError(400, "Il ritocco manuale dei grafici non è ancora disponibile.", "job_type_unavailable")
    if kind is JobType.smart_backgrounds:
        if background_category not in SMART_BACKGROUND_CATEGORIES:
            raise ApiError(400, "Scegli una categoria di sfondo valida.", "invalid_background_category")
        if user.credits_remaining < ledger.SMART_BACKGROUND_COST:
            raise ApiError(400, "Crediti insufficienti", "insufficient_credits", "Crediti insufficienti")
    else:
        background_category = None
    if preset not in PRESETS:
        raise ApiError(400, "Formato di uscita non valido.", "invalid_preset")

    storage = get_storage()
    stored: list[str] = []
    created: list[tuple[Photo, PhotoProcessingJob]] = []
    try:
        for upload in files:
            data = await upload.read()
            key = new_upload_key(user.id, _extension(upload))
            storage.put(BUCKET_UPLOADS, key, data, upload.content_type or "application/octet-stream")
            stored.append(key)
            width, height = _image_size(data)
            photo = Photo(user_id=user.id, original_filename=PurePath(upload.filename or "foto").name,
                          file_size=len(data), file_format=(upload.content_type or "").lower(),
                          upload_path=key, status="uploaded", width=width, height=height)
            session.add(photo)
            session.flush()
            job = PhotoProcessingJob(
                photo_id=photo.id, user_id=user.id, job_type=kind.value, status=JobStatus.pending.value,
                background_category={"category": background_category} if background_category else None,
                options={"preset": preset, "shadow": shadow, "brand": brand, "category": category},
                processing_details={"brand": brand, "category": category} if (brand or category) else None,
            )
            session.add(job)
            session.flush()
            created.append((photo, job))
        session.commit()
    except BaseException:
        session.rollback()
        for key in stored:
            storage.delete(BUCKET_UPLOADS, key)
        raise

    for photo, job in created:
        await temporal.start_workflow(
            PhotoJobWorkflow.run,
            PhotoJobInput(job_id=str(job.id), photo_id=str(photo.id), user_id=str(user.id), job_type=kind.value,
                          cost=JOB_COSTS[kind], preset=preset, background_category=background_category,
                          shadow=shadow, brand=brand, category=category),
            id=workflow_id_for_job(str(job.id)),
            task_queue=TASK_QUEUE_JOBS,
        )
    for photo, _ in created:
        session.refresh(photo)
    return [photo for photo, _ in created]


@router.get("", response_model=list[PhotoPublic], operation_id="photos-list")
def list_photos(user: CurrentUser, session: SessionDep) -> list[Photo]:
    """The caller's photos with their jobs, newest first."""
    return list(session.execute(
        select(Photo).where(Photo.user_id == user.id).options(selectinload(Photo.jobs))
        .order_by(Photo.created_at.desc())
    ).scalars().all())


def _owned_photo(session: SessionDep, user: CurrentUser, photo_id: uuid.UUID) -> Photo:
    photo = session.get(Photo, photo_id)
    if photo is None or (photo.user_id != user.id and effective_role(user) is not UserRole.admin):
        raise ApiError(404, "Foto non trovata", "photo_not_found")
    return photo


@router.get("/{photo_id}/download", operation_id="photos-download",
            responses={200: {"content": {"image/jpeg": {}, "image/webp": {}}}})
def download_photo(photo_id: uuid.UUID, user: CurrentUser, session: SessionDep,
                   format: Annotated[str, Query(pattern="^(jpeg|jpg|webp)$")] = "jpeg") -> Response:
    """The processed image as JPEG (default) or WebP, named with its SEO file name."""
    photo = _owned_photo(session, user, photo_id)
    key = photo.processed_webp_path if format == "webp" else photo.processed_path
    if photo.status != "processed" or not key:
        raise ApiError(409, "La foto non è ancora stata elaborata.", "not_processed", "Errore download")
    try:
        data = get_storage().get(BUCKET_PROCESSED, key)
    except ObjectNotFoundError as exc:
        raise ApiError(410, "Il file non è più disponibile: le foto vengono eliminate 30 giorni dopo la consegna.",
                       "file_deleted", "Errore download") from exc
    media = "image/webp" if format == "webp" else "image/jpeg"
    filename = PurePath(key).name
    return Response(data, media_type=media, headers={"Content-Disposition": f'attachment; filename="{filename}"'})

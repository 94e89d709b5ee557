"""Photos: upload (starts one ``PhotoJobWorkflow`` each), list, download, reprocess, delete
(``/api/photos``)."""

from __future__ import annotations

import base64
import contextlib
import hashlib
import io
import json
import logging
import threading
import uuid
import warnings
from datetime import UTC, datetime
from pathlib import PurePath
from typing import Annotated, Any, Literal

from fastapi import APIRouter, File, Form, Query, Request, UploadFile, status
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import Response
from PIL import Image, ImageOps
from pydantic import BaseModel, Field
from sqlalchemy import ColumnElement, case, func, or_, select, tuple_
from sqlalchemy.orm import Session, selectinload
from temporalio.client import Client
from temporalio.service import RPCError

from api.deps import CurrentUser, SessionDep, TemporalDep, effective_role
from api.errors import ApiError
from api.http_headers import content_disposition
from api.job_control import run_job_update
from api.schemas import PhotoCounts, PhotoPage, PhotoPublic
from api.services.photo_rules import reprocess_refusal, rework_refusal
from api.uploads import ImageInfo, inspect_image
from fotopronta import ledger
from fotopronta.models import (
    CreditLedgerEntry,
    JobStatus,
    JobType,
    Order,
    Photo,
    PhotoProcessingJob,
    Profile,
    UserRole,
)
from fotopronta.orders import PACKAGE_LABELS, refresh_order
from fotopronta.results import download_name, keys_used_elsewhere
from fotopronta.settings import get_settings
from fotopronta.storage import (
    BUCKET_PROCESSED,
    BUCKET_UPLOADS,
    ObjectNotFoundError,
    get_storage,
    new_upload_key,
)
from fotopronta.thumbnails import flatten_on_white, store_thumbnail, thumbnail_key
from retouch import PRESETS, SMART_BACKGROUND_CATEGORIES
from workflows.photo_job import PhotoJobWorkflow
from workflows.shared import (
    PHOTO_BUSY_MESSAGE,
    CancelInput,
    ReprocessInput,
    workflow_id_for_job,
)
from workflows.starter import JOB_COSTS, start_job_workflow, start_job_workflows_or_defer

router = APIRouter(prefix="/api/photos", tags=["photos"])
log = logging.getLogger("fotopronta.api.photos")

MEDIA_TYPES = {".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".png": "image/png", ".webp": "image/webp"}


def check_batch(files: list[UploadFile], role: UserRole) -> None:
    """Server-side batch rules of SPEC §5/§9: at most 10 files / 100 MB (25 / 250 MB for admins). What
    each file is, is checked from its bytes by :func:`inspect_uploads`.

    Raises:
        ApiError: 400 with the SPEC's title and message.
    """
    settings = get_settings()
    if not files:
        raise ApiError(400, "Seleziona almeno una foto da caricare.", "no_files", "Errore upload")
    admin = role is UserRole.admin
    max_files = settings.max_batch_files_admin if admin else settings.max_batch_files_standard
    max_bytes = settings.max_batch_bytes_admin if admin else settings.max_batch_bytes_standard
    if len(files) > max_files:
        label = "(Limite admin)" if admin else "(Limite standard)"
        raise ApiError(
            400,
            f"Puoi caricare al massimo {max_files} foto alla volta {label}",
            "too_many_files",
            f"Troppi file {label}",
        )
    total = sum(f.size or 0 for f in files)
    if total > max_bytes:
        raise ApiError(
            400,
            f"La dimensione totale non può superare {max_bytes // (1024 * 1024)}MB",
            "batch_too_large",
            "Batch troppo grande",
        )


async def inspect_uploads(files: list[UploadFile]) -> list[ImageInfo]:
    """Check every file by its content (:func:`api.uploads.inspect_image`: type sniffed from the bytes,
    size from the header, per-file limit ``settings.max_file_bytes`` and 80 MP) before anything is
    stored or charged; each file is read once, at most ``max_file_bytes + 1`` bytes, and rewound.

    Raises:
        ApiError: 400 for the first file that is not an accepted image or is over a limit.
    """
    max_bytes = get_settings().max_file_bytes
    infos = []
    for upload in files:
        data = await upload.read(max_bytes + 1)
        infos.append(await run_in_threadpool(inspect_image, data, upload.filename or "", max_bytes=max_bytes))
        await upload.seek(0)
    return infos


@router.post(
    "", status_code=status.HTTP_201_CREATED, response_model=list[PhotoPublic], operation_id="photos-upload"
)
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
    client_notes: Annotated[str | None, Form(max_length=2000)] = None,
) -> list[PhotoPublic]:
    """Check every file by its content (type, bytes, megapixels), then store each original, insert its
    photo and job, start one workflow per photo (or leave the jobs pending for the reconciler while
    Temporal is unreachable). A refused file refuses the batch: no row, no file, no credit."""
    role = effective_role(user)
    check_batch(files, role)
    try:
        kind = JobType(job_type)
    except ValueError as exc:
        raise ApiError(400, "Tipo di lavorazione non valido.", "invalid_job_type") from exc
    if kind is JobType.smart_backgrounds:
        if background_category not in SMART_BACKGROUND_CATEGORIES:
            raise ApiError(400, "Scegli una categoria di sfondo valida.", "invalid_background_category")
        if user.credits_remaining < ledger.SMART_BACKGROUND_COST:
            raise ApiError(400, "Crediti insufficienti", "insufficient_credits", "Crediti insufficienti")
    else:
        background_category = None
    if preset not in PRESETS:
        raise ApiError(400, "Formato di uscita non valido.", "invalid_preset")
    infos = await inspect_uploads(files)  # by content, before any row, file or credit

    contents = [await upload.read() for upload in files]  # async reads, on the loop

    def store() -> list[tuple[Photo, PhotoProcessingJob]]:
        """Store the originals and insert the order, photos and jobs (blocking: in the threadpool)."""
        storage = get_storage()
        stored: list[str] = []
        created: list[tuple[Photo, PhotoProcessingJob]] = []
        try:
            order = Order(
                user_id=user.id,
                package_type=PACKAGE_LABELS[kind.value],
                total_photos=len(files),
                processed_photos=0,
                status="processing",
                total_amount=JOB_COSTS[kind] * len(files),
            )
            session.add(order)
            session.flush()
            for upload, info, data in zip(files, infos, contents, strict=True):
                key = new_upload_key(user.id, info.ext)
                mime = info.mime
                storage.put(BUCKET_UPLOADS, key, data, mime)
                stored.append(key)
                if store_thumbnail(storage, BUCKET_UPLOADS, key, data):
                    stored.append(thumbnail_key(key))
                uploaded_at = datetime.now(UTC)
                photo = Photo(
                    user_id=user.id,
                    original_filename=PurePath(upload.filename or "foto").name,
                    file_size=len(data),
                    file_format=mime,
                    upload_path=key,
                    status="uploaded",
                    width=info.width,
                    height=info.height,
                    order_id=order.id,
                    created_at=uploaded_at,  # per file, not the transaction's now(): keeps upload order
                )
                session.add(photo)
                session.flush()
                job = PhotoProcessingJob(
                    created_at=uploaded_at,
                    photo_id=photo.id,
                    user_id=user.id,
                    job_type=kind.value,
                    status=JobStatus.pending.value,
                    background_category={"category": background_category} if background_category else None,
                    options={"preset": preset, "shadow": shadow, "brand": brand, "category": category},
                    processing_details={"brand": brand, "category": category}
                    if (brand or category)
                    else None,
                    client_notes=client_notes if kind is JobType.background_removal_human else None,
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
        return created

    created = await run_in_threadpool(store)
    # committed first: if Temporal is unreachable the jobs stay pending and the worker's reconciler
    # starts their workflows once it is back (workflows/starter.py); the upload still succeeds
    await start_job_workflows_or_defer(
        temporal,
        [job for _, job in created],
        email=user.email,
        photo_names={job.id: photo.original_filename for photo, job in created},
    )

    def reload() -> list[PhotoPublic]:
        for photo, _ in created:
            session.refresh(photo)
        return [PhotoPublic.model_validate(photo) for photo, _ in created]

    return await run_in_threadpool(reload)


PAGE_DEFAULT = 24
PAGE_MAX = 100
PhotoSort = Literal["newest", "oldest", "name"]
StatusGroup = Literal["all", "completed", "processing", "failed", "pending"]


def _latest_status() -> ColumnElement[str | None]:
    """The status of each photo's newest job (NULL without jobs), as a correlated subquery."""
    return (
        select(PhotoProcessingJob.status)
        .where(PhotoProcessingJob.photo_id == Photo.id)
        .order_by(PhotoProcessingJob.created_at.desc())
        .limit(1)
        .correlate(Photo)
        .scalar_subquery()
    )


def _status_group(status_col: ColumnElement[str | None]) -> ColumnElement[str]:
    """The /photos filter groups (SPEC §4, ``filterGroup`` in web/src/lib/photos.ts) in SQL."""
    return case(
        (status_col.in_(("completed", "completed_human")), "completed"),
        (status_col.in_(("processing", "in_progress_human")), "processing"),
        (status_col.in_(("failed", "rejected_human")), "failed"),
        else_="pending",
    )


def _encode_cursor(sort: str, photo: Photo) -> str:
    key = photo.original_filename if sort == "name" else photo.created_at.isoformat()
    raw = json.dumps([sort, key, str(photo.id)]).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def _decode_cursor(cursor: str, sort: str) -> tuple[str | datetime, uuid.UUID]:
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4))
        kind, key, photo_id = json.loads(raw)
        if kind != sort or not isinstance(key, str):
            raise ValueError("cursor of another sort")
        return (key if sort == "name" else datetime.fromisoformat(key)), uuid.UUID(photo_id)
    except (ValueError, TypeError, json.JSONDecodeError) as exc:
        raise ApiError(400, "Cursore di paginazione non valido.", "invalid_cursor") from exc


def _escape_like(text: str) -> str:
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def photo_counts(session: Session, user_id: uuid.UUID) -> PhotoCounts:
    """The caller's photo counters in one statement: by the newest job's filter group (the /photos
    summary) and by the photo's own status (the dashboard's Processate / In Coda)."""
    group = _status_group(_latest_status())
    row = session.execute(
        select(
            func.count(),
            func.count().filter(group == "completed"),
            func.count().filter(group == "processing"),
            func.count().filter(group == "failed"),
            func.count().filter(group == "pending"),
            func.count().filter(Photo.status == "processed"),
            func.count().filter(Photo.status.in_(("uploaded", "processing"))),
        ).where(Photo.user_id == user_id)
    ).one()
    total, completed, processing, failed, pending, processed, queued = (int(v) for v in row)
    return PhotoCounts(
        total=total,
        completed=completed,
        processing=processing,
        failed=failed,
        pending=pending,
        processed=processed,
        queued=queued,
    )


@router.get("", response_model=PhotoPage, operation_id="photos-list")
def list_photos(
    user: CurrentUser,
    session: SessionDep,
    limit: Annotated[int, Query(ge=1, le=PAGE_MAX)] = PAGE_DEFAULT,
    cursor: Annotated[str | None, Query(max_length=500)] = None,
    q: Annotated[str, Query(max_length=200)] = "",
    status: Annotated[StatusGroup, Query()] = "all",
    sort: Annotated[PhotoSort, Query()] = "newest",
) -> PhotoPage:
    """One page of the caller's photos with their jobs (DESIGN: ``limit`` default 24, max 100).

    ``q`` matches the original file name or a job's SEO name (case-insensitive substring); ``status``
    is the newest job's filter group; ``sort`` is ``newest`` (default), ``oldest`` or ``name``.
    ``next_cursor`` (opaque, keyset on the sort key and the id) fetches the next page; ``counts`` are
    over all the caller's photos, whatever the filters. Three statements whatever the page size: the
    page, its jobs (``selectinload``) and the counts."""
    stmt = select(Photo).where(Photo.user_id == user.id).options(selectinload(Photo.jobs))
    needle = q.strip()
    if needle:
        pattern = f"%{_escape_like(needle)}%"
        seo = PhotoProcessingJob.processing_details["seo_filename"].astext
        stmt = stmt.where(
            or_(
                Photo.original_filename.ilike(pattern, escape="\\"),
                select(PhotoProcessingJob.id)
                .where(PhotoProcessingJob.photo_id == Photo.id, seo.ilike(pattern, escape="\\"))
                .exists(),
            )
        )
    if status != "all":
        stmt = stmt.where(_status_group(_latest_status()) == status)
    key_col: Any = Photo.original_filename if sort == "name" else Photo.created_at
    descending = sort == "newest"
    if cursor:
        key, after_id = _decode_cursor(cursor, sort)
        stmt = stmt.where(
            tuple_(key_col, Photo.id) < tuple_(key, after_id)
            if descending
            else tuple_(key_col, Photo.id) > tuple_(key, after_id)
        )
    order = (key_col.desc(), Photo.id.desc()) if descending else (key_col.asc(), Photo.id.asc())
    rows = list(session.execute(stmt.order_by(*order).limit(limit + 1)).scalars().all())
    page, more = rows[:limit], len(rows) > limit
    return PhotoPage(
        items=[PhotoPublic.model_validate(p) for p in page],
        next_cursor=_encode_cursor(sort, page[-1]) if more else None,
        counts=photo_counts(session, user.id),
    )


def _owned_photo(session: SessionDep, user: CurrentUser, photo_id: uuid.UUID) -> Photo:
    photo = session.get(Photo, photo_id)
    if photo is None or (photo.user_id != user.id and effective_role(user) is not UserRole.admin):
        raise ApiError(404, "Foto non trovata", "photo_not_found")
    return photo


@router.get(
    "/{photo_id}/download",
    operation_id="photos-download",
    responses={200: {"content": {"image/jpeg": {}, "image/webp": {}}}},
)
def download_photo(
    photo_id: uuid.UUID,
    user: CurrentUser,
    session: SessionDep,
    format: Annotated[str, Query(pattern="^(jpeg|jpg|webp)$")] = "jpeg",
) -> Response:
    """The processed image as JPEG (default) or WebP, as an attachment named with its SEO file name
    (:func:`fotopronta.results.download_name`; a designer's result is returned in the format it was
    delivered). The storage key is the job's id, never the SEO name."""
    photo = _owned_photo(session, user, photo_id)
    key = (photo.processed_webp_path if format == "webp" else None) or photo.processed_path
    if photo.files_deleted_at is not None:
        raise ApiError(
            410,
            "Il file non è più disponibile: le foto vengono eliminate 30 giorni dopo la consegna.",
            "file_deleted",
            "Errore download",
        )
    if photo.status != "processed" or not key:
        raise ApiError(409, "La foto non è ancora stata elaborata.", "not_processed", "Errore download")
    try:
        data = get_storage().get(BUCKET_PROCESSED, key)
    except ObjectNotFoundError as exc:
        raise ApiError(
            410,
            "Il file non è più disponibile: le foto vengono eliminate 30 giorni dopo la consegna.",
            "file_deleted",
            "Errore download",
        ) from exc
    media = MEDIA_TYPES.get(PurePath(key).suffix.lower(), "application/octet-stream")
    return Response(
        data,
        media_type=media,
        headers={"Content-Disposition": content_disposition(download_name(photo, key))},
    )


ACTIVE_JOB_STATUSES = {
    JobStatus.pending,
    JobStatus.waiting_for_credits,
    JobStatus.processing,
    JobStatus.pending_human,
    JobStatus.assigned_to_graphic,
    JobStatus.in_progress_human,
}


CANCELLABLE_JOB_STATUSES = {JobStatus.pending_human, JobStatus.assigned_to_graphic}
"""DESIGN decisions: the seller may cancel a photo queued for designers until a designer starts it."""


def _latest_job(photo: Photo) -> PhotoProcessingJob | None:
    return max(photo.jobs, key=lambda j: j.created_at) if photo.jobs else None


def _fresh_photo(session: Session, user: Profile, photo_id: uuid.UUID) -> PhotoPublic:
    """The photo as the client sees it, reloaded after a workflow update (blocking: threadpool)."""
    session.expire_all()
    return PhotoPublic.model_validate(_owned_photo(session, user, photo_id))


def _reprocessable_job(session: Session, user: Profile, photo_id: uuid.UUID) -> PhotoProcessingJob:
    """The photo's failed, retryable latest job, if the owner has credits (blocking: threadpool).

    Raises:
        ApiError: 404 not the caller's photo; 409 not reprocessable; 410 files deleted; 400 no credits.
    """
    photo = _owned_photo(session, user, photo_id)
    refusal = reprocess_refusal(photo)
    if refusal is not None:
        raise refusal
    job = _latest_job(photo)
    assert job is not None  # reprocess_refusal: a failed latest job
    owner = session.get_one(Profile, photo.user_id)
    if owner.credits_remaining <= 0:
        raise ApiError(400, "Crediti insufficienti", "insufficient_credits", "Crediti insufficienti")
    return job


@router.post("/{photo_id}/reprocess", response_model=PhotoPublic, operation_id="photos-reprocess")
async def reprocess_photo(
    photo_id: uuid.UUID, user: CurrentUser, session: SessionDep, temporal: TemporalDep
) -> PhotoPublic:
    """Run a failed job with a retryable error again (SPEC §4); refused at 0 credits."""
    job = await run_in_threadpool(_reprocessable_job, session, user, photo_id)
    try:
        await run_job_update(
            temporal,
            job.id,
            PhotoJobWorkflow.reprocess,
            ReprocessInput(actor_id=str(user.id)),
            title="Impossibile avviare la rielaborazione",
        )
    except ApiError as exc:
        if exc.code != "workflow_closed":
            raise
        await _restart_workflow(session, temporal, job)
    return await run_in_threadpool(_fresh_photo, session, user, photo_id)


def _start_details(session: Session, job: PhotoProcessingJob) -> tuple[int, str, str]:
    """``(reservations so far, owner's e-mail, photo name)`` of a job, to start a new run."""
    runs = session.execute(
        select(func.count())
        .select_from(CreditLedgerEntry)
        .where(CreditLedgerEntry.job_id == job.id, CreditLedgerEntry.kind == "reserve")
    ).scalar_one()
    email = session.execute(select(Profile.email).where(Profile.id == job.user_id)).scalar_one()
    name = session.execute(select(Photo.original_filename).where(Photo.id == job.photo_id)).scalar_one()
    return int(runs), email, name


async def _restart_workflow(session: Session, temporal: Client, job: PhotoProcessingJob) -> None:
    """Start a new run of a failed job whose workflow has ended (reservation ``{job_id}:{run}``)."""
    runs, email, name = await run_in_threadpool(_start_details, session, job)
    await start_job_workflow(temporal, job, run=runs + 1, email=email, photo_name=name)


def _deletable(
    session: Session, user: Profile, photo_id: uuid.UUID
) -> tuple[Photo, PhotoProcessingJob | None]:
    """The caller's photo and its latest job, reloaded (blocking: threadpool)."""
    session.expire_all()
    photo = _owned_photo(session, user, photo_id)
    return photo, _latest_job(photo)


def _delete_tx(session: Session, photo: Photo) -> list[uuid.UUID]:
    """Delete the photo's rows (and its order's when it was the last), then its files unless another
    photo still uses them; returns its job ids (blocking: threadpool)."""
    storage = get_storage()
    shared = keys_used_elsewhere(session, photo)  # never delete a file another photo still uses
    keys = [
        (BUCKET_UPLOADS, photo.upload_path),
        (BUCKET_PROCESSED, photo.processed_path if photo.processed_path not in shared else None),
        (BUCKET_PROCESSED, photo.processed_webp_path if photo.processed_webp_path not in shared else None),
    ]
    job_ids = [j.id for j in photo.jobs]
    order = session.get(Order, photo.order_id) if photo.order_id else None
    session.delete(photo)
    session.flush()
    if order is not None:
        order.total_photos = max(order.total_photos - 1, 0)
        if order.total_photos == 0:
            session.delete(order)
        else:
            refresh_order(session, order.id)
    session.commit()
    for bucket, key in keys:
        if key:
            storage.delete(bucket, key)
            storage.delete(bucket, thumbnail_key(key))
    return job_ids


@router.delete("/{photo_id}", status_code=status.HTTP_204_NO_CONTENT, operation_id="photos-delete")
async def delete_photo(
    photo_id: uuid.UUID, user: CurrentUser, session: SessionDep, temporal: TemporalDep
) -> None:
    """Delete a photo, its files and its jobs; refused while a job is still running. A job queued for
    designers and not started yet is first cancelled by its workflow (credits released)."""
    photo, job = await run_in_threadpool(_deletable, session, user, photo_id)
    busy = ApiError(409, PHOTO_BUSY_MESSAGE, "photo_busy", "Impossibile eliminare la foto")
    if job is not None and job.status in CANCELLABLE_JOB_STATUSES:
        try:
            await run_job_update(
                temporal, job.id, PhotoJobWorkflow.cancel, CancelInput(actor_id=str(user.id))
            )
        except ApiError as exc:
            raise busy from exc
        photo, job = await run_in_threadpool(_deletable, session, user, photo_id)
    if job is not None and job.status in ACTIVE_JOB_STATUSES:
        raise busy
    job_ids = await run_in_threadpool(_delete_tx, session, photo)
    for job_id in job_ids:  # the workflows were only waiting for retention or a reprocess
        with contextlib.suppress(RPCError):
            await temporal.get_workflow_handle(workflow_id_for_job(str(job_id))).terminate(
                reason="foto eliminata dal cliente"
            )


class ReworkBody(BaseModel):
    """``POST /api/photos/{id}/rework``: what the seller wants changed (for the designer)."""

    notes: str | None = Field(default=None, max_length=2000)


@router.post("/{photo_id}/rework", response_model=PhotoPublic, operation_id="photos-rework")
async def request_free_rework(
    photo_id: uuid.UUID, body: ReworkBody, user: CurrentUser, session: SessionDep, temporal: TemporalDep
) -> PhotoPublic:
    """Ask once, within 7 days of an AI delivery, for a free rework by the designers (a human job at 0
    credits); the current result stays downloadable until the new one is delivered."""
    rework, email, name = await run_in_threadpool(_rework_tx, session, user, photo_id, body.notes)
    await start_job_workflow(temporal, rework, email=email, photo_name=name)
    return await run_in_threadpool(_fresh_photo, session, user, photo_id)


def _rework_tx(
    session: Session, user: Profile, photo_id: uuid.UUID, notes: str | None
) -> tuple[PhotoProcessingJob, str, str]:
    """Check the free-rework rules and insert the human job (blocking: threadpool); returns the job,
    the owner's e-mail and the photo's name.

    Raises:
        ApiError: 404 not the caller's photo; 409 already asked, not completed or too late; 410 files
            deleted.
    """
    photo = _owned_photo(session, user, photo_id)
    refusal = rework_refusal(photo)
    if refusal is not None:
        raise refusal
    job = _latest_job(photo)
    assert job is not None  # rework_refusal: a completed latest job
    rework = PhotoProcessingJob(
        photo_id=photo.id,
        user_id=photo.user_id,
        job_type=JobType.background_removal_human.value,
        status=JobStatus.pending.value,
        priority=2,
        client_notes=notes,
        options={**(job.options or {}), "rework": True, "cost": 0},
    )
    session.add(rework)
    session.commit()
    email = session.execute(select(Profile.email).where(Profile.id == photo.user_id)).scalar_one()
    return rework, email, photo.original_filename


THUMBNAIL_CACHE_S = 300
STORED_THUMBNAIL_CACHE_S = 86_400
"""A stored preview never changes under its key (results get new keys; the web app puts the result's
key in the URL), so browsers may keep it a day and revalidate with its ETag."""
THUMBNAIL_MAX_DECODE_PIXELS = 16_000_000
"""Hard cap on the pixels the API decodes for one preview (16 MP: at most 64 MB as RGBA). A JPEG is
decoded at 1/2, 1/4 or 1/8 scale (``draft``), so a JPEG of up to 1 GP fits; a larger PNG, WebP, TIFF or
HEIC original has no preview until its result exists (404 'Anteprima non disponibile'), and an upload
over 80 MP is refused anyway (issue 11, item 2)."""
THUMBNAIL_DECODE_SLOTS = threading.BoundedSemaphore(2)
"""At most two previews decode at the same time in one API process (≤ 128 MB of pixels in all)."""


class ThumbnailTooLargeError(ValueError):
    """Decoding this image for a preview would exceed :data:`THUMBNAIL_MAX_DECODE_PIXELS`."""


@router.get(
    "/{photo_id}/thumbnail", operation_id="photos-thumbnail", responses={200: {"content": {"image/jpeg": {}}}}
)
def photo_thumbnail(
    photo_id: uuid.UUID,
    user: CurrentUser,
    session: SessionDep,
    request: Request,
    size: Annotated[int | None, Query(ge=64, le=1024)] = None,
    variant: Annotated[str, Query(pattern="^(result|original)$")] = "result",
) -> Response:
    """A preview of the delivered result when there is one, else of the original (``variant=original``:
    always the original, the card's before/after): the stored WebP (≤ 512 px, ``fotopronta.thumbnails``)
    with ``Cache-Control`` and an ``ETag`` (``If-None-Match`` → 304); for files stored without one, or
    when ``size`` is asked for, a JPEG of at most ``size`` (320) px decoded from the file (16 MP guard).
    404 'Anteprima non disponibile' when the file is gone or not decodable here."""
    photo = _owned_photo(session, user, photo_id)
    unavailable = ApiError(404, "Anteprima non disponibile", "thumbnail_unavailable")
    if photo.files_deleted_at is not None:
        raise unavailable
    if variant == "result" and photo.status == "processed" and photo.processed_path:
        bucket, key = BUCKET_PROCESSED, photo.processed_path
    else:
        bucket, key = BUCKET_UPLOADS, photo.upload_path
    stored = None
    if size is None:
        with contextlib.suppress(ObjectNotFoundError):
            stored = get_storage().get(bucket, thumbnail_key(key))
    if stored is not None:
        etag = '"' + hashlib.sha256(stored).hexdigest()[:32] + '"'
        headers = {"Cache-Control": f"private, max-age={STORED_THUMBNAIL_CACHE_S}", "ETag": etag}
        if_none_match = request.headers.get("if-none-match")
        if if_none_match and etag in {t.strip() for t in if_none_match.split(",")}:
            return Response(status_code=304, headers=headers)
        return Response(stored, media_type="image/webp", headers=headers)
    try:
        data = get_storage().get(bucket, key)
        preview = _thumbnail_jpeg(data, size or 320)
    except (ObjectNotFoundError, OSError, ValueError, Image.DecompressionBombError) as exc:
        raise unavailable from exc  # ThumbnailTooLargeError is a ValueError
    return Response(
        preview, media_type="image/jpeg", headers={"Cache-Control": f"private, max-age={THUMBNAIL_CACHE_S}"}
    )


def _thumbnail_jpeg(data: bytes, size: int) -> bytes:
    """Decode (JPEG at reduced scale via ``draft``), apply EXIF orientation, fit in ``size``×``size``
    px, flatten transparency on white, encode JPEG quality 82. The pixel count is read from the header
    (after ``draft``) and checked against :data:`THUMBNAIL_MAX_DECODE_PIXELS` *before* decoding; at
    most two decodes run at once (:data:`THUMBNAIL_DECODE_SLOTS`).

    Raises:
        ThumbnailTooLargeError: the decode would exceed the cap.
        OSError, ValueError: not an image Pillow can read.
    """
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", Image.DecompressionBombWarning)  # our own cap is far lower
        img = Image.open(io.BytesIO(data))
    with img:
        img.draft("RGB", (size, size))  # JPEG only: decode at 1/2..1/8 scale; size reflects it
        width, height = img.size
        if width * height > THUMBNAIL_MAX_DECODE_PIXELS:
            raise ThumbnailTooLargeError(f"{width}x{height} px")
        with THUMBNAIL_DECODE_SLOTS:
            return _encode_thumbnail(img, size)


def _encode_thumbnail(img: Image.Image, size: int) -> bytes:
    """Orient, fit in ``size``×``size`` px, flatten on white and encode JPEG quality 82."""
    oriented = ImageOps.exif_transpose(img)
    oriented.thumbnail((size, size))
    buf = io.BytesIO()
    flatten_on_white(oriented).save(buf, "JPEG", quality=82)
    return buf.getvalue()

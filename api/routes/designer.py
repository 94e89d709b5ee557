"""Designer endpoints (``/api/designer/jobs``): the human-job queue, assign to me, start, complete with
the result file, reject, download the original (SPEC §4 Human workflow, §5 designer upload, §6)."""

from __future__ import annotations

import logging
import time
import uuid
from typing import Annotated

from fastapi import APIRouter, File, Form, Query, UploadFile
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import Response
from pydantic import BaseModel, Field

from activities.contracts import AssignInput, CompleteHumanInput, RejectInput, StartInput
from api.deps import DesignerUser, SessionDep, TemporalDep, effective_role
from api.errors import ApiError
from api.http_headers import content_disposition
from api.job_control import run_job_update
from api.request_limits import DESIGNER_RESULT_MAX_BYTES
from api.schemas import DesignerJob
from api.services import designer as service
from api.services.thumbnails import THUMBNAIL_CACHE_S, decoded_preview, thumbnail_unavailable
from api.text_rules import INVALID_CHARACTERS, FreeText, has_control_characters, says_something
from api.uploads import inspect_image
from fotopronta import mailer
from fotopronta.domain import UserRole
from fotopronta.storage import BUCKET_PROCESSED, BUCKET_UPLOADS, ObjectNotFoundError, get_storage
from fotopronta.thumbnails import store_thumbnail, thumbnail_key
from workflows.photo_job import PhotoJobWorkflow

router = APIRouter(prefix="/api/designer", tags=["designer"])
log = logging.getLogger("fotopronta.api.designer")

DESIGNER_RESULT_TYPES = {"image/jpeg": "jpg", "image/jpg": "jpg", "image/png": "png", "image/webp": "webp"}
"""SPEC §5 Designer result upload: only these types."""
DESIGNER_SNIFFED_TYPES = frozenset({"image/jpeg", "image/png", "image/webp"})
"""What the result's bytes must be (sniffed from the content), whatever the Content-Type says."""
ORIGINAL_MEDIA_TYPES = frozenset(
    {"image/jpeg", "image/png", "image/webp", "image/tiff", "image/heic", "image/heif", "image/avif"}
)
"""Stored original types served with their own Content-Type; anything else (an SVG or a text file
stored before uploads were checked by content) is served as ``application/octet-stream``."""


NOTES_MAX_CHARS = 2000
"""Longest note to the client or rejection reason a designer may write."""
REJECT_REASON_MIN_CHARS = 5
"""A rejection reason must say something: at least this many characters once trimmed (a few words)."""
REJECT_REASON_REQUIRED = (
    f"Scrivi il motivo del rifiuto (almeno {REJECT_REASON_MIN_CHARS} caratteri): il cliente lo riceve "
    "nella notifica."
)
REJECT_REASON_WORDS = (
    "Scrivi il motivo del rifiuto a parole (almeno due parole, non solo numeri o simboli): il cliente "
    "lo legge per capire cosa fare."
)


class RejectBody(BaseModel):
    """``POST /api/designer/jobs/{id}/reject``: the reason shown to the client (required, at least
    :data:`REJECT_REASON_MIN_CHARS` characters once trimmed; checked by the route for an Italian
    message)."""

    notes: FreeText | None = Field(default=None, max_length=NOTES_MAX_CHARS)


def _clean_notes(notes: str | None) -> str | None:
    """The designer's text trimmed, or ``None`` when blank."""
    text = (notes or "").strip()
    return text or None


@router.get("/jobs", response_model=list[DesignerJob], operation_id="designer-jobs-list")
def list_jobs(
    user: DesignerUser, session: SessionDep, status: Annotated[str | None, Query()] = None
) -> list[DesignerJob]:
    """The queue: unassigned pending human jobs and the caller's assigned/in-progress ones (admins
    see every active human job), by priority then age."""
    return service.queue(session, user, status)


@router.get("/history", response_model=list[DesignerJob], operation_id="designer-jobs-history")
def job_history(
    user: DesignerUser,
    session: SessionDep,
    limit: Annotated[int, Query(ge=1, le=service.HISTORY_LIMIT)] = service.HISTORY_LIMIT,
) -> list[DesignerJob]:
    """'Completati': the human jobs the caller delivered (admins: every designer's), the most recently
    completed first (at most 50)."""
    return service.history(session, user, limit)


@router.post(
    "/jobs/{job_id}/assign-to-me", response_model=DesignerJob, operation_id="designer-jobs-assign-to-me"
)
async def assign_to_me(
    job_id: uuid.UUID, user: DesignerUser, session: SessionDep, temporal: TemporalDep
) -> DesignerJob:
    """Take a pending job (72-hour deadline); refused when inactive or at capacity."""
    await run_in_threadpool(service.load_human_job, session, job_id)
    await run_job_update(
        temporal,
        job_id,
        PhotoJobWorkflow.assign,
        AssignInput(designer_id=str(user.id), actor_id=str(user.id)),
        title="Impossibile assegnare il lavoro",
    )
    return await run_in_threadpool(service.reloaded_job, session, job_id)


@router.post("/jobs/{job_id}/start", response_model=DesignerJob, operation_id="designer-jobs-start")
async def start_job(
    job_id: uuid.UUID, user: DesignerUser, session: SessionDep, temporal: TemporalDep
) -> DesignerJob:
    """Start one's own assigned job."""
    job, _ = await run_in_threadpool(service.load_human_job, session, job_id)
    service.require_assignee(job, user)
    await run_job_update(
        temporal,
        job_id,
        PhotoJobWorkflow.start,
        StartInput(actor_id=str(user.id)),
        title="Impossibile iniziare il lavoro",
    )
    return await run_in_threadpool(service.reloaded_job, session, job_id)


@router.post(
    "/jobs/{job_id}/complete",
    response_model=DesignerJob,
    operation_id="designer-jobs-complete",
    form_limits={"max_files": 1, "max_fields": 4},
)
async def complete_job(
    job_id: uuid.UUID,
    user: DesignerUser,
    session: SessionDep,
    temporal: TemporalDep,
    file: Annotated[UploadFile, File()],
    notes: Annotated[str | None, Form(max_length=NOTES_MAX_CHARS)] = None,
) -> DesignerJob:
    """Deliver the result (JPEG/PNG/WebP ≤ 10 MB, checked by content: type from the bytes, ≤ 80 MP) of
    one's own in-progress job. The optional ``notes`` to the client are shown on the seller's photo
    card and quoted in the 'Foto pronta' notification and e-mail (an e-mail the SMTP server refuses is
    logged; the delivery stands)."""
    if notes and has_control_characters(notes, allow_newlines=True):
        raise ApiError(400, INVALID_CHARACTERS, "invalid_characters", "Errore upload")
    notes = _clean_notes(notes)
    job, photo = await run_in_threadpool(service.load_human_job, session, job_id)
    service.require_assignee(job, user)
    content_type = (file.content_type or "").lower()
    if content_type not in DESIGNER_RESULT_TYPES:
        raise ApiError(
            400, "Sono ammessi solo file JPG, PNG e WebP", "unsupported_type", "Formato non supportato"
        )
    data = await file.read(DESIGNER_RESULT_MAX_BYTES + 1)
    if len(data) > DESIGNER_RESULT_MAX_BYTES:
        raise ApiError(400, "Il file deve essere inferiore a 10MB", "file_too_large", "File troppo grande")
    try:  # the bytes must be the JPEG, PNG or WebP the Content-Type claims, within 80 MP
        info = await run_in_threadpool(
            inspect_image,
            data,
            file.filename or "",
            max_bytes=DESIGNER_RESULT_MAX_BYTES,
            allowed=DESIGNER_SNIFFED_TYPES,
        )
    except ApiError as exc:
        if exc.code != "unsupported_type":
            raise
        raise ApiError(
            400, "Sono ammessi solo file JPG, PNG e WebP", "unsupported_type", "Formato non supportato"
        ) from exc
    key = f"{job.user_id}/processed-{photo.id}-{int(time.time() * 1000)}.{info.ext}"
    storage = await run_in_threadpool(get_storage)
    await run_in_threadpool(storage.put, BUCKET_PROCESSED, key, data, info.mime)
    await run_in_threadpool(store_thumbnail, storage, BUCKET_PROCESSED, key, data)
    try:
        await run_job_update(
            temporal,
            job_id,
            PhotoJobWorkflow.complete,
            CompleteHumanInput(actor_id=str(user.id), result_key=key, notes=notes),
            title="Errore upload",
        )
    except BaseException:
        await run_in_threadpool(storage.delete, BUCKET_PROCESSED, key)
        await run_in_threadpool(storage.delete, BUCKET_PROCESSED, thumbnail_key(key))
        raise
    ready = await run_in_threadpool(service.photo_ready_email, session, job_id, notes)
    try:
        await mailer.send_email(ready)
    except mailer.MailDeliveryError:  # the result is delivered; the bell and /photos still say so
        log.exception("'Foto pronta' e-mail to %s not delivered", ready.to)
    return await run_in_threadpool(service.reloaded_job, session, job_id)


@router.post("/jobs/{job_id}/reject", response_model=DesignerJob, operation_id="designer-jobs-reject")
async def reject_job(
    job_id: uuid.UUID, body: RejectBody, user: DesignerUser, session: SessionDep, temporal: TemporalDep
) -> DesignerJob:
    """Reject one's own in-progress job; the notes are the reason the client reads.

    Raises:
        ApiError: 400 ``reason_required`` (title 'Impossibile rifiutare il lavoro') when the reason is
            missing or shorter than :data:`REJECT_REASON_MIN_CHARS` characters once trimmed; 400
            ``reason_without_words`` when it is not words (:func:`api.text_rules.says_something`:
            ``"__main__"``, ``"999999"``).
    """
    reason = _clean_notes(body.notes)
    if reason is None or len(reason) < REJECT_REASON_MIN_CHARS:
        raise ApiError(400, REJECT_REASON_REQUIRED, "reason_required", "Impossibile rifiutare il lavoro")
    if not says_something(reason):
        raise ApiError(400, REJECT_REASON_WORDS, "reason_without_words", "Impossibile rifiutare il lavoro")
    job, _ = await run_in_threadpool(service.load_human_job, session, job_id)
    service.require_assignee(job, user)
    await run_job_update(
        temporal,
        job_id,
        PhotoJobWorkflow.reject,
        RejectInput(actor_id=str(user.id), notes=reason),
        title="Impossibile rifiutare il lavoro",
    )
    return await run_in_threadpool(service.reloaded_job, session, job_id)


@router.get("/jobs/{job_id}/original", operation_id="designer-jobs-original")
def download_original(job_id: uuid.UUID, user: DesignerUser, session: SessionDep) -> Response:
    """The original photo of one's own assigned job (admins: any human job), as an attachment named
    like the seller's file (RFC 6266 ``filename=`` ASCII fallback + ``filename*=UTF-8''…``); served as
    ``application/octet-stream`` unless its stored type is an image type we accept."""
    job, photo = service.load_human_job(session, job_id)
    if effective_role(user) is not UserRole.admin:
        service.require_assignee(job, user)
    try:
        data = get_storage().get(BUCKET_UPLOADS, photo.upload_path)
    except ObjectNotFoundError as exc:
        raise ApiError(404, "Foto non trovata", "photo_not_found") from exc
    media = photo.file_format if photo.file_format in ORIGINAL_MEDIA_TYPES else "application/octet-stream"
    return Response(
        data,
        media_type=media,
        headers={"Content-Disposition": content_disposition(photo.original_filename)},
    )


@router.get(
    "/jobs/{job_id}/thumbnail",
    operation_id="designer-jobs-thumbnail",
    responses={200: {"content": {"image/jpeg": {}}}},
)
def job_thumbnail(
    job_id: uuid.UUID,
    user: DesignerUser,
    session: SessionDep,
    size: Annotated[int, Query(ge=64, le=1024)] = 320,
) -> Response:
    """A JPEG preview (≤ ``size`` px on its long side) of the job's original, for the queue's cards.

    Raises:
        ApiError: 404 'Lavoro non trovato' for a job the caller may not see (another designer's, or no
            longer in the queue) and 'Anteprima non disponibile' when the file is gone or unreadable.
    """
    job, photo = service.load_human_job(session, job_id)
    if not service.can_see_job(job, user):
        raise ApiError(404, "Lavoro non trovato", "job_not_found")
    if photo.files_deleted_at is not None:
        raise thumbnail_unavailable()
    preview = decoded_preview(BUCKET_UPLOADS, photo.upload_path, size)
    return Response(
        preview, media_type="image/jpeg", headers={"Cache-Control": f"private, max-age={THUMBNAIL_CACHE_S}"}
    )

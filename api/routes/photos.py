"""Photos: upload (starts one ``PhotoJobWorkflow`` each; ``/batch`` keeps the good files of a batch
with a bad one), list, download, reprocess, delete, free
rework and previews (``/api/photos``). The transactions live in :mod:`api.services.photos`; these
routes check the input, call one service function and start or update workflows."""

from __future__ import annotations

import contextlib
import uuid
from datetime import UTC, datetime
from typing import Annotated

from fastapi import APIRouter, Depends, File, Form, Query, Request, UploadFile, status
from fastapi.concurrency import iterate_in_threadpool, run_in_threadpool
from fastapi.responses import Response, StreamingResponse
from pydantic import BaseModel, Field
from temporalio.service import RPCError

from activities.contracts import CancelInput, ReprocessInput, workflow_id_for_job
from api.deps import SellerUser, SessionDep, TemporalDep, effective_role
from api.errors import ApiError
from api.http_headers import content_disposition
from api.job_control import run_job_update
from api.schemas import PhotoPage, PhotoPublic
from api.services import photos as service
from api.services.thumbnails import (
    STORED_THUMBNAIL_CACHE_S,
    THUMBNAIL_CACHE_S,
    decoded_preview,
    stored_preview,
)
from api.text_rules import INVALID_CHARACTERS, FreeText, has_control_characters, safe_filename
from api.uploads import (
    INVALID_FILENAME,
    UPLOAD_MAX_FIELDS,
    UPLOAD_MAX_PARTS,
    UPLOAD_TITLE,
    check_batch,
    inspect_each,
    inspect_uploads,
    upload_names,
)
from fotopronta.domain import CANCELLABLE_STATUSES, SMART_BACKGROUND_COST, JobStatus, JobType
from fotopronta.models import Profile
from fotopronta.results import stream_zip
from retouch.presets import DEFAULT_PRESET, PRESETS, SMART_BACKGROUND_CATEGORIES
from workflows.photo_job import PhotoJobWorkflow
from workflows.starter import start_job_workflow, start_job_workflows_or_defer

router = APIRouter(prefix="/api/photos", tags=["photos"])


UploadFiles = Annotated[list[UploadFile], File(description="one or more images")]
JobTypeField = Annotated[str, Form()]
BackgroundField = Annotated[str | None, Form()]
PresetField = Annotated[str, Form()]
ShadowField = Annotated[bool, Form()]
BrandField = Annotated[str | None, Form(max_length=100)]
CategoryField = Annotated[str | None, Form(max_length=100)]
NotesField = Annotated[str | None, Form(max_length=2000)]


def upload_options(
    user: SellerUser,
    job_type: JobTypeField = JobType.background_removal.value,
    background_category: BackgroundField = None,
    preset: PresetField = DEFAULT_PRESET,
    shadow: ShadowField = True,
    brand: BrandField = None,
    category: CategoryField = None,
    client_notes: NotesField = None,
) -> service.JobOptions:
    """The batch's options from the upload form, checked (a dependency of both upload routes).

    Raises:
        ApiError: 400 for an unknown job type, background category or preset, or a smart background
            below its minimum credits; 400 ``invalid_characters`` for control characters in brand,
            category (single line) or notes.
    """
    for value, multi_line in ((brand, False), (category, False), (client_notes, True)):
        if value and has_control_characters(value, allow_newlines=multi_line):
            raise ApiError(400, INVALID_CHARACTERS, "invalid_characters", UPLOAD_TITLE)
    try:
        kind = JobType(job_type)
    except ValueError as exc:
        raise ApiError(400, "Tipo di lavorazione non valido.", "invalid_job_type") from exc
    if kind is JobType.smart_backgrounds:
        if background_category not in SMART_BACKGROUND_CATEGORIES:
            raise ApiError(400, "Scegli una categoria di sfondo valida.", "invalid_background_category")
        if user.credits_remaining < SMART_BACKGROUND_COST:
            raise ApiError(400, "Crediti insufficienti", "insufficient_credits", "Crediti insufficienti")
    else:
        background_category = None
    if preset not in PRESETS:
        raise ApiError(400, "Formato di uscita non valido.", "invalid_preset")
    return service.JobOptions(
        kind=kind,
        background_category=background_category,
        preset=preset,
        shadow=shadow,
        brand=brand,
        category=category,
        client_notes=client_notes,
    )


UploadOptions = Annotated[service.JobOptions, Depends(upload_options)]


async def _store_and_start(
    user: Profile,
    session: SessionDep,
    temporal: TemporalDep,
    uploads: list[service.UploadedFile],
    options: service.JobOptions,
) -> list[PhotoPublic]:
    """Store the checked files as one order, start one workflow per photo (or leave the jobs pending
    for the reconciler while Temporal is unreachable); the created photos, in order."""
    created = await run_in_threadpool(service.store_upload, session, user, uploads, options)
    # committed first: if Temporal is unreachable the jobs stay pending and the worker's reconciler
    # starts their workflows once it is back (workflows/starter.py); the upload still succeeds
    await start_job_workflows_or_defer(
        temporal,
        [job for _, job in created],
        email=user.email,
        photo_names={job.id: photo.original_filename for photo, job in created},
    )
    return await run_in_threadpool(service.reloaded, session, [photo for photo, _ in created])


@router.post(
    "",
    status_code=status.HTTP_201_CREATED,
    response_model=list[PhotoPublic],
    operation_id="photos-upload",
    form_limits={"max_files": UPLOAD_MAX_PARTS, "max_fields": UPLOAD_MAX_FIELDS},
)
async def upload_photos(
    user: SellerUser,
    session: SessionDep,
    temporal: TemporalDep,
    files: UploadFiles,
    options: UploadOptions,
) -> list[PhotoPublic]:
    """Check every file by its content (type, bytes, megapixels), then store each original, insert its
    photo and job, start one workflow per photo (or leave the jobs pending for the reconciler while
    Temporal is unreachable). A refused file refuses the batch: no row, no file, no credit (the web
    app uses ``POST /api/photos/batch``, which keeps the good files)."""
    check_batch(files, effective_role(user))
    names = upload_names(files)  # NUL or control characters refuse the batch; long names are cut
    infos = await inspect_uploads(files)  # by content, before any row, file or credit
    uploads = [
        service.UploadedFile(filename=name, data=await upload.read(), info=info)
        for upload, name, info in zip(files, names, infos, strict=True)
    ]
    return await _store_and_start(user, session, temporal, uploads, options)


class RejectedFile(BaseModel):
    """A file of a batch that was not stored: its position in the request (from 0), its name and why
    (the Italian ``title``/``detail`` and ``code`` an all-or-nothing upload would have answered)."""

    index: int
    filename: str
    code: str
    title: str | None
    detail: str


class UploadBatchResult(BaseModel):
    """``POST /api/photos/batch``: the photos created (one order) and the files refused, each with its
    own reason."""

    photos: list[PhotoPublic]
    rejected: list[RejectedFile]


@router.post(
    "/batch",
    response_model=UploadBatchResult,
    operation_id="photos-upload-batch",
    form_limits={"max_files": UPLOAD_MAX_PARTS, "max_fields": UPLOAD_MAX_FIELDS},
)
async def upload_batch(
    user: SellerUser,
    session: SessionDep,
    temporal: TemporalDep,
    response: Response,
    files: UploadFiles,
    options: UploadOptions,
) -> UploadBatchResult:
    """Like ``POST /api/photos``, but a file refused by its content does not refuse the others: the
    good files are stored as one order and started (201), each refused file is listed with its own
    reason; nothing is stored or charged for a refused file (200 with no photos when every file was
    refused). The batch's own rules (count, total size, job options) still refuse it whole (400)."""
    check_batch(files, effective_role(user))
    checks = await inspect_each(files)  # by content, before any row, file or credit
    uploads: list[service.UploadedFile] = []
    rejected: list[RejectedFile] = []
    for index, (upload, result) in enumerate(zip(files, checks, strict=True)):
        name = safe_filename(upload.filename or "")
        if name is None:  # NUL or another control character: refused by name, nothing stored
            rejected.append(
                RejectedFile(
                    index=index,
                    filename=(upload.filename or "").encode("ascii", "backslashreplace").decode()[:150],
                    code="invalid_filename",
                    title=UPLOAD_TITLE,
                    detail=INVALID_FILENAME,
                )
            )
        elif isinstance(result, ApiError):
            rejected.append(
                RejectedFile(
                    index=index, filename=name, code=result.code, title=result.title, detail=result.detail
                )
            )
        else:
            uploads.append(service.UploadedFile(filename=name, data=await upload.read(), info=result))
    photos = await _store_and_start(user, session, temporal, uploads, options) if uploads else []
    response.status_code = status.HTTP_201_CREATED if photos else status.HTTP_200_OK
    return UploadBatchResult(photos=photos, rejected=rejected)


@router.get("", response_model=PhotoPage, operation_id="photos-list")
def list_photos(
    user: SellerUser,
    session: SessionDep,
    limit: Annotated[int, Query(ge=1, le=service.PAGE_MAX)] = service.PAGE_DEFAULT,
    cursor: Annotated[str | None, Query(max_length=500)] = None,
    q: Annotated[str, Query(max_length=200)] = "",
    status: Annotated[service.StatusGroup, Query()] = "all",
    sort: Annotated[service.PhotoSort, Query()] = "newest",
) -> PhotoPage:
    """One page of the caller's photos with their jobs (DESIGN: ``limit`` default 24, max 100).

    ``q`` matches the original file name or a job's SEO name (case-insensitive substring); ``status``
    is the newest job's filter group; ``sort`` is ``newest`` (default), ``oldest``, ``name`` or ``status`` (errors, in progress, waiting,
    completed; newest first within each).
    ``next_cursor`` (opaque, keyset on the sort key and the id) fetches the next page; ``counts`` are
    over all the caller's photos, whatever the filters. Three statements whatever the page size: the
    page, its jobs (``selectinload``) and the counts. Each photo says whether a free rework
    (``can_rework``) or a reprocess (``can_reprocess``) would be accepted."""
    return service.list_photos(session, user.id, limit=limit, cursor=cursor, q=q, status=status, sort=sort)


class ZipBody(BaseModel):
    """``POST /api/photos/zip``: the selected photos' ids (at most ``ZIP_MAX_PHOTOS``, checked with an
    Italian error)."""

    photo_ids: list[uuid.UUID]


@router.post(
    "/zip",
    operation_id="photos-zip",
    responses={200: {"content": {"application/zip": {}}}},
    response_class=StreamingResponse,
)
async def download_zip(body: ZipBody, user: SellerUser, session: SessionDep) -> StreamingResponse:
    """One ZIP of the caller's selected delivered photos ('Scarica selezionate'), each entry named with
    the SEO name its card shows (:func:`api.services.photos.zip_entries`), streamed one file at a time
    (:func:`fotopronta.results.stream_zip`): the archive is never held whole in memory. The checks
    (owner only, the bound on ids, something to download) answer before the first byte."""
    entries = await run_in_threadpool(service.zip_entries, session, user, body.photo_ids)
    name = f"fotopronta-foto-{datetime.now(UTC):%Y%m%d-%H%M%S}.zip"
    return StreamingResponse(
        iterate_in_threadpool(stream_zip(entries, service.read_result)),
        media_type="application/zip",
        headers={"Content-Disposition": content_disposition(name)},
    )


@router.get(
    "/{photo_id}/download",
    operation_id="photos-download",
    responses={200: {"content": {"image/jpeg": {}, "image/webp": {}}}},
)
def download_photo(
    photo_id: uuid.UUID,
    user: SellerUser,
    session: SessionDep,
    format: Annotated[str, Query(pattern="^(jpeg|jpg|webp)$")] = "jpeg",  # noqa: A002  API contract: ?format=
) -> Response:
    """The processed image as JPEG (default) or WebP, as an attachment named with its SEO file name
    (:func:`fotopronta.results.download_name`; a designer's result is returned in the format it was
    delivered). The storage key is the job's id, never the SEO name."""
    data, media, name = service.download(session, user, photo_id, format)
    return Response(data, media_type=media, headers={"Content-Disposition": content_disposition(name)})


@router.post("/{photo_id}/reprocess", response_model=PhotoPublic, operation_id="photos-reprocess")
async def reprocess_photo(
    photo_id: uuid.UUID, user: SellerUser, session: SessionDep, temporal: TemporalDep
) -> PhotoPublic:
    """Run a failed job with a retryable error again (SPEC §4); refused at 0 credits."""
    job = await run_in_threadpool(service.reprocessable_job, session, user, photo_id)
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
        # the workflow has ended: a new run, its reservation ``{job_id}:{run}``
        runs, email, name = await run_in_threadpool(service.start_details, session, job)
        await start_job_workflow(temporal, job, run=runs + 1, email=email, photo_name=name)
    return await run_in_threadpool(service.fresh_photo, session, user, photo_id)


@router.delete("/{photo_id}", status_code=status.HTTP_204_NO_CONTENT, operation_id="photos-delete")
async def delete_photo(
    photo_id: uuid.UUID, user: SellerUser, session: SessionDep, temporal: TemporalDep
) -> None:
    """Delete a photo, its files and its jobs; refused while a job is still running. A job queued for
    designers and not started yet is first cancelled by its workflow (credits released), and so is a
    job waiting for credits (nothing reserved, nothing charged). Every
    workflow of the photo's jobs is then ended (terminated); one that cannot be reached now is ended
    by the worker's reconciler (:func:`workflows.starter.reconcile_orphan_workflows`)."""
    photo, job = await run_in_threadpool(service.deletable, session, user, photo_id)
    if job is not None and (
        job.status in CANCELLABLE_STATUSES or job.status == JobStatus.waiting_for_credits
    ):
        try:
            await run_job_update(
                temporal, job.id, PhotoJobWorkflow.cancel, CancelInput(actor_id=str(user.id))
            )
        except ApiError as exc:
            raise service.photo_busy() from exc
    # re-checked under the photo's row lock: a rework asked meanwhile refuses the deletion
    job_ids = await run_in_threadpool(service.delete_photo, session, user, photo.id)
    for job_id in job_ids:  # the workflows were only waiting for retention or a reprocess
        with contextlib.suppress(RPCError):
            await temporal.get_workflow_handle(workflow_id_for_job(str(job_id))).terminate(
                reason="foto eliminata dal cliente"
            )


class ReworkBody(BaseModel):
    """``POST /api/photos/{id}/rework``: what the seller wants changed (for the designer)."""

    notes: FreeText | None = Field(default=None, max_length=2000)


@router.post("/{photo_id}/rework", response_model=PhotoPublic, operation_id="photos-rework")
async def request_free_rework(
    photo_id: uuid.UUID, body: ReworkBody, user: SellerUser, session: SessionDep, temporal: TemporalDep
) -> PhotoPublic:
    """Ask once, within 7 days of an AI delivery, for a free rework by the designers (a human job at 0
    credits); the current result stays downloadable until the new one is delivered."""
    rework, email, name = await run_in_threadpool(service.request_rework, session, user, photo_id, body.notes)
    await start_job_workflow(temporal, rework, email=email, photo_name=name)
    return await run_in_threadpool(service.fresh_photo, session, user, photo_id)


@router.get(
    "/{photo_id}/thumbnail", operation_id="photos-thumbnail", responses={200: {"content": {"image/jpeg": {}}}}
)
def photo_thumbnail(
    photo_id: uuid.UUID,
    user: SellerUser,
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
    bucket, key = service.preview_source(session, user, photo_id, variant)
    stored = stored_preview(bucket, key) if size is None else None
    if stored is not None:
        data, etag = stored
        headers = {"Cache-Control": f"private, max-age={STORED_THUMBNAIL_CACHE_S}", "ETag": etag}
        if_none_match = request.headers.get("if-none-match")
        if if_none_match and etag in {t.strip() for t in if_none_match.split(",")}:
            return Response(status_code=304, headers=headers)
        return Response(data, media_type="image/webp", headers=headers)
    return Response(
        decoded_preview(bucket, key, size or 320),
        media_type="image/jpeg",
        headers={"Cache-Control": f"private, max-age={THUMBNAIL_CACHE_S}"},
    )

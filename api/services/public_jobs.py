"""The public API's jobs, batches and account (``/v1``): the transactions behind ``api/public/jobs.py``.

A job started here is an ordinary upload: :func:`api.services.photos.store_upload` stores the original
and inserts the order (the batch), the photo and the job, so the job runs the same ``PhotoJobWorkflow``,
is charged through the same ledger and shows in /photos, /orders and the staff views. What the API adds
is checked here, under the owner's row lock so parallel requests cannot pass a limit together: the
account's jobs in flight (``settings.api_max_jobs_in_flight``) and the key's monthly credit cap.
Every read is confined to the key owner's rows of the key's mode: an admin's key is a seller's key.
"""

from __future__ import annotations

import base64
import io
import json
import uuid
from collections.abc import Sequence
from datetime import datetime
from pathlib import PurePath
from typing import Any

from sqlalchemy import func, select, tuple_
from sqlalchemy.orm import Session, selectinload

from api.errors import ApiError
from api.public.schemas import (
    AccountLimits,
    AccountOut,
    BatchOut,
    JobError,
    JobLinks,
    JobList,
    JobOut,
    KeyInfo,
    PublicStatus,
    RejectedItem,
)
from api.services import photos as photo_service
from api.services.api_keys import KeyCaller, credits_used_this_month
from fotopronta.domain import (
    ACTIVE_STATUSES,
    DELIVERED_STATUSES,
    JOB_COSTS,
    JobErrorCode,
    JobStatus,
    JobType,
    LedgerKind,
)
from fotopronta.models import ApiKey, CreditLedgerEntry, Order, Photo, PhotoProcessingJob, Profile
from fotopronta.settings import get_settings
from fotopronta.storage import BUCKET_PROCESSED, ObjectNotFoundError, get_storage, result_key
from retouch.limits import MAX_PIXELS

PUBLIC_STATUS: dict[str, PublicStatus] = {
    JobStatus.pending: "queued",
    JobStatus.waiting_for_credits: "waiting_for_credits",
    JobStatus.processing: "processing",
    JobStatus.pending_human: "designer_queue",
    JobStatus.assigned_to_graphic: "with_designer",
    JobStatus.in_progress_human: "with_designer",
    JobStatus.completed: "succeeded",
    JobStatus.completed_human: "succeeded",
    JobStatus.failed: "failed",
    JobStatus.rejected_human: "rejected",
}
"""``/v1`` status of each job status (``cancelled``: a failed job the seller withdrew)."""
STATUSES_OF: dict[str, list[str]] = {}
for _internal, _public in PUBLIC_STATUS.items():
    STATUSES_OF.setdefault(_public, []).append(str(_internal))
PAGE_DEFAULT = 20
PAGE_MAX = 100
JOB_NOT_FOUND = ApiError(404, "Lavoro non trovato.", "job_not_found", "Risorsa non trovata")
MEDIA = {"jpg": "image/jpeg", "webp": "image/webp", "png": "image/png"}


def service_of(job: PhotoProcessingJob) -> str:
    """``designer`` for a designer's job, else ``ai``."""
    return "designer" if job.job_type == JobType.background_removal_human else "ai"


def public_status(job: PhotoProcessingJob) -> PublicStatus:
    """The ``/v1`` status of a job (:data:`PUBLIC_STATUS`; ``cancelled`` for a withdrawn one)."""
    if job.status == JobStatus.failed and job.error_code == JobErrorCode.cancelled_by_client:
        return "cancelled"
    return PUBLIC_STATUS.get(job.status, "queued")


def held_credits(session: Session, job_ids: Sequence[uuid.UUID]) -> dict[uuid.UUID, int]:
    """Credits each job holds now, from the ledger: its reservations less what was given back."""
    if not job_ids:
        return {}
    rows = session.execute(
        select(CreditLedgerEntry.job_id, func.coalesce(func.sum(CreditLedgerEntry.amount), 0))
        .where(
            CreditLedgerEntry.job_id.in_(list(job_ids)),
            CreditLedgerEntry.kind.in_([LedgerKind.reserve.value, LedgerKind.release.value]),
        )
        .group_by(CreditLedgerEntry.job_id)
    ).all()
    return {job_id: -int(total) for job_id, total in rows if job_id is not None}


def job_out(job: PhotoProcessingJob, photo: Photo, credits: int) -> JobOut:
    """The ``/v1`` view of a job and its photo."""
    options = job.options or {}
    status = public_status(job)
    delivered = job.status in DELIVERED_STATUSES
    error = None
    if job.status in (JobStatus.failed, JobStatus.rejected_human):
        error = JobError(code=job.error_code or "processing_failed", message=job.error_message or "")
    rework_of = None
    if options.get("rework"):
        earlier = [j for j in photo.jobs if j.id != job.id and j.created_at <= job.created_at]
        rework_of = max(earlier, key=lambda j: j.created_at).id if earlier else None
    fmt = options.get("output_format", "jpg")
    return JobOut(
        id=job.id,
        status=status,
        status_detail=job.status,
        service="designer" if job.job_type == JobType.background_removal_human else "ai",
        preset=str(options.get("preset", "original")),
        background=str((job.background_category or {}).get("category") or "white"),
        output_format=fmt if fmt in MEDIA else "jpg",
        external_id=job.external_id,
        metadata=job.client_metadata,
        batch_id=photo.order_id,
        photo_id=photo.id,
        original_filename=photo.original_filename,
        rework_of=rework_of,
        credits_charged=credits,
        needs_review=bool((job.processing_details or {}).get("needs_review")) and delivered,
        error=error,
        livemode=job.livemode,
        created_at=job.created_at,
        started_at=job.started_at,
        completed_at=job.completed_at,
        links=JobLinks(self=f"/v1/jobs/{job.id}", result=f"/v1/jobs/{job.id}/result" if delivered else None),
    )


def job_views(session: Session, jobs: Sequence[PhotoProcessingJob]) -> list[JobOut]:
    """:func:`job_out` of each job (photos and jobs loaded, credits in one statement)."""
    credits = held_credits(session, [j.id for j in jobs])
    return [job_out(job, job.photo, credits.get(job.id, 0)) for job in jobs]


def _own_jobs(caller: KeyCaller) -> Any:
    return select(PhotoProcessingJob).where(
        PhotoProcessingJob.user_id == caller.user_id,
        PhotoProcessingJob.livemode.is_(caller.mode == "live"),
    )


def owned_job(session: Session, caller: KeyCaller, job_id: uuid.UUID) -> PhotoProcessingJob:
    """The key owner's job of the key's mode, its photo and the photo's jobs loaded.

    Raises:
        ApiError: 404 ``job_not_found`` (also for another account's job).
    """
    job = session.execute(
        _own_jobs(caller)
        .where(PhotoProcessingJob.id == job_id)
        .options(selectinload(PhotoProcessingJob.photo).selectinload(Photo.jobs))
    ).scalar_one_or_none()
    if job is None:
        raise JOB_NOT_FOUND
    return job


def balance(session: Session, user_id: uuid.UUID) -> int:
    """The account's credits now."""
    return int(session.execute(select(Profile.credits_remaining).where(Profile.id == user_id)).scalar_one())


def jobs_in_flight(session: Session, user_id: uuid.UUID) -> int:
    """The account's API jobs that have not finished (any status of ``ACTIVE_STATUSES``)."""
    return int(
        session.execute(
            select(func.count()).where(
                PhotoProcessingJob.user_id == user_id,
                PhotoProcessingJob.api_key_id.is_not(None),
                PhotoProcessingJob.status.in_(sorted(ACTIVE_STATUSES)),
            )
        ).scalar_one()
    )


def existing_jobs(session: Session, job_ids: Sequence[uuid.UUID]) -> list[PhotoProcessingJob]:
    """The jobs of ``job_ids`` already stored (a retry taking over an idempotency claim), in order."""
    found = {
        job.id: job
        for job in session.execute(
            select(PhotoProcessingJob)
            .where(PhotoProcessingJob.id.in_(list(job_ids)))
            .options(selectinload(PhotoProcessingJob.photo).selectinload(Photo.jobs))
        ).scalars()
    }
    return [found[i] for i in job_ids if i in found]


def create_jobs(
    session: Session,
    caller: KeyCaller,
    uploads: Sequence[photo_service.UploadedFile],
    options: photo_service.JobOptions,
) -> tuple[list[PhotoProcessingJob], bool]:
    """Store ``uploads`` as one batch of jobs for the key's owner (see the module docstring); commits
    (blocking: threadpool). Returns the jobs, in order, and whether they were created now (``False``:
    a retry found the jobs its claim's ids name already stored, and nothing is stored again).

    Raises:
        ApiError: 429 ``too_many_jobs_in_flight``; 402 ``monthly_credit_cap_reached``.
    """
    ids = [u.job_id for u in uploads if u.job_id is not None]
    profile = session.execute(
        select(Profile).where(Profile.id == caller.user_id).with_for_update()
    ).scalar_one()
    if ids:
        found = existing_jobs(session, ids)
        if found:
            session.commit()  # nothing written: ends the lock and keeps the loaded rows (a rollback expires them)
            return found, False
    settings = get_settings()
    if jobs_in_flight(session, caller.user_id) + len(uploads) > settings.api_max_jobs_in_flight:
        session.rollback()
        raise ApiError(
            429,
            f"Hai già {settings.api_max_jobs_in_flight} lavori in corso (il massimo): attendi che "
            "qualcuno finisca e riprova.",
            "too_many_jobs_in_flight",
            "Troppi lavori in corso",
        )
    if caller.monthly_credit_cap is not None:
        used = credits_used_this_month(session, caller.key_id)
        cost = JOB_COSTS[options.kind] * len(uploads)
        if used + cost > caller.monthly_credit_cap:
            session.rollback()
            raise ApiError(
                402,
                f"Questa chiave ha raggiunto il suo tetto mensile di {caller.monthly_credit_cap} crediti "
                f"(usati {used}, questa richiesta ne costa {cost}).",
                "monthly_credit_cap_reached",
                "Tetto mensile raggiunto",
            )
    created = photo_service.store_upload(session, profile, uploads, options)
    return existing_jobs(session, [job.id for _, job in created]), True


def list_jobs(
    session: Session,
    caller: KeyCaller,
    *,
    limit: int,
    cursor: str | None,
    status: str | None,
    external_id: str | None,
) -> JobList:
    """A page of the owner's jobs, newest first (keyset on ``created_at`` and ``id``).

    Raises:
        ApiError: 400 ``invalid_cursor``.
    """
    query = _own_jobs(caller).options(selectinload(PhotoProcessingJob.photo).selectinload(Photo.jobs))
    if status == "cancelled":
        query = query.where(PhotoProcessingJob.error_code == JobErrorCode.cancelled_by_client.value)
    elif status == "failed":
        query = query.where(
            PhotoProcessingJob.status == JobStatus.failed.value,
            PhotoProcessingJob.error_code.is_distinct_from(JobErrorCode.cancelled_by_client.value),
        )
    elif status:
        query = query.where(PhotoProcessingJob.status.in_(STATUSES_OF[status]))
    if external_id is not None:
        query = query.where(PhotoProcessingJob.external_id == external_id)
    if cursor:
        created, after = _decode_cursor(cursor)
        query = query.where(
            tuple_(PhotoProcessingJob.created_at, PhotoProcessingJob.id) < tuple_(created, after)
        )
    rows = list(
        session.execute(
            query.order_by(PhotoProcessingJob.created_at.desc(), PhotoProcessingJob.id.desc()).limit(
                limit + 1
            )
        ).scalars()
    )
    page, more = rows[:limit], len(rows) > limit
    return JobList(
        data=job_views(session, page),
        has_more=more,
        next_cursor=_encode_cursor(page[-1]) if more else None,
    )


def _encode_cursor(job: PhotoProcessingJob) -> str:
    raw = json.dumps([job.created_at.isoformat(), str(job.id)]).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def _decode_cursor(cursor: str) -> tuple[datetime, uuid.UUID]:
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4))
        created, job_id = json.loads(raw)
        return datetime.fromisoformat(created), uuid.UUID(job_id)
    except (ValueError, TypeError, json.JSONDecodeError) as exc:
        raise ApiError(400, "Cursore di paginazione non valido.", "invalid_cursor") from exc


def result_file(
    session: Session, caller: KeyCaller, job_id: uuid.UUID, fmt: str | None
) -> tuple[bytes, str, str]:
    """The result of a delivered job as ``fmt`` (``jpg``, ``webp``, ``png``; ``None``: the job's
    ``output_format``). Returns ``(bytes, media type, file name)``.

    JPEG and WebP are the files the pipeline stored (the framed product on its background); PNG is the
    transparent cutout (RGBA, the product at the input size) the pipeline stores for jobs started
    through the API, else (a job from the web app, a designer's result) the delivered image encoded
    losslessly.

    Raises:
        ApiError: 404 ``job_not_found``; 409 ``job_not_finished`` before delivery; 410 ``file_deleted``
            after the 30 days of retention.
    """
    job = owned_job(session, caller, job_id)
    photo = job.photo
    wanted = fmt or (job.options or {}).get("output_format") or "jpg"
    if job.status not in DELIVERED_STATUSES:
        raise ApiError(
            409,
            "Il lavoro non ha ancora un risultato: controlla il suo stato.",
            "job_not_finished",
            "Risultato non pronto",
        )
    if photo.files_deleted_at is not None:
        raise _deleted()
    if job.job_type == JobType.background_removal_human:
        key = photo.processed_path
    elif wanted == "png" and (job.options or {}).get("cutout"):
        key = result_key(job.user_id, job.id, "png")  # the transparent cutout
    else:
        key = result_key(job.user_id, job.id, "webp" if wanted == "webp" else "jpg")
    if not key:
        raise _deleted()
    try:
        data = get_storage().get(BUCKET_PROCESSED, key)
    except ObjectNotFoundError as exc:
        raise _deleted() from exc
    suffix = PurePath(key).suffix.lower().lstrip(".").replace("jpeg", "jpg")
    if suffix != wanted:
        data = _convert(data, wanted)
    seo = (job.processing_details or {}).get("seo_filename") or f"fotopronta-{str(job.id)[:8]}"
    return data, MEDIA[wanted], f"{PurePath(str(seo)).stem}.{wanted}"


def _deleted() -> ApiError:
    return ApiError(
        410,
        "Il file non è più disponibile: le foto vengono eliminate 30 giorni dopo la consegna.",
        "file_deleted",
        "Risultato non disponibile",
    )


def _convert(data: bytes, fmt: str) -> bytes:
    """``data`` (an image) re-encoded as ``fmt``: PNG lossless (alpha kept if the file has it), JPEG or
    WebP at quality 92."""
    from PIL import Image

    with Image.open(io.BytesIO(data)) as img:
        out = io.BytesIO()
        if fmt == "png":
            img.save(out, "PNG", optimize=False)
        elif fmt == "webp":
            img.save(out, "WEBP", quality=92)
        else:
            img.convert("RGB").save(out, "JPEG", quality=92)
        return out.getvalue()


def batch_view(session: Session, caller: KeyCaller, batch_id: uuid.UUID) -> BatchOut:
    """A batch (order) of the owner with its jobs of the key's mode.

    Raises:
        ApiError: 404 ``batch_not_found``.
    """
    order = session.get(Order, batch_id)
    if order is None or order.user_id != caller.user_id:
        raise ApiError(404, "Lotto non trovato.", "batch_not_found", "Risorsa non trovata")
    jobs = list(
        session.execute(
            _own_jobs(caller)
            .join(Photo, Photo.id == PhotoProcessingJob.photo_id)
            .where(Photo.order_id == order.id)
            .options(selectinload(PhotoProcessingJob.photo).selectinload(Photo.jobs))
            .order_by(PhotoProcessingJob.created_at, PhotoProcessingJob.id)
        ).scalars()
    )
    if not jobs:
        raise ApiError(404, "Lotto non trovato.", "batch_not_found", "Risorsa non trovata")
    return batch_out(session, order, jobs)


def batch_out(
    session: Session,
    order: Order,
    jobs: Sequence[PhotoProcessingJob],
    rejected: list[RejectedItem] | None = None,
) -> BatchOut:
    """The ``/v1`` view of an order and its jobs."""
    views = job_views(session, jobs)
    counts: dict[str, int] = {}
    for view in views:
        counts[view.status] = counts.get(view.status, 0) + 1
    finished = all(job.status not in ACTIVE_STATUSES for job in jobs)
    return BatchOut(
        id=order.id,
        status="completed" if finished else "processing",
        total_jobs=len(views),
        counts=counts,
        jobs=views,
        rejected=rejected or [],
        created_at=order.created_at,
    )


def account_view(session: Session, caller: KeyCaller) -> AccountOut:
    """``GET /v1/account``."""
    settings = get_settings()
    profile = session.get_one(Profile, caller.user_id)
    key = session.get_one(ApiKey, caller.key_id)
    return AccountOut(
        email=profile.email,
        credits_remaining=profile.credits_remaining,
        credits_expiry_date=profile.credits_expiry_date,
        job_costs={
            "ai": JOB_COSTS[JobType.background_removal],
            "ai_smart_background": JOB_COSTS[JobType.smart_backgrounds],
            "designer": JOB_COSTS[JobType.background_removal_human],
        },
        key=KeyInfo(
            id=key.id,
            name=key.name,
            prefix=key.prefix,
            mode="test" if key.mode == "test" else "live",
            scopes=list(key.scopes or []),
            monthly_credit_cap=key.monthly_credit_cap,
            credits_used_this_month=credits_used_this_month(session, key.id),
        ),
        limits=AccountLimits(
            rate_limit=settings.api_rate_limit,
            max_jobs_in_flight=settings.api_max_jobs_in_flight,
            jobs_in_flight=jobs_in_flight(session, caller.user_id),
            max_file_bytes=settings.max_file_bytes,
            max_megapixels=MAX_PIXELS // 1_000_000,
            max_batch_jobs=settings.max_batch_files_standard,
        ),
    )

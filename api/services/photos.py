"""Photos: the upload, list, download, reprocess, delete and free-rework transactions behind
``api/routes/photos.py`` (SPEC §3, §4, §5). What may be reworked or reprocessed is decided in
:mod:`api.services.photo_rules`."""

from __future__ import annotations

import base64
import json
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import PurePath
from typing import Any, Literal

from sqlalchemy import ColumnElement, and_, case, func, or_, select, tuple_
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session, selectinload

from activities.contracts import PHOTO_BUSY_MESSAGE
from api.deps import effective_role, owner_or_admin
from api.errors import ApiError
from api.schemas import PhotoCounts, PhotoPage, PhotoPublic
from api.services.photo_rules import (
    latest_job,
    reprocess_refusal,
    require_allowed,
    rework_already_requested,
    rework_refusal,
)
from api.services.queries import begin_snapshot, escape_like
from api.uploads import ImageInfo
from fotopronta.domain import (
    ACTIVE_STATUSES,
    DELIVERED_STATUSES,
    DESIGNER_QUEUE_STATUSES,
    JOB_COSTS,
    UNDELIVERED_END_STATUSES,
    WORKING_STATUSES,
    JobStatus,
    JobType,
    LedgerKind,
    PhotoStatus,
    StatusFilter,
    UserRole,
    status_filter,
)
from fotopronta.models import REWORK_INDEX, CreditLedgerEntry, Order, Photo, PhotoProcessingJob, Profile
from fotopronta.orders import PACKAGE_LABELS, refresh_order
from fotopronta.results import cutout_keys, download_name, keys_used_elsewhere, unique_names
from fotopronta.settings import get_settings
from fotopronta.storage import (
    BUCKET_PROCESSED,
    BUCKET_UPLOADS,
    ObjectNotFoundError,
    get_storage,
    new_upload_key,
)
from fotopronta.thumbnails import store_thumbnail, thumbnail_key

MEDIA_TYPES = {".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".png": "image/png", ".webp": "image/webp"}


@dataclass(frozen=True)
class UploadedFile:
    """One checked upload: the client's file name, its bytes and what :func:`api.uploads.inspect_image`
    found them to be."""

    filename: str
    data: bytes
    info: ImageInfo
    job_id: uuid.UUID | None = None
    """The job's id when the caller chose it (the public API derives it from the request's
    ``Idempotency-Key``, so a retry can never insert a second job); ``None``: a random one."""
    external_id: str | None = None
    """The integrator's reference of this photo (public API)."""
    metadata: dict[str, Any] | None = None
    """The integrator's key/value pairs of this photo (public API)."""


@dataclass(frozen=True)
class ApiOrigin:
    """A batch started through the public API: the key that started it, its mode (``livemode`` false
    for a test key) and the result format asked for (``jpg``, ``webp`` or ``png``)."""

    api_key_id: uuid.UUID
    livemode: bool
    output_format: str


@dataclass(frozen=True)
class JobOptions:
    """What the seller chose for a batch (``POST /api/photos`` form fields, or ``POST /v1/jobs``)."""

    kind: JobType
    background_category: str | None
    preset: str
    shadow: bool
    brand: str | None
    category: str | None
    client_notes: str | None
    api: ApiOrigin | None = None


def check_waiting_room(session: Session, user: Profile, files: int, kind: JobType) -> None:
    """Refuse an upload that would leave the account with more photos waiting for credits than its
    role's batch limit (SPEC §9: 10, admins 25). The photos that will wait are the ones already
    waiting plus those of this batch the balance cannot cover, after the jobs not yet charged
    (``pending``) take their cost. Locks the profile row (``FOR UPDATE``, until the upload commits),
    so parallel uploads of one account are counted one after the other.

    Raises:
        ApiError: 400 ``too_many_waiting`` with the limit and the role's label.
    """
    profile = session.execute(select(Profile).where(Profile.id == user.id).with_for_update()).scalar_one()
    waiting, pending_cost = session.execute(
        select(
            func.count().filter(PhotoProcessingJob.status == JobStatus.waiting_for_credits.value),
            func.coalesce(
                func.sum(
                    case(
                        *((PhotoProcessingJob.job_type == t.value, c) for t, c in JOB_COSTS.items()),
                        else_=0,
                    )
                ).filter(PhotoProcessingJob.status == JobStatus.pending.value),
                0,
            ),
        ).where(PhotoProcessingJob.user_id == user.id)
    ).one()
    cost = JOB_COSTS[kind]
    affordable = max(0, profile.credits_remaining - int(pending_cost)) // cost if cost else files
    would_wait = int(waiting) + max(0, files - affordable)
    settings = get_settings()
    admin = effective_role(profile) is UserRole.admin
    limit = settings.max_batch_files_admin if admin else settings.max_batch_files_standard
    if would_wait > limit:
        label = "(Limite admin)" if admin else "(Limite standard)"
        raise ApiError(
            400,
            f"Puoi avere al massimo {limit} foto in attesa di crediti {label}: acquista crediti "
            "o elimina le foto in attesa.",
            "too_many_waiting",
            f"Troppe foto in attesa di crediti {label}",
        )


def store_upload(
    session: Session, user: Profile, files: Sequence[UploadedFile], options: JobOptions
) -> list[tuple[Photo, PhotoProcessingJob]]:
    """Store the originals (and their previews) and insert the order (``total_amount``: the credits
    the batch costs, ``JOB_COSTS[kind]`` × photos), one photo and one pending job per file; commits.
    On any error the transaction is rolled back and the stored files deleted (blocking: threadpool).

    Returns:
        ``(photo, job)`` per file, in upload order.

    Raises:
        ApiError: 400 ``too_many_waiting`` (:func:`check_waiting_room`), before any file is stored.
    """
    kind = options.kind
    check_waiting_room(session, user, len(files), kind)
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
        for upload in files:
            info, data = upload.info, upload.data
            key = new_upload_key(user.id, info.ext)
            storage.put(BUCKET_UPLOADS, key, data, info.mime)
            stored.append(key)
            if store_thumbnail(storage, BUCKET_UPLOADS, key, data):
                stored.append(thumbnail_key(key))
            uploaded_at = datetime.now(UTC)
            photo = Photo(
                user_id=user.id,
                original_filename=PurePath(upload.filename or "foto").name,
                file_size=len(data),
                file_format=info.mime,
                upload_path=key,
                status=PhotoStatus.uploaded.value,
                width=info.width,
                height=info.height,
                order_id=order.id,
                created_at=uploaded_at,  # per file, not the transaction's now(): keeps upload order
            )
            session.add(photo)
            session.flush()
            api = options.api
            job = PhotoProcessingJob(
                id=upload.job_id or uuid.uuid4(),
                api_key_id=api.api_key_id if api else None,
                livemode=api.livemode if api else True,
                external_id=upload.external_id,
                client_metadata=upload.metadata,
                created_at=uploaded_at,
                photo_id=photo.id,
                user_id=user.id,
                job_type=kind.value,
                status=JobStatus.pending.value,
                background_category={"category": options.background_category}
                if options.background_category
                else None,
                options={
                    "preset": options.preset,
                    "shadow": options.shadow,
                    "brand": options.brand,
                    "category": options.category,
                    **({"output_format": api.output_format, "cutout": True} if api else {}),
                },
                processing_details={"brand": options.brand, "category": options.category}
                if (options.brand or options.category)
                else None,
                client_notes=options.client_notes if kind is JobType.background_removal_human else None,
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


def reloaded(session: Session, photos: Sequence[Photo]) -> list[PhotoPublic]:
    """``photos`` as the client sees them, refreshed from the database (blocking: threadpool)."""
    for photo in photos:
        session.refresh(photo)
    return [PhotoPublic.model_validate(photo) for photo in photos]


PAGE_DEFAULT = 24
PAGE_MAX = 100
PhotoSort = Literal["newest", "oldest", "name", "status"]
StatusGroup = Literal["all", "completed", "processing", "failed", "pending"]


def latest_job_status() -> ColumnElement[str | None]:
    """The status each photo shows (NULL without jobs), as a correlated subquery: its newest job's,
    passing over a free rework that ended without a result (rejected or cancelled: the earlier
    delivery is still the seller's; :func:`api.services.photo_rules.shown_job` in Python). The
    /photos filter, sort and counters and the orders' counts use it."""
    ended_rework = and_(
        func.coalesce(PhotoProcessingJob.options["rework"].astext, "false") == "true",
        PhotoProcessingJob.status.in_(sorted(UNDELIVERED_END_STATUSES)),
    )
    return (
        select(PhotoProcessingJob.status)
        .where(PhotoProcessingJob.photo_id == Photo.id, ~ended_rework)
        .order_by(PhotoProcessingJob.created_at.desc())
        .limit(1)
        .correlate(Photo)
        .scalar_subquery()
    )


def _status_group(status_col: ColumnElement[str | None]) -> ColumnElement[str]:
    """The /photos filter groups (SPEC §4, ``filterGroup`` in web/src/lib/photos.ts) in SQL."""
    return case(
        (status_col.in_(sorted(DELIVERED_STATUSES)), StatusFilter.completed.value),
        (status_col.in_(sorted(WORKING_STATUSES)), StatusFilter.processing.value),
        (status_col.in_(sorted(UNDELIVERED_END_STATUSES)), StatusFilter.failed.value),
        else_=StatusFilter.pending.value,
    )


STATUS_SORT_RANK = {"failed": 0, "processing": 1, "pending": 2, "completed": 3}
"""``sort=status``: the order of the filter groups, what needs the seller first (errors, then photos
being worked on, then waiting ones, then the finished); newest first within a group."""


def _status_rank(status_col: ColumnElement[str | None]) -> ColumnElement[int]:
    """:data:`STATUS_SORT_RANK` of the filter group of ``status_col``, in SQL."""
    group = _status_group(status_col)
    return case(*((group == name, rank) for name, rank in STATUS_SORT_RANK.items()), else_=2)


def _encode_cursor(sort: str, photo: Photo, rank: int | None = None) -> str:
    key = photo.original_filename if sort == "name" else photo.created_at.isoformat()
    parts: list[object] = [sort, key, str(photo.id)]
    if sort == "status":
        parts.append(rank)
    raw = json.dumps(parts).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


CURSOR_KEY_MAX_CHARS = 300
"""Longest sort key a cursor may carry (file names are cut to 150 characters; a timestamp is ~32)."""


def _decode_cursor(cursor: str, sort: str) -> tuple[str | datetime, uuid.UUID, int]:
    """The sort key, the photo id and (``sort=status``) the status rank of a page's last photo.

    Every decoded field is checked before it reaches SQL: the sort it was made for, a key string of at
    most :data:`CURSOR_KEY_MAX_CHARS` without NUL (a timezone-aware ISO timestamp unless ``sort=name``),
    a UUID string, and for ``sort=status`` exactly one rank, an integer of :data:`STATUS_SORT_RANK`.

    Raises:
        ApiError: 400 ``invalid_cursor`` for anything else (a crafted or truncated cursor).
    """
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4))
        parts = json.loads(raw)
        if not isinstance(parts, list) or len(parts) != (4 if sort == "status" else 3):
            raise ValueError("cursor of another shape")
        kind, key, photo_id, *rest = parts
        if kind != sort or not isinstance(key, str) or not isinstance(photo_id, str):
            raise ValueError("cursor of another sort")
        if len(key) > CURSOR_KEY_MAX_CHARS or "\x00" in key:
            raise ValueError("cursor key out of range")
        rank = rest[0] if rest else 0
        if type(rank) is not int or rank not in STATUS_SORT_RANK.values():
            raise ValueError("status cursor without a valid rank")
        sort_key: str | datetime = key
        if sort != "name":
            sort_key = datetime.fromisoformat(key)
            if sort_key.tzinfo is None:
                raise ValueError("cursor time without its zone")
        return sort_key, uuid.UUID(photo_id), rank
    except (ValueError, TypeError, OverflowError, json.JSONDecodeError) as exc:
        raise ApiError(400, "Cursore di paginazione non valido.", "invalid_cursor") from exc


def photo_counts(session: Session, user_id: uuid.UUID) -> PhotoCounts:
    """The caller's photo counters in one statement: by the newest job's filter group and status (the
    /photos summary) and by the photo's own status (the dashboard's Processate / In Coda).

    The photos are grouped by (newest job's status, photo status) and the few groups are summed here:
    the newest-job subquery then runs once per photo (as a ``GROUP BY`` key), where one ``FILTER``
    per counter evaluated it once per counter and photo."""
    latest = latest_job_status().label("job_status")
    rows = session.execute(
        select(latest, Photo.status, func.count())
        .where(Photo.user_id == user_id)
        .group_by(latest, Photo.status)
    ).all()
    by_group = {"completed": 0, "processing": 0, "failed": 0, "pending": 0}
    processed = queued = rejected = designer_queue = 0
    for job_status, photo_status, n in rows:
        by_group[status_filter(job_status).value] += n
        if job_status == JobStatus.rejected_human:
            rejected += n
        elif job_status in DESIGNER_QUEUE_STATUSES:
            designer_queue += n
        if photo_status == PhotoStatus.processed:
            processed += n
        elif (
            photo_status in (PhotoStatus.uploaded, PhotoStatus.processing)
            and job_status not in UNDELIVERED_END_STATUSES
        ):
            queued += n
    return PhotoCounts(
        total=sum(by_group.values()),
        processed=processed,
        queued=queued,
        rejected=rejected,
        designer_queue=designer_queue,
        **by_group,
    )


def list_photos(
    session: Session,
    user_id: uuid.UUID,
    *,
    limit: int,
    cursor: str | None,
    q: str,
    status: StatusGroup,
    sort: PhotoSort,
) -> PhotoPage:
    """One page of ``user_id``'s photos with their jobs and the counters (see ``GET /api/photos``):
    three statements whatever the page size (the page, its jobs, the counts), all on one snapshot
    (:func:`~api.services.queries.begin_snapshot`), so a photo's status always matches its jobs'.

    Raises:
        ApiError: 400 ``invalid_cursor``.
    """
    begin_snapshot(session)
    stmt = select(Photo).where(Photo.user_id == user_id).options(selectinload(Photo.jobs))
    needle = q.strip()
    if needle:
        pattern = f"%{escape_like(needle)}%"
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
        stmt = stmt.where(_status_group(latest_job_status()) == status)
    key_col: Any = Photo.original_filename if sort == "name" else Photo.created_at
    descending = sort in ("newest", "status")
    rank_col = _status_rank(latest_job_status())
    if sort == "status":
        stmt = stmt.add_columns(rank_col.label("rank"))
    if cursor:
        key, after_id, after_rank = _decode_cursor(cursor, sort)
        after = (
            tuple_(key_col, Photo.id) < tuple_(key, after_id)
            if descending
            else tuple_(key_col, Photo.id) > tuple_(key, after_id)
        )
        if sort == "status":  # rank ascending, then newest first within the rank
            after = or_(rank_col > after_rank, and_(rank_col == after_rank, after))
        stmt = stmt.where(after)
    order: list[Any] = [key_col.desc(), Photo.id.desc()] if descending else [key_col.asc(), Photo.id.asc()]
    if sort == "status":
        order.insert(0, rank_col.asc())
    rows: list[Any] = list(session.execute(stmt.order_by(*order).limit(limit + 1)).all())
    page, more = rows[:limit], len(rows) > limit
    last_rank = int(page[-1][1]) if more and sort == "status" else None
    return PhotoPage(
        items=[PhotoPublic.model_validate(row[0]) for row in page],
        next_cursor=_encode_cursor(sort, page[-1][0], last_rank) if more else None,
        counts=photo_counts(session, user_id),
    )


def owned_photo(session: Session, user: Profile, photo_id: uuid.UUID) -> Photo:
    """The caller's photo (admins: anyone's).

    Raises:
        ApiError: 404 'Foto non trovata'.
    """
    photo = session.get(Photo, photo_id)
    if photo is None or not owner_or_admin(user, photo.user_id):
        raise ApiError(404, "Foto non trovata", "photo_not_found")
    return photo


def locked_photo(session: Session, user: Profile, photo_id: uuid.UUID) -> Photo:
    """The caller's photo (admins: anyone's), its row locked (``SELECT … FOR UPDATE``) until the
    transaction ends and its jobs read afresh: a free rework and a deletion of the same photo take
    this lock first, so they run one after the other and each sees what the other committed.

    Raises:
        ApiError: 404 'Foto non trovata' (also when a parallel request deleted it meanwhile).
    """
    session.expire_all()  # its jobs load after the lock is granted: rows committed before it count
    photo = session.get(Photo, photo_id, with_for_update=True)
    if photo is None or not owner_or_admin(user, photo.user_id):
        raise ApiError(404, "Foto non trovata", "photo_not_found")
    return photo


def photo_busy() -> ApiError:
    """409 ``photo_busy`` 'La foto è in lavorazione: potrai eliminarla al termine.', title
    'Impossibile eliminare la foto': a deletion while a job of the photo is still running."""
    return ApiError(409, PHOTO_BUSY_MESSAGE, "photo_busy", "Impossibile eliminare la foto")


def fresh_photo(session: Session, user: Profile, photo_id: uuid.UUID) -> PhotoPublic:
    """The photo as the client sees it, reloaded after a workflow update (blocking: threadpool)."""
    session.expire_all()
    return PhotoPublic.model_validate(owned_photo(session, user, photo_id))


def _file_deleted(exc_title: str = "Errore download") -> ApiError:
    return ApiError(
        410,
        "Il file non è più disponibile: le foto vengono eliminate 30 giorni dopo la consegna.",
        "file_deleted",
        exc_title,
    )


def download(session: Session, user: Profile, photo_id: uuid.UUID, fmt: str) -> tuple[bytes, str, str]:
    """The processed image of the caller's photo: WebP when ``fmt`` is ``webp`` and one was stored,
    else the delivered file. Returns ``(bytes, media type, download file name)``.

    Raises:
        ApiError: 404 not the caller's photo; 410 files deleted (30 days after delivery); 409 not
            processed yet.
    """
    photo = owned_photo(session, user, photo_id)
    key = (photo.processed_webp_path if fmt == "webp" else None) or photo.processed_path
    if photo.files_deleted_at is not None:
        raise _file_deleted()
    if photo.status != PhotoStatus.processed or not key:
        raise ApiError(409, "La foto non è ancora stata elaborata.", "not_processed", "Errore download")
    try:
        data = get_storage().get(BUCKET_PROCESSED, key)
    except ObjectNotFoundError as exc:
        raise _file_deleted() from exc
    media = MEDIA_TYPES.get(PurePath(key).suffix.lower(), "application/octet-stream")
    return data, media, download_name(photo, key)


def preview_source(session: Session, user: Profile, photo_id: uuid.UUID, variant: str) -> tuple[str, str]:
    """``(bucket, key)`` of the file a preview shows: the delivered result when there is one and
    ``variant`` is ``result``, else the original.

    Raises:
        ApiError: 404 not the caller's photo, or 'Anteprima non disponibile' once its files are deleted.
    """
    photo = owned_photo(session, user, photo_id)
    if photo.files_deleted_at is not None:
        raise ApiError(404, "Anteprima non disponibile", "thumbnail_unavailable")
    if variant == "result" and photo.status == PhotoStatus.processed and photo.processed_path:
        return BUCKET_PROCESSED, photo.processed_path
    return BUCKET_UPLOADS, photo.upload_path


def reprocessable_job(session: Session, user: Profile, photo_id: uuid.UUID) -> PhotoProcessingJob:
    """The photo's failed, retryable latest job (:func:`~api.services.photo_rules.reprocess_refusal`),
    if the owner has credits (blocking: threadpool).

    Raises:
        ApiError: 404 not the caller's photo; 409 not reprocessable; 410 files deleted; 400 no credits.
    """
    photo = owned_photo(session, user, photo_id)
    job = require_allowed(photo, reprocess_refusal(photo))
    owner = session.get_one(Profile, photo.user_id)
    if owner.credits_remaining <= 0:
        raise ApiError(400, "Crediti insufficienti", "insufficient_credits", "Crediti insufficienti")
    return job


def start_details(session: Session, job: PhotoProcessingJob) -> tuple[int, str, str]:
    """``(reservations so far, owner's e-mail, photo name)`` of a job, to start a new run."""
    runs = session.execute(
        select(func.count())
        .select_from(CreditLedgerEntry)
        .where(CreditLedgerEntry.job_id == job.id, CreditLedgerEntry.kind == LedgerKind.reserve)
    ).scalar_one()
    email = session.execute(select(Profile.email).where(Profile.id == job.user_id)).scalar_one()
    name = session.execute(select(Photo.original_filename).where(Photo.id == job.photo_id)).scalar_one()
    return int(runs), email, name


def deletable(
    session: Session, user: Profile, photo_id: uuid.UUID
) -> tuple[Photo, PhotoProcessingJob | None]:
    """The caller's photo and its latest job, reloaded (blocking: threadpool)."""
    session.expire_all()
    photo = owned_photo(session, user, photo_id)
    return photo, latest_job(photo)


def delete_photo(session: Session, user: Profile, photo_id: uuid.UUID) -> list[uuid.UUID]:
    """Delete the photo's rows (and its order's when it was the last), then its files unless another
    photo still uses them; returns the ids of every job the photo had, whose workflows the caller
    ends (blocking: threadpool).

    The photo row is locked first (:func:`locked_photo`) and its jobs re-read under the lock, so a free
    rework inserted by a parallel request is either seen here (the deletion is refused while it runs)
    or refused itself (the photo is gone): no job row is ever deleted unseen, with a workflow left
    running for it.

    Raises:
        ApiError: 404 not the caller's photo (or deleted meanwhile); 409 :func:`photo_busy` while the
            latest job is still running.
    """
    photo = locked_photo(session, user, photo_id)
    job = latest_job(photo)
    if job is not None and job.status in ACTIVE_STATUSES:
        session.rollback()
        raise photo_busy()
    storage = get_storage()
    shared = keys_used_elsewhere(session, photo)  # never delete a file another photo still uses
    keys = [
        (BUCKET_UPLOADS, photo.upload_path),
        (BUCKET_PROCESSED, photo.processed_path if photo.processed_path not in shared else None),
        (BUCKET_PROCESSED, photo.processed_webp_path if photo.processed_webp_path not in shared else None),
        *((BUCKET_PROCESSED, key) for key in cutout_keys(photo)),
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


def request_rework(
    session: Session, user: Profile, photo_id: uuid.UUID, notes: str | None
) -> tuple[PhotoProcessingJob, str, str]:
    """Check the free-rework rules (:func:`~api.services.photo_rules.rework_refusal`) and insert the
    human job at 0 credits (priority 2, the AI job's options plus ``rework``); commits (blocking:
    threadpool). Returns the job, the owner's e-mail and the photo's name.

    The photo row is locked (:func:`locked_photo`) so parallel requests are answered one after the
    other, and the partial unique index ``uq_jobs_one_rework_per_photo`` refuses a second rework row
    whatever the code path.

    Raises:
        ApiError: 404 not the caller's photo; 409 already asked, not completed or too late; 410 files
            deleted.
    """
    photo = locked_photo(session, user, photo_id)  # parallel requests for one photo queue here
    job = require_allowed(photo, rework_refusal(photo))
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
    try:
        session.commit()
    except IntegrityError as exc:  # the one-rework index: the database's word on "asked once"
        session.rollback()
        if REWORK_INDEX not in str(exc.orig):
            raise
        raise rework_already_requested() from exc
    email = session.execute(select(Profile.email).where(Profile.id == photo.user_id)).scalar_one()
    return rework, email, photo.original_filename


ZIP_MAX_PHOTOS = 100
"""The most photos one ``POST /api/photos/zip`` puts in an archive (a page of the list holds 100)."""


def zip_entries(session: Session, user: Profile, photo_ids: Sequence[uuid.UUID]) -> list[tuple[str, str]]:
    """``(entry name, storage key)`` of the caller's selected photos' delivered results, in the order
    asked (repeated ids once), each named as its card and single download name it
    (:func:`fotopronta.results.download_name`), repeats numbered (:func:`fotopronta.results.unique_names`).
    A selected photo with nothing to download (not delivered yet, files removed by retention) is
    left out (blocking: threadpool).

    Raises:
        ApiError: 400 ``no_photos_selected`` for an empty list; 400 ``too_many_photos`` past
            :data:`ZIP_MAX_PHOTOS`; 404 'Foto non trovata' when an id is not one of the caller's photos
            (an admin gets only their own: the ZIP is the owner's); 409 ``nothing_to_download`` when
            none of them has a delivered result.
    """
    ids = list(dict.fromkeys(photo_ids))
    if not ids:
        raise ApiError(
            400, "Seleziona almeno una foto da scaricare.", "no_photos_selected", "Errore download"
        )
    if len(ids) > ZIP_MAX_PHOTOS:
        raise ApiError(
            400,
            f"Puoi scaricare al massimo {ZIP_MAX_PHOTOS} foto in un unico ZIP: selezionane di meno.",
            "too_many_photos",
            "Errore download",
        )
    rows = session.scalars(
        select(Photo).where(Photo.id.in_(ids), Photo.user_id == user.id).options(selectinload(Photo.jobs))
    ).all()
    by_id = {photo.id: photo for photo in rows}
    if len(by_id) != len(ids):
        raise ApiError(404, "Foto non trovata", "photo_not_found", "Errore download")
    chosen = [
        by_id[i]
        for i in ids
        if by_id[i].status == PhotoStatus.processed
        and by_id[i].processed_path
        and by_id[i].files_deleted_at is None
    ]
    if not chosen:
        raise ApiError(409, "Nessuna foto completata da scaricare", "nothing_to_download", "Errore download")
    keys = [str(photo.processed_path) for photo in chosen]
    names = unique_names(download_name(photo, key) for photo, key in zip(chosen, keys, strict=True))
    return list(zip(names, keys, strict=True))


def read_result(key: str) -> bytes | None:
    """The delivered file stored at ``key``, or ``None`` when it is gone (for :func:`fotopronta.results.stream_zip`)."""
    try:
        return get_storage().get(BUCKET_PROCESSED, key)
    except ObjectNotFoundError:
        return None

"""What a seller may do with a photo, decided in one place: the free rework and the reprocess rules.

The ``POST /api/photos/{id}/rework`` and ``/reprocess`` routes raise the refusal these functions
return, and ``PhotoPublic.can_rework`` / ``can_reprocess`` are ``refusal is None``, so the web app
shows the buttons by the very rule the server enforces, never a copy of it. Pure over a loaded ``Photo`` (its
``jobs`` loaded): no query, no commit.
"""

from __future__ import annotations

from datetime import UTC, datetime

from api.errors import ApiError
from fotopronta.domain import (
    DELIVERED_STATUSES,
    FREE_REWORK_DAYS,
    FREE_REWORK_WINDOW,
    UNDELIVERED_END_STATUSES,
    can_reprocess,
)
from fotopronta.models import Photo, PhotoProcessingJob

REWORK_TITLE = "Revisione non disponibile"
REPROCESS_TITLE = "Impossibile avviare la rielaborazione"


def latest_job(photo: Photo) -> PhotoProcessingJob | None:
    """The photo's newest job by ``created_at`` (``None`` without jobs)."""
    return max(photo.jobs, key=lambda j: j.created_at) if photo.jobs else None


def is_rework(job: PhotoProcessingJob) -> bool:
    """The job is a free rework (``options.rework``), not a paid job."""
    return bool((job.options or {}).get("rework"))


def shown_job(photo: Photo) -> PhotoProcessingJob | None:
    """The job whose status describes the photo the seller has: the newest job, except a free rework
    that ended without a result (rejected by the designers, or cancelled): the result it was asked
    on is still the seller's, so the delivery before it is shown (the rework stays a note). The SQL
    twin is :func:`api.services.photos.latest_job_status`."""
    kept = [j for j in photo.jobs if not (is_rework(j) and j.status in UNDELIVERED_END_STATUSES)]
    return max(kept, key=lambda j: j.created_at) if kept else latest_job(photo)


def rework_already_requested() -> ApiError:
    """The refusal of a second free rework of one photo: 409 ``rework_already_requested``, 'Hai già
    chiesto la revisione gratuita di questa foto.' (also raised when the database's one-rework index
    refuses the insert)."""
    return ApiError(
        409,
        "Hai già chiesto la revisione gratuita di questa foto.",
        "rework_already_requested",
        REWORK_TITLE,
    )


def rework_refusal(photo: Photo, now: datetime | None = None) -> ApiError | None:
    """Why the free rework (DESIGN decisions) is refused for ``photo``, or ``None`` when allowed: asked
    once per photo (a photo has one paid delivery, by the AI or by a designer; the rework's own
    delivery is that free revision), for a latest job delivered (``completed`` by the AI or
    ``completed_human`` by a designer, ``completed_at`` set) less than
    :data:`~fotopronta.domain.FREE_REWORK_DAYS` days before ``now`` (default: the current time), while
    the files are kept.

    Returns:
        A fresh :class:`ApiError` to raise: 409 ``rework_already_requested``, ``not_completed`` or
        ``rework_expired``; 410 ``file_deleted``. Title 'Revisione non disponibile'.
    """
    job = latest_job(photo)
    if any(is_rework(j) for j in photo.jobs):
        return rework_already_requested()
    if job is None or job.status not in DELIVERED_STATUSES or job.completed_at is None:
        return ApiError(
            409,
            "La revisione gratuita è possibile solo per una foto elaborata.",
            "not_completed",
            REWORK_TITLE,
        )
    if (now or datetime.now(UTC)) - job.completed_at > FREE_REWORK_WINDOW:
        return ApiError(
            409,
            f"La revisione gratuita va chiesta entro {FREE_REWORK_DAYS} giorni dalla consegna.",
            "rework_expired",
            REWORK_TITLE,
        )
    if photo.files_deleted_at is not None:
        return ApiError(410, "Il file originale non è più disponibile.", "file_deleted", REWORK_TITLE)
    return None


def reprocess_refusal(photo: Photo) -> ApiError | None:
    """Why reprocessing ``photo`` is refused (SPEC §4 Reprocess), or ``None`` when allowed: the latest
    job ``failed`` with a retryable error code (:func:`fotopronta.domain.can_reprocess`, the rule the
    workflow's ``reprocess`` update also applies) and the original still stored. The caller's balance
    (refused at 0 credits) is checked by the route's service, not here: it is the user's, not the
    photo's.

    Returns:
        A fresh :class:`ApiError` to raise: 409 ``not_reprocessable``; 410 ``file_deleted``.
    """
    job = latest_job(photo)
    if job is None or not can_reprocess(job.status, job.error_code, job.error_message):
        return ApiError(409, "Questa foto non può essere rielaborata.", "not_reprocessable", REPROCESS_TITLE)
    if photo.files_deleted_at is not None:
        return ApiError(410, "Il file originale non è più disponibile.", "file_deleted", REPROCESS_TITLE)
    return None


def require_allowed(photo: Photo, refusal: ApiError | None) -> PhotoProcessingJob:
    """The photo's latest job, once ``refusal`` (from :func:`rework_refusal` or
    :func:`reprocess_refusal`, which both need a latest job) is ``None``.

    Raises:
        ApiError: ``refusal`` itself.
    """
    job = latest_job(photo)
    if refusal is not None:
        raise refusal
    assert job is not None  # both rules refuse a photo without jobs
    return job

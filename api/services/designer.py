"""The designers' queue (SPEC §4 Human workflow, §6): reading human jobs with their photos for
``api/routes/designer.py`` and ``api/routes/admin_jobs.py``. The state changes themselves are
workflow updates (the API never writes a job's state)."""

from __future__ import annotations

import uuid

from sqlalchemy import and_, or_, select
from sqlalchemy.orm import Session

from api.deps import effective_role
from api.errors import ApiError
from api.schemas import DesignerJob
from fotopronta import mailer
from fotopronta.domain import JobStatus, JobType, UserRole
from fotopronta.models import Photo, PhotoProcessingJob, Profile

HUMAN_QUEUE_STATUSES = (
    JobStatus.pending_human.value,
    JobStatus.assigned_to_graphic.value,
    JobStatus.in_progress_human.value,
)


def as_designer_job(job: PhotoProcessingJob, photo: Photo) -> DesignerJob:
    """The job with its photo's name, size, format and dimensions."""
    return DesignerJob.model_validate(
        {
            **{c: getattr(job, c) for c in DesignerJob.model_fields if hasattr(job, c)},
            "original_filename": photo.original_filename,
            "file_size": photo.file_size,
            "file_format": photo.file_format,
            "width": photo.width,
            "height": photo.height,
        }
    )


def load_human_job(session: Session, job_id: uuid.UUID) -> tuple[PhotoProcessingJob, Photo]:
    """The human job and its photo. Raises: ApiError 404 'Lavoro non trovato'."""
    job = session.get(PhotoProcessingJob, job_id)
    if job is None or job.job_type != JobType.background_removal_human:
        raise ApiError(404, "Lavoro non trovato", "job_not_found")
    return job, session.get_one(Photo, job.photo_id)


def reloaded_job(session: Session, job_id: uuid.UUID) -> DesignerJob:
    """The job as the designer sees it after a workflow update (fresh from the database)."""
    session.expire_all()
    return as_designer_job(*load_human_job(session, job_id))


def require_assignee(job: PhotoProcessingJob, user: Profile) -> None:
    """Raises: ApiError 403 ``not_assignee`` when ``user`` is not the job's designer."""
    if job.assigned_to != user.id:
        raise ApiError(403, "Il lavoro è assegnato a un altro grafico.", "not_assignee")


def queue(session: Session, user: Profile, status: str | None) -> list[DesignerJob]:
    """The queue: unassigned pending human jobs and ``user``'s assigned/in-progress ones (admins see
    every active human job), optionally of one ``status``, by priority then age."""
    query = (
        select(PhotoProcessingJob, Photo)
        .join(Photo, Photo.id == PhotoProcessingJob.photo_id)
        .where(
            PhotoProcessingJob.job_type == JobType.background_removal_human.value,
            PhotoProcessingJob.status.in_(HUMAN_QUEUE_STATUSES),
        )
    )
    if effective_role(user) is not UserRole.admin:
        query = query.where(
            or_(
                and_(
                    PhotoProcessingJob.status == JobStatus.pending_human.value,
                    PhotoProcessingJob.assigned_to.is_(None),
                ),
                PhotoProcessingJob.assigned_to == user.id,
            )
        )
    if status:
        query = query.where(PhotoProcessingJob.status == status)
    rows = session.execute(
        query.order_by(PhotoProcessingJob.priority.desc(), PhotoProcessingJob.created_at)
    ).all()
    return [as_designer_job(job, photo) for job, photo in rows]


HISTORY_LIMIT = 50
"""How many delivered jobs the 'Completati' history lists (the newest)."""


def history(session: Session, user: Profile, limit: int = HISTORY_LIMIT) -> list[DesignerJob]:
    """The 'Completati' history: the human jobs ``user`` delivered (admins: every designer's), the
    most recently completed first, at most ``limit``."""
    query = (
        select(PhotoProcessingJob, Photo)
        .join(Photo, Photo.id == PhotoProcessingJob.photo_id)
        .where(
            PhotoProcessingJob.job_type == JobType.background_removal_human.value,
            PhotoProcessingJob.status == JobStatus.completed_human.value,
        )
    )
    if effective_role(user) is not UserRole.admin:
        query = query.where(PhotoProcessingJob.assigned_to == user.id)
    rows = session.execute(
        query.order_by(PhotoProcessingJob.completed_at.desc().nulls_last(), PhotoProcessingJob.id).limit(
            limit
        )
    ).all()
    return [as_designer_job(job, photo) for job, photo in rows]


def can_see_job(job: PhotoProcessingJob, user: Profile) -> bool:
    """Admins see every human job; a designer the unassigned pending pool and their own jobs."""
    if effective_role(user) is UserRole.admin:
        return True
    if job.assigned_to == user.id:
        return True
    return job.status == JobStatus.pending_human.value and job.assigned_to is None


def photo_ready_email(session: Session, job_id: uuid.UUID, note: str | None) -> mailer.Email:
    """The 'Foto pronta' e-mail to the job's seller (:func:`fotopronta.mailer.photo_ready_email`) with
    the designer's ``note``, linking to ``/photos``."""
    job, photo = load_human_job(session, job_id)
    seller = session.get_one(Profile, job.user_id)
    return mailer.photo_ready_email(
        to=seller.email,
        first_name=seller.first_name,
        photo_name=photo.original_filename,
        note=note,
        link=mailer.public_link("/photos"),
    )

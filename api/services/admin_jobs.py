"""Admin job lists (``api/routes/admin_jobs.py``, SPEC §6 Admin) and the
notification a designer gets when an admin assigns them a job."""

from __future__ import annotations

import uuid
from datetime import date, datetime, time, timedelta

from sqlalchemy import func, select
from sqlalchemy.orm import Session, aliased

from activities.contracts import RETENTION_DAYS
from api.job_timeline import format_it
from api.schemas import AdminJob, AdminJobPage, DesignerJob
from api.services.admin_overview import needs_review_clause
from api.services.designer import as_designer_job, load_human_job
from api.services.queries import contains_any, sorted_page
from fotopronta.domain import JobStatus, JobType
from fotopronta.models import Notification, Photo, PhotoProcessingJob, Profile


def _day_start(d: date) -> datetime:
    return datetime.combine(d, time.min).astimezone()


def human_jobs(session: Session, status: str | None) -> list[DesignerJob]:
    """Human jobs with ``status`` (default ``pending_human``), by priority then age."""
    rows = session.execute(
        select(PhotoProcessingJob, Photo)
        .join(Photo, Photo.id == PhotoProcessingJob.photo_id)
        .where(
            PhotoProcessingJob.job_type == JobType.background_removal_human.value,
            PhotoProcessingJob.status == (status or JobStatus.pending_human.value),
        )
        .order_by(PhotoProcessingJob.priority.desc(), PhotoProcessingJob.created_at)
    ).all()
    return [as_designer_job(job, photo) for job, photo in rows]


def jobs_page(
    session: Session,
    *,
    page: int,
    size: int,
    q: str,
    status: str | None,
    job_type: str | None,
    date_from: date | None,
    date_to: date | None,
    sort: str,
    order: str,
    needs_review: bool = False,
) -> AdminJobPage:
    """Page ``page`` (from 1, ``size`` rows) of every job, AI or human, whose owner's e-mail or photo
    name contains ``q`` (case-insensitive), with ``status``/``job_type`` if given, created between
    ``date_from`` and ``date_to`` (inclusive days, server time zone), sorted by ``sort``
    (``created_at``, ``status``, ``email``, ``filename``, ``job_type``, ``completed_at``; ``order``,
    nulls last, ties by id), with the number of matches. ``needs_review`` keeps only the AI results
    the overview counts as 'Risultati AI da verificare'
    (:func:`api.services.admin_overview.needs_review_clause`)."""
    owner = aliased(Profile)
    designer = aliased(Profile)
    query = (
        select(PhotoProcessingJob, Photo.original_filename, owner.email, designer.email)
        .join(Photo, Photo.id == PhotoProcessingJob.photo_id)
        .join(owner, owner.id == PhotoProcessingJob.user_id)
        .outerjoin(designer, designer.id == PhotoProcessingJob.assigned_to)
    )
    term = q.strip()
    if term:
        query = query.where(contains_any(term, owner.email, Photo.original_filename))
    if status:
        query = query.where(PhotoProcessingJob.status == status)
    if job_type:
        query = query.where(PhotoProcessingJob.job_type == job_type)
    if needs_review:
        query = query.where(needs_review_clause())
    if date_from:
        query = query.where(PhotoProcessingJob.created_at >= _day_start(date_from))
    if date_to:
        query = query.where(PhotoProcessingJob.created_at < _day_start(date_to + timedelta(days=1)))
    column = {
        "created_at": PhotoProcessingJob.created_at,
        "status": PhotoProcessingJob.status,
        "email": owner.email,
        "filename": func.lower(Photo.original_filename),
        "job_type": PhotoProcessingJob.job_type,
        "completed_at": PhotoProcessingJob.completed_at,
    }[sort]
    found, total = sorted_page(
        session, query, column, PhotoProcessingJob.id, order=order, page=page, size=size
    )
    items = [
        AdminJob(
            id=job.id,
            photo_id=job.photo_id,
            user_id=job.user_id,
            user_email=email,
            original_filename=filename,
            job_type=JobType(job.job_type),
            status=JobStatus(job.status),
            error_message=job.error_message,
            priority=job.priority,
            overdue=job.overdue,
            deadline=job.deadline,
            assigned_to=job.assigned_to,
            assigned_to_email=designer_email,
            created_at=job.created_at,
            completed_at=job.completed_at,
        )
        for job, filename, email, designer_email in found
    ]
    return AdminJobPage(items=items, total=total, page=page, size=size)


def notify_designer(session: Session, job_id: uuid.UUID, designer_id: uuid.UUID) -> DesignerJob:
    """After an admin's assignment: a 'Nuovo lavoro assegnato' notification for the designer (bell and
    live update through the events bus); returns the reloaded job (blocking: threadpool)."""
    session.expire_all()
    job, photo = load_human_job(session, job_id)
    deadline = format_it(job.deadline) if job.deadline else None
    session.add(
        Notification(
            user_id=designer_id,
            type="info",
            related_job_id=job.id,
            title="Nuovo lavoro assegnato",
            message=f"Ti è stato assegnato il lavoro su {photo.original_filename}"
            + (f", da consegnare entro il {deadline}." if deadline else "."),
        )
    )
    session.commit()
    return as_designer_job(job, photo)


RETAINED_STATUSES = (
    JobStatus.completed.value,
    JobStatus.completed_human.value,
    JobStatus.rejected_human.value,
)
"""Final job statuses after which the workflow only waits for the retention (30 days, then the
photo's files are deleted)."""


def job_retention(session: Session, job_id: uuid.UUID) -> tuple[JobStatus, datetime | None] | None:
    """The job's status and, once it has ended delivered or rejected and its files are still stored,
    until when they are kept (end time + :data:`activities.contracts.RETENTION_DAYS`); ``None`` when the
    job does not exist. Closes the session, so no connection is held while Temporal answers."""
    job = session.get(PhotoProcessingJob, job_id)
    if job is None:
        session.close()
        return None
    kept_until = None
    photo = session.get(Photo, job.photo_id)
    if job.status in RETAINED_STATUSES and photo is not None and photo.files_deleted_at is None:
        kept_until = (job.completed_at or job.updated_at) + timedelta(days=RETENTION_DAYS)
    status = JobStatus(job.status)
    session.close()
    return status, kept_until


def designer_names(session: Session, ids: set[uuid.UUID]) -> dict[str, str]:
    """``{profile id: "Nome Cognome"}`` (the e-mail when no name) of the given designers; closes the
    session (blocking: threadpool)."""
    names: dict[str, str] = {}
    for person in session.execute(select(Profile).where(Profile.id.in_(ids))).scalars():
        full = " ".join(x for x in (person.first_name, person.last_name) if x)
        names[str(person.id)] = full or person.email
    session.close()
    return names

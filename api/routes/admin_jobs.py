"""Admin job endpoints (``/api/admin/jobs``, SPEC §6 Admin; issue 12 items 6 and 14).

- ``GET`` without ``page``: human jobs by status (default the pending pool), by priority then age.
- ``GET ?page=&size=`` (optionally ``q``, ``status``, ``job_type``, ``date_from``, ``date_to``, ``sort``,
  ``order``): every job, AI or human, searched by the owner's e-mail or the photo's name, one page at
  a time with the total count, sorted on the server.
- ``POST /{id}/assign {designer_id}``: assign a pending human job; the designer is notified.
"""

from __future__ import annotations

import uuid
from datetime import date, datetime, time, timedelta
from typing import Annotated, Literal

from fastapi import APIRouter, Query
from fastapi.concurrency import run_in_threadpool
from pydantic import BaseModel
from sqlalchemy import func, or_, select
from sqlalchemy.orm import Session, aliased

from api.deps import AdminUser, SessionDep, TemporalDep
from api.job_control import run_job_update
from api.job_timeline import format_it
from api.routes.designer import DesignerJob, as_designer_job, load_human_job
from fotopronta.models import JobStatus, JobType, Notification, Photo, PhotoProcessingJob, Profile
from workflows.photo_job import PhotoJobWorkflow
from workflows.shared import AssignInput

router = APIRouter(prefix="/api/admin/jobs", tags=["admin"])

PAGE_SIZE_MAX = 100
JobSort = Literal["created_at", "status", "email", "filename", "job_type", "completed_at"]
SortOrder = Literal["asc", "desc"]


class AssignBody(BaseModel):
    """``POST /api/admin/jobs/{id}/assign``: the designer to assign."""

    designer_id: uuid.UUID


class AdminJob(BaseModel):
    """One job as the admin's job list shows it: the job, its photo's name, owner and designer."""

    id: uuid.UUID
    photo_id: uuid.UUID
    user_id: uuid.UUID
    user_email: str
    original_filename: str
    job_type: str
    status: str
    error_message: str | None
    priority: int
    overdue: bool
    deadline: datetime | None
    assigned_to: uuid.UUID | None
    assigned_to_email: str | None
    created_at: datetime
    completed_at: datetime | None


class AdminJobPage(BaseModel):
    """One page of :class:`AdminJob` rows and the number of rows matching the filters."""

    items: list[AdminJob]
    total: int
    page: int
    size: int


def like_pattern(term: str) -> str:
    """``%term%`` for a case-insensitive LIKE, with ``\\``, ``%`` and ``_`` escaped."""
    return "%" + term.lower().replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"


def _day_start(d: date) -> datetime:
    return datetime.combine(d, time.min).astimezone()


@router.get("", response_model=list[DesignerJob] | AdminJobPage, operation_id="admin-jobs-list")
def list_jobs(
    user: AdminUser,
    session: SessionDep,
    status: Annotated[str | None, Query(max_length=40)] = None,
    page: Annotated[int | None, Query(ge=1)] = None,
    size: Annotated[int, Query(ge=1, le=PAGE_SIZE_MAX)] = 20,
    q: Annotated[str, Query(max_length=200)] = "",
    job_type: Annotated[str | None, Query(max_length=40)] = None,
    date_from: date | None = None,
    date_to: date | None = None,
    sort: JobSort = "created_at",
    order: SortOrder = "desc",
) -> list[DesignerJob] | AdminJobPage:
    """Without ``page``: human jobs with ``status`` (default ``pending_human``), by priority then age.

    With ``page``: every job whose owner's e-mail or photo name contains ``q`` (case-insensitive),
    with ``status``/``job_type`` if given, created between ``date_from`` and ``date_to`` (inclusive
    days, server time zone), sorted by ``sort`` (``order``; ties by id), ``size`` rows per page.
    """
    if page is None:
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
        pattern = like_pattern(term)
        query = query.where(
            or_(
                func.lower(owner.email).like(pattern, escape="\\"),
                func.lower(Photo.original_filename).like(pattern, escape="\\"),
            )
        )
    if status:
        query = query.where(PhotoProcessingJob.status == status)
    if job_type:
        query = query.where(PhotoProcessingJob.job_type == job_type)
    if date_from:
        query = query.where(PhotoProcessingJob.created_at >= _day_start(date_from))
    if date_to:
        query = query.where(PhotoProcessingJob.created_at < _day_start(date_to + timedelta(days=1)))
    total = session.execute(select(func.count()).select_from(query.subquery())).scalar_one()
    column = {
        "created_at": PhotoProcessingJob.created_at,
        "status": PhotoProcessingJob.status,
        "email": owner.email,
        "filename": func.lower(Photo.original_filename),
        "job_type": PhotoProcessingJob.job_type,
        "completed_at": PhotoProcessingJob.completed_at,
    }[sort]
    direction = column.asc().nulls_last() if order == "asc" else column.desc().nulls_last()
    found = session.execute(
        query.order_by(direction, PhotoProcessingJob.id).offset((page - 1) * size).limit(size)
    ).all()
    items = [
        AdminJob(
            id=job.id,
            photo_id=job.photo_id,
            user_id=job.user_id,
            user_email=email,
            original_filename=filename,
            job_type=job.job_type,
            status=job.status,
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


@router.post("/{job_id}/assign", response_model=DesignerJob, operation_id="admin-jobs-assign")
async def assign_job(
    job_id: uuid.UUID, body: AssignBody, user: AdminUser, session: SessionDep, temporal: TemporalDep
) -> DesignerJob:
    """Assign a pending human job to an active designer with free capacity (72-hour deadline) and
    notify the designer ('Nuovo lavoro assegnato': bell and live update through the events bus)."""
    await run_in_threadpool(load_human_job, session, job_id)
    await run_job_update(
        temporal,
        job_id,
        PhotoJobWorkflow.assign,
        AssignInput(designer_id=str(body.designer_id), actor_id=str(user.id), by_admin=True),
        title="Errore nell'assegnazione del lavoro",
    )
    return await run_in_threadpool(_notify_designer, session, job_id, body.designer_id)


def _notify_designer(session: Session, job_id: uuid.UUID, designer_id: uuid.UUID) -> DesignerJob:
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

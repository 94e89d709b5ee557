"""Admin job endpoints (``/api/admin/jobs``): the pending human pool and assigning it (SPEC §6 Admin)."""

from __future__ import annotations

import uuid
from typing import Annotated

from fastapi import APIRouter, Query
from fastapi.concurrency import run_in_threadpool
from pydantic import BaseModel
from sqlalchemy import select

from api.deps import AdminUser, SessionDep, TemporalDep
from api.job_control import run_job_update
from api.routes.designer import DesignerJob, as_designer_job, load_human_job, reloaded_job
from fotopronta.models import JobStatus, JobType, Photo, PhotoProcessingJob
from workflows.photo_job import PhotoJobWorkflow
from workflows.shared import AssignInput

router = APIRouter(prefix="/api/admin/jobs", tags=["admin"])


class AssignBody(BaseModel):
    """``POST /api/admin/jobs/{id}/assign``: the designer to assign."""

    designer_id: uuid.UUID


@router.get("", response_model=list[DesignerJob], operation_id="admin-jobs-list")
def list_jobs(
    user: AdminUser, session: SessionDep, status: Annotated[str, Query()] = JobStatus.pending_human.value
) -> list[DesignerJob]:
    """Human jobs by status (default: the pending pool), by priority then age."""
    rows = session.execute(
        select(PhotoProcessingJob, Photo)
        .join(Photo, Photo.id == PhotoProcessingJob.photo_id)
        .where(
            PhotoProcessingJob.job_type == JobType.background_removal_human.value,
            PhotoProcessingJob.status == status,
        )
        .order_by(PhotoProcessingJob.priority.desc(), PhotoProcessingJob.created_at)
    ).all()
    return [as_designer_job(job, photo) for job, photo in rows]


@router.post("/{job_id}/assign", response_model=DesignerJob, operation_id="admin-jobs-assign")
async def assign_job(
    job_id: uuid.UUID, body: AssignBody, user: AdminUser, session: SessionDep, temporal: TemporalDep
) -> DesignerJob:
    """Assign a pending human job to an active designer with free capacity (72-hour deadline)."""
    await run_in_threadpool(load_human_job, session, job_id)
    await run_job_update(
        temporal,
        job_id,
        PhotoJobWorkflow.assign,
        AssignInput(designer_id=str(body.designer_id), actor_id=str(user.id), by_admin=True),
        title="Errore nell'assegnazione del lavoro",
    )
    return await run_in_threadpool(reloaded_job, session, job_id)

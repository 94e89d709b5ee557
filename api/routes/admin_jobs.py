"""Admin job endpoints (``/api/admin/jobs``, SPEC §6 Admin).

- ``GET`` without ``page``: human jobs by status (default the pending pool), by priority then age.
- ``GET ?page=&size=`` (optionally ``q``, ``status``, ``job_type``, ``date_from``, ``date_to``, ``sort``,
  ``order``, ``needs_review``): every job, AI or human, searched by the owner's e-mail or the photo's name, one page at
  a time with the total count, sorted on the server.
- ``POST /{id}/assign {designer_id}``: assign a pending human job; the designer is notified.
"""

from __future__ import annotations

import uuid
from datetime import date
from typing import Annotated, Literal

from fastapi import APIRouter, Query
from fastapi.concurrency import run_in_threadpool
from pydantic import BaseModel

from activities.contracts import AssignInput
from api.deps import AdminUser, SessionDep, TemporalDep
from api.job_control import run_job_update
from api.schemas import AdminJobPage, DesignerJob
from api.services import admin_jobs as service
from api.services.designer import load_human_job
from workflows.photo_job import PhotoJobWorkflow

router = APIRouter(prefix="/api/admin/jobs", tags=["admin"])

PAGE_SIZE_MAX = 100
JobSort = Literal["created_at", "status", "email", "filename", "job_type", "completed_at"]
SortOrder = Literal["asc", "desc"]


class AssignBody(BaseModel):
    """``POST /api/admin/jobs/{id}/assign``: the designer to assign."""

    designer_id: uuid.UUID


@router.get("", response_model=list[DesignerJob] | AdminJobPage, operation_id="admin-jobs-list")
def list_jobs(
    _admin: AdminUser,  # the role check; the listing does not depend on which admin asks
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
    needs_review: bool = False,
) -> list[DesignerJob] | AdminJobPage:
    """Without ``page``: human jobs with ``status`` (default ``pending_human``), by priority then age.

    With ``page``: every job whose owner's e-mail or photo name contains ``q`` (case-insensitive),
    with ``status``/``job_type`` if given, created between ``date_from`` and ``date_to`` (inclusive
    days, server time zone), sorted by ``sort`` (``order``; ties by id), ``size`` rows per page;
    ``needs_review=true``: only the AI results the overview counts as 'Risultati AI da verificare'.
    """
    if page is None:
        return service.human_jobs(session, status)
    return service.jobs_page(
        session,
        page=page,
        size=size,
        q=q,
        status=status,
        job_type=job_type,
        date_from=date_from,
        date_to=date_to,
        sort=sort,
        order=order,
        needs_review=needs_review,
    )


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
    return await run_in_threadpool(service.notify_designer, session, job_id, body.designer_id)

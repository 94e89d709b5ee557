"""Admin dashboard, Overview and Graphics team tabs (SPEC §2 /admin-dashboard, §6 Admin, §9):
``GET /api/admin/overview`` (counters) and ``GET /api/admin/designers`` (designers' load)."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta

from fastapi import APIRouter
from pydantic import BaseModel
from sqlalchemy import and_, case, func, select

from api.deps import AdminUser, SessionDep
from fotopronta.models import (
    CreditPurchase,
    JobStatus,
    JobType,
    Photo,
    PhotoProcessingJob,
    Profile,
    UserRole,
)

router = APIRouter(prefix="/api/admin", tags=["admin"])

NEW_USER_WINDOW = timedelta(days=30)
"""SPEC §9: users with 0 credits registered within this window count as 'without credits'."""
NEEDS_REVIEW_WINDOW_DAYS = 7
"""Issue 10: the overview counts AI results flagged ``needs_review`` delivered in the last 7 days (the
free-rework window)."""
AI_JOB_TYPES = (JobType.background_removal.value, JobType.smart_backgrounds.value)
ACTIVE_JOB_STATUSES = (JobStatus.assigned_to_graphic.value, JobStatus.in_progress_human.value)
"""SPEC §9 Designer capacity: jobs that occupy a designer."""


class AdminOverview(BaseModel):
    """Counters of the admin Overview tab.

    - ``users_total``: every profile; ``users_without_credits``: 0 credits and registered in the last
      30 days (SPEC §9).
    - ``photos_total``: every photo row.
    - ``jobs_by_status``: number of jobs per status, every status of ``JobStatus`` present (0 if none).
    - ``pending_human_unassigned``: human jobs in the pool (``pending_human``, no designer).
    - ``credits_sold`` / ``revenue_cents``: credits and amount paid (cents of ``currency``) of
      completed purchases with a positive amount; ``credits_granted``: credits of completed
      zero-amount purchases (admin grants, SPEC §9), which are not sales.
    - ``jobs_needing_review``: AI jobs delivered in the last ``needs_review_window_days`` days whose
      result the retouch pipeline flagged (``processing_details.needs_review``), reworked or not.
    """

    users_total: int
    users_without_credits: int
    photos_total: int
    jobs_by_status: dict[str, int]
    pending_human_unassigned: int
    credits_sold: int
    credits_granted: int
    revenue_cents: int
    jobs_needing_review: int = 0
    needs_review_window_days: int = NEEDS_REVIEW_WINDOW_DAYS
    currency: str = "EUR"


class DesignerLoad(BaseModel):
    """One designer (profile with role graphic) and their load (SPEC §9 Designer capacity).

    ``active_jobs``: jobs assigned to them in ``assigned_to_graphic`` or ``in_progress_human``;
    ``completed_jobs``: their ``completed_human`` jobs; ``is_full``: ``active_jobs >=
    max_concurrent_jobs``. Inactive designers are listed too (``is_active`` false; they act as clients,
    SPEC §6, and cannot take jobs).
    """

    id: uuid.UUID
    first_name: str | None
    last_name: str | None
    email: str
    is_active: bool
    max_concurrent_jobs: int
    active_jobs: int
    completed_jobs: int
    is_full: bool
    specializations: list[str] | None


@router.get("/overview", response_model=AdminOverview, operation_id="admin-overview")
def admin_overview(_: AdminUser, session: SessionDep) -> AdminOverview:
    """Counters for the admin Overview tab (users, photos, jobs, sales, results flagged for review).
    Raises: 401, 403."""
    since = datetime.now(UTC) - NEW_USER_WINDOW
    users_total, users_without_credits = session.execute(
        select(
            func.count(),
            func.count().filter(and_(Profile.credits_remaining == 0, Profile.created_at >= since)),
        ).select_from(Profile)
    ).one()
    photos_total = session.execute(select(func.count()).select_from(Photo)).scalar_one()
    jobs_by_status = {s.value: 0 for s in JobStatus}
    for status, count in session.execute(
        select(PhotoProcessingJob.status, func.count()).group_by(PhotoProcessingJob.status)
    ).all():
        jobs_by_status[status] = count
    pool = session.execute(
        select(func.count())
        .select_from(PhotoProcessingJob)
        .where(
            PhotoProcessingJob.status == JobStatus.pending_human.value,
            PhotoProcessingJob.assigned_to.is_(None),
        )
    ).scalar_one()
    flagged = session.execute(
        select(func.count())
        .select_from(PhotoProcessingJob)
        .where(
            PhotoProcessingJob.job_type.in_(AI_JOB_TYPES),
            PhotoProcessingJob.status == JobStatus.completed.value,
            PhotoProcessingJob.completed_at >= datetime.now(UTC) - timedelta(days=NEEDS_REVIEW_WINDOW_DAYS),
            PhotoProcessingJob.processing_details["needs_review"].as_boolean().is_(True),
        )
    ).scalar_one()
    paid = CreditPurchase.amount_paid_cents > 0
    sold, granted, revenue = session.execute(
        select(
            func.coalesce(func.sum(case((paid, CreditPurchase.credits_purchased), else_=0)), 0),
            func.coalesce(func.sum(case((paid, 0), else_=CreditPurchase.credits_purchased)), 0),
            func.coalesce(func.sum(CreditPurchase.amount_paid_cents), 0),
        ).where(CreditPurchase.status == "completed")
    ).one()
    return AdminOverview(
        users_total=users_total,
        users_without_credits=users_without_credits,
        photos_total=photos_total,
        jobs_by_status=jobs_by_status,
        pending_human_unassigned=pool,
        credits_sold=sold,
        credits_granted=granted,
        revenue_cents=revenue,
        jobs_needing_review=flagged,
    )


@router.get("/designers", response_model=list[DesignerLoad], operation_id="admin-designers")
def admin_designers(_: AdminUser, session: SessionDep) -> list[DesignerLoad]:
    """Every designer with active and completed job counts, by name. Raises: 401, 403."""
    job = PhotoProcessingJob
    counts = (
        select(
            job.assigned_to.label("designer_id"),
            func.count().filter(job.status.in_(ACTIVE_JOB_STATUSES)).label("active"),
            func.count().filter(job.status == JobStatus.completed_human.value).label("completed"),
        )
        .where(job.assigned_to.is_not(None))
        .group_by(job.assigned_to)
        .subquery()
    )
    rows = session.execute(
        select(Profile, func.coalesce(counts.c.active, 0), func.coalesce(counts.c.completed, 0))
        .outerjoin(counts, counts.c.designer_id == Profile.id)
        .where(Profile.user_role == UserRole.graphic.value)
        .order_by(Profile.first_name, Profile.last_name, Profile.email)
    ).all()
    return [
        DesignerLoad(
            id=p.id,
            first_name=p.first_name,
            last_name=p.last_name,
            email=p.email,
            is_active=p.is_active,
            max_concurrent_jobs=p.max_concurrent_jobs,
            active_jobs=active,
            completed_jobs=completed,
            is_full=active >= p.max_concurrent_jobs,
            specializations=p.specializations,
        )
        for p, active, completed in rows
    ]

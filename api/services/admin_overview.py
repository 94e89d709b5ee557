"""Admin dashboard counters and the designers' load (``api/routes/admin_overview.py``; SPEC §6
Admin, §9): read-only aggregate queries."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from sqlalchemy import and_, case, func, or_, select
from sqlalchemy.orm import Session
from sqlalchemy.sql import ColumnElement

from api.schemas import AdminOverview, DesignerLoad
from fotopronta.domain import AI_JOB_TYPES as DOMAIN_AI_JOB_TYPES
from fotopronta.domain import FREE_REWORK_DAYS, WITH_DESIGNER_STATUSES, JobStatus, UserRole
from fotopronta.models import CreditPurchase, Photo, PhotoProcessingJob, Profile

NEW_USER_WINDOW = timedelta(days=30)
"""SPEC §9: users with 0 credits registered within this window count as 'without credits'."""
NEEDS_REVIEW_WINDOW_DAYS = FREE_REWORK_DAYS
"""The overview counts AI results flagged ``needs_review`` delivered within the free-rework
window (:data:`fotopronta.domain.FREE_REWORK_DAYS`)."""
AI_JOB_TYPES = sorted(DOMAIN_AI_JOB_TYPES)
ACTIVE_JOB_STATUSES = sorted(WITH_DESIGNER_STATUSES)
"""SPEC §9 Designer capacity: jobs that occupy a designer (:data:`fotopronta.domain.WITH_DESIGNER_STATUSES`)."""


def needs_review_clause() -> ColumnElement[bool]:
    """AI results flagged ``needs_review`` by the retouch pipeline, delivered within the last
    :data:`NEEDS_REVIEW_WINDOW_DAYS` days: the overview's 'Risultati AI da verificare' and the jobs
    tab's filter of the same name."""
    return and_(
        PhotoProcessingJob.job_type.in_(AI_JOB_TYPES),
        PhotoProcessingJob.status == JobStatus.completed.value,
        PhotoProcessingJob.completed_at >= datetime.now(UTC) - timedelta(days=NEEDS_REVIEW_WINDOW_DAYS),
        PhotoProcessingJob.processing_details["needs_review"].as_boolean().is_(True),
    )


def overview(session: Session) -> AdminOverview:
    """Counters for the admin Overview tab (users, photos, jobs, sales, results flagged for review):
    see :class:`api.schemas.AdminOverview`."""
    since = datetime.now(UTC) - NEW_USER_WINDOW
    users_total, users_without_credits = session.execute(
        select(
            func.count(),
            # sellers only (clients, and staff whose role is off): designers and admins need no credits
            func.count().filter(
                and_(
                    Profile.credits_remaining == 0,
                    Profile.created_at >= since,
                    or_(Profile.user_role == UserRole.client.value, Profile.is_active.is_(False)),
                )
            ),
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
        select(func.count()).select_from(PhotoProcessingJob).where(needs_review_clause())
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


def designer_loads(session: Session) -> list[DesignerLoad]:
    """Every designer (role graphic, active or not) with active and completed job counts, by name."""
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

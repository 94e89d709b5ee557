"""Orders: one per upload batch (SPEC §3 ``orders``, §2 /orders). Kept in step with the batch's jobs
by the job activities."""

from __future__ import annotations

import uuid

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from fotopronta.domain import JobStatus, JobType, PhotoStatus
from fotopronta.models import Order, Photo, PhotoProcessingJob

FINAL_JOB_STATUSES = (
    JobStatus.completed.value,
    JobStatus.failed.value,
    JobStatus.completed_human.value,
    JobStatus.rejected_human.value,
)

PACKAGE_LABELS: dict[str, str] = {
    JobType.background_removal: "Ritocco AI",
    JobType.smart_backgrounds: "Sfondi intelligenti",
    JobType.background_removal_human: "Ritocco del team grafico",
}
"""``orders.package_type`` shown on /orders, by job type."""


def refresh_order(session: Session, order_id: uuid.UUID | None) -> None:
    """Recount ``processed_photos`` (photos delivered) and set ``status``: ``processing`` while a job
    of the batch is unfinished, then ``completed``. A no-op for ``None`` or a deleted order."""
    if order_id is None:
        return
    order = session.execute(select(Order).where(Order.id == order_id).with_for_update()).scalar_one_or_none()
    if order is None:
        return
    order.processed_photos = int(
        session.execute(
            select(func.count())
            .select_from(Photo)
            .where(Photo.order_id == order_id, Photo.status == PhotoStatus.processed.value)
        ).scalar_one()
    )
    unfinished = int(
        session.execute(
            select(func.count())
            .select_from(PhotoProcessingJob)
            .join(Photo, Photo.id == PhotoProcessingJob.photo_id)
            .where(Photo.order_id == order_id, PhotoProcessingJob.status.not_in(FINAL_JOB_STATUSES))
        ).scalar_one()
    )
    order.status = "processing" if unfinished else "completed"

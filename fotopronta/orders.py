"""Orders: one per upload batch (SPEC §3 ``orders``, §2 /orders). Kept in step with the batch's jobs
by the job activities."""

from __future__ import annotations

import uuid

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from fotopronta.domain import FINAL_STATUSES, JOB_TYPE_LABELS, PhotoStatus
from fotopronta.models import Order, Photo, PhotoProcessingJob

PACKAGE_LABELS: dict[str, str] = {kind.value: label for kind, label in JOB_TYPE_LABELS.items()}
"""``orders.package_type`` shown on /orders, by job type (:data:`fotopronta.domain.JOB_TYPE_LABELS`)."""


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
            .where(Photo.order_id == order_id, PhotoProcessingJob.status.not_in(sorted(FINAL_STATUSES)))
        ).scalar_one()
    )
    order.status = "processing" if unfinished else "completed"

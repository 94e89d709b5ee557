"""What every delivered job writes, AI or human: one place so both paths stay the same."""

from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy.orm import Session

from fotopronta.domain import JobStatus, PhotoStatus
from fotopronta.models import Notification, Photo, PhotoProcessingJob
from fotopronta.orders import refresh_order


def mark_delivered(
    session: Session,
    job: PhotoProcessingJob,
    photo: Photo,
    *,
    status: JobStatus,
    processed_path: str,
    processed_webp_path: str | None,
    message: str,
) -> None:
    """Job ``status`` (``completed`` or ``completed_human``) with progress 100 and ``completed_at``;
    photo ``processed`` with its result paths; a success notification 'Foto pronta' with ``message``;
    the batch's order recounted. Runs in the caller's transaction."""
    job.status = status.value
    job.progress_percentage = 100
    job.completed_at = datetime.now(UTC)
    job.error_message = None
    photo.status = PhotoStatus.processed.value
    photo.processed_path = processed_path
    photo.processed_webp_path = processed_webp_path
    session.add(
        Notification(
            user_id=job.user_id, type="success", related_job_id=job.id, title="Foto pronta", message=message
        )
    )
    session.flush()
    refresh_order(session, photo.order_id)

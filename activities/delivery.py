"""What every delivered job writes, AI or human: one place so both paths stay the same."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime

from sqlalchemy.exc import NoResultFound
from sqlalchemy.orm import Session, sessionmaker
from temporalio.exceptions import ApplicationError

from activities.contracts import JOB_GONE_ERROR
from fotopronta.domain import JobStatus, PhotoStatus
from fotopronta.models import Notification, Photo, PhotoProcessingJob
from fotopronta.orders import refresh_order


def job_gone(job_id: str) -> ApplicationError:
    """The non-retryable :data:`~activities.contracts.JOB_GONE_ERROR` for a job whose row is gone."""
    return ApplicationError(
        f"Il lavoro {job_id} non esiste più: la foto è stata eliminata.",
        type=JOB_GONE_ERROR,
        non_retryable=True,
    )


@contextmanager
def job_transaction(sessions: sessionmaker[Session], job_id: str) -> Iterator[Session]:
    """One transaction of a job activity (``sessions.begin()``). A row it requires that is missing
    (SQLAlchemy ``NoResultFound``, 'No row was found when one was required': the job, its photo or its
    owner was deleted) ends the activity with :func:`job_gone`, which Temporal does not retry: without
    it the activity would retry for ever on a row that will never come back.

    Raises:
        ApplicationError: type ``JobGoneError``, non-retryable.
    """
    try:
        with sessions.begin() as session:
            yield session
    except NoResultFound as exc:
        raise job_gone(job_id) from exc


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
    job.error_code = None
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

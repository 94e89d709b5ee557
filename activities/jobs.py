"""Job-state and credit activities (task queue ``photo-jobs``).

Each activity is one database transaction and is idempotent, so Temporal's retries are safe: the
credit activities are keyed by reservation id in the ledger, and the state activities write the same
values again. One that finds its job's row gone (the photo was deleted) fails with the non-retryable
``JobGoneError`` (:func:`activities.delivery.job_transaction`).
"""

from __future__ import annotations

import uuid
from datetime import UTC, datetime

from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker
from temporalio import activity
from temporalio.exceptions import ApplicationError

from activities.contracts import (
    INSUFFICIENT_CREDITS_ERROR,
    WAITING_EXPIRED_MESSAGE,
    WAITING_FOR_CREDITS_DAYS,
    CompleteJobInput,
    CreditsInput,
    FailJobInput,
    JobStatusInput,
)
from activities.delivery import job_transaction, mark_delivered
from activities.webhooks import emit_credits_low, emit_job_event
from fotopronta import ledger, mailer
from fotopronta.domain import JobErrorCode, JobStatus, PhotoStatus, error_code_from_message
from fotopronta.models import EmailOutbox, Notification, Photo, PhotoProcessingJob, Profile
from fotopronta.orders import refresh_order


def _mark_failed(
    session: Session,
    job: PhotoProcessingJob,
    photo: Photo,
    message: str,
    code: str,
    title: str,
    notification: str,
) -> None:
    """Job ``failed`` with ``message`` and ``code`` (not completed), photo back to ``uploaded``, and an error
    notification ``title`` / ``notification`` for the owner (added to ``session``, not flushed)."""
    job.status = JobStatus.failed.value
    job.error_message = message
    job.error_code = code
    job.completed_at = None
    photo.status = PhotoStatus.uploaded.value
    session.add(
        Notification(
            user_id=job.user_id, type="error", related_job_id=job.id, title=title, message=notification
        )
    )


class JobActivities:
    """Activities that change a job's rows; holds the SQLAlchemy session factory."""

    def __init__(self, sessions: sessionmaker[Session]) -> None:
        self.sessions = sessions

    @activity.defn(name="reserve_credits")
    def reserve_credits(self, inp: CreditsInput) -> None:
        """Reserve ``inp.amount`` credits (ledger ``reserve:{reservation_id}``); ``credits.low`` for the
        seller's webhooks when it takes the balance below the threshold.

        The job row is read first (``FOR KEY SHARE``: not deleted until this commits), so no credit
        is held for a job whose photo was deleted.

        Raises:
            ApplicationError: type ``InsufficientCreditsError`` (non-retryable) when the balance is short;
                ``JobGoneError`` (non-retryable) when the job row is gone.
        """
        with job_transaction(self.sessions, inp.job_id) as session:
            session.execute(
                select(PhotoProcessingJob.id)
                .where(PhotoProcessingJob.id == uuid.UUID(inp.job_id))
                .with_for_update(key_share=True)
            ).scalar_one()
            try:
                reserved = ledger.reserve(
                    session,
                    user_id=uuid.UUID(inp.user_id),
                    reservation_id=inp.reservation_id,
                    amount=inp.amount,
                    job_id=uuid.UUID(inp.job_id),
                )
            except ledger.InsufficientCreditsError as exc:
                raise ApplicationError(str(exc), type=INSUFFICIENT_CREDITS_ERROR, non_retryable=True) from exc
            if reserved:
                after = session.get_one(Profile, uuid.UUID(inp.user_id)).credits_remaining
                emit_credits_low(session, uuid.UUID(inp.user_id), after + inp.amount, after)

    @activity.defn(name="charge_credits")
    def charge_credits(self, inp: CreditsInput) -> None:
        """Make the reservation final (ledger ``charge:{reservation_id}``)."""
        with job_transaction(self.sessions, inp.job_id) as session:
            ledger.charge(
                session,
                user_id=uuid.UUID(inp.user_id),
                reservation_id=inp.reservation_id,
                job_id=uuid.UUID(inp.job_id),
            )

    @activity.defn(name="release_credits")
    def release_credits(self, inp: CreditsInput) -> None:
        """Give the reservation back (ledger ``release:{reservation_id}``); no-op if nothing is held."""
        with job_transaction(self.sessions, inp.job_id) as session:
            ledger.release(
                session,
                user_id=uuid.UUID(inp.user_id),
                reservation_id=inp.reservation_id,
                job_id=uuid.UUID(inp.job_id),
            )

    @activity.defn(name="set_job_status")
    def set_job_status(self, inp: JobStatusInput) -> None:
        """Write the job's status (and progress, error); ``processing`` also marks the photo and
        sets ``started_at``; ``pending`` (reprocess) clears the times. None of the statuses written
        here is an ending, so the error code is cleared (a reprocessed job loses its old one)."""
        with job_transaction(self.sessions, inp.job_id) as session:
            job = session.get_one(PhotoProcessingJob, uuid.UUID(inp.job_id))
            before = job.status
            job.status = inp.status
            if inp.progress_percentage is not None:
                job.progress_percentage = inp.progress_percentage
            job.error_message = inp.error_message
            job.error_code = None
            if inp.status == JobStatus.processing:
                job.started_at = job.started_at or datetime.now(UTC)
                session.get_one(Photo, job.photo_id).status = PhotoStatus.processing.value
            elif inp.status == JobStatus.pending:  # reprocess: error and times cleared (SPEC §4)
                job.started_at = None
                job.completed_at = None
                photo = session.get_one(Photo, job.photo_id)
                photo.status = PhotoStatus.processing.value
                session.flush()
                refresh_order(session, photo.order_id)
            if inp.status == JobStatus.waiting_for_credits and before != JobStatus.waiting_for_credits:
                emit_job_event(session, job, "job.waiting_for_credits")

    @activity.defn(name="complete_job")
    def complete_job(self, inp: CompleteJobInput) -> None:
        """Job ``completed`` (progress 100, ``completed_at``, ``processing_details``), photo
        ``processed`` with its result paths, and a success notification, in one transaction."""
        with job_transaction(self.sessions, inp.job_id) as session:
            job = session.get_one(PhotoProcessingJob, uuid.UUID(inp.job_id))
            photo = session.get_one(Photo, job.photo_id)
            if job.status == JobStatus.completed:
                return
            job.processing_details = dict(inp.result.details)
            mark_delivered(
                session,
                job,
                photo,
                status=JobStatus.completed,
                processed_path=inp.result.jpeg_key,
                processed_webp_path=inp.result.webp_key,
                message=f"La foto {photo.original_filename} è stata elaborata ed è pronta da scaricare.",
            )
            emit_job_event(session, job, "job.completed")
            if job.processing_details.get("needs_review"):
                emit_job_event(session, job, "job.needs_review")

    @activity.defn(name="fail_job")
    def fail_job(self, inp: FailJobInput) -> None:
        """Job ``failed`` with ``error_message`` and ``error_code``, photo back to ``uploaded``, error
        notification. An input without a code (scheduled by a worker that predates codes) gets the code
        its message implies (:func:`fotopronta.domain.error_code_from_message`); a message without a
        retryable marker can only be the retouch's refusal of the image, so ``bad_image``."""
        code = str(inp.error_code or error_code_from_message(inp.error_message) or JobErrorCode.bad_image)
        with job_transaction(self.sessions, inp.job_id) as session:
            job = session.get_one(PhotoProcessingJob, uuid.UUID(inp.job_id))
            photo = session.get_one(Photo, job.photo_id)
            if (
                job.status == JobStatus.failed
                and job.error_message == inp.error_message
                and job.error_code == code
            ):
                return
            _mark_failed(
                session,
                job,
                photo,
                inp.error_message,
                code,
                "Errore elaborazione",
                f"Non è stato possibile elaborare {photo.original_filename}: {inp.error_message}",
            )
            session.flush()
            refresh_order(session, photo.order_id)
            emit_job_event(session, job, "job.failed")

    @activity.defn(name="end_waiting_for_credits")
    def end_waiting_for_credits(self, inp: JobStatusInput) -> None:
        """A job's wait for credits ran out (``WAITING_FOR_CREDITS_DAYS``): job ``failed`` with
        :data:`WAITING_EXPIRED_MESSAGE` (code ``waiting_expired``, reprocessable), photo ``uploaded``
        (as the seller left it), an error notification and an e-mail to the owner
        (:func:`fotopronta.mailer.waiting_expired_email`, stored in ``email_outbox`` in the same
        transaction, then delivered by SMTP in production). Nothing was reserved, so nothing is
        released or charged. A retry after the commit changes nothing; an SMTP failure is logged and
        leaves the row unsent in the outbox."""
        with job_transaction(self.sessions, inp.job_id) as session:
            job = session.get_one(PhotoProcessingJob, uuid.UUID(inp.job_id))
            if job.status == JobStatus.failed and job.error_code == JobErrorCode.waiting_expired:
                return
            photo = session.get_one(Photo, job.photo_id)
            owner = session.get_one(Profile, job.user_id)
            _mark_failed(
                session,
                job,
                photo,
                WAITING_EXPIRED_MESSAGE,
                JobErrorCode.waiting_expired.value,
                "Attesa crediti scaduta",
                f"{photo.original_filename}: {WAITING_EXPIRED_MESSAGE}",
            )
            email = mailer.waiting_expired_email(
                to=owner.email,
                first_name=owner.first_name,
                photo_name=photo.original_filename,
                days=WAITING_FOR_CREDITS_DAYS,
                link=mailer.public_link("/photos"),
            )
            outbox = EmailOutbox(
                to_address=email.to, subject=email.subject, text=email.text, links=email.links
            )
            session.add(outbox)
            session.flush()
            refresh_order(session, photo.order_id)
            emit_job_event(session, job, "job.failed")
            outbox_id = outbox.id
        try:
            if mailer.deliver_stored(email):
                with self.sessions.begin() as session:
                    session.get_one(EmailOutbox, outbox_id).sent_at = datetime.now(UTC)
        except mailer.MailDeliveryError:
            activity.logger.exception("e-mail about job %s's ended wait not delivered", inp.job_id)

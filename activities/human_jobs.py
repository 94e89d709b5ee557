"""Activities of the human path (task queue ``photo-jobs``): assign, start, complete, reject,
escalate an overdue job (SPEC §4 Human workflow, §6 Designer, §9 capacity and deadline)."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime

from sqlalchemy import func, select
from sqlalchemy.orm import Session, sessionmaker
from temporalio import activity
from temporalio.exceptions import ApplicationError

from activities.contracts import (
    ASSIGNMENT_REFUSED_ERROR,
    CANCELLED_BY_SELLER_MESSAGE,
    AssignJobActivityInput,
    HumanJobActivityInput,
)
from activities.delivery import job_transaction, mark_delivered
from activities.webhooks import emit_job_event
from fotopronta.domain import WITH_DESIGNER_STATUSES, JobErrorCode, JobStatus, PhotoStatus, UserRole
from fotopronta.models import Notification, Photo, PhotoProcessingJob, Profile
from fotopronta.orders import refresh_order
from fotopronta.results import designer_seo_name

ACTIVE_HUMAN_STATUSES = sorted(WITH_DESIGNER_STATUSES)
"""A designer's active jobs (SPEC §9 Designer capacity)."""


def active_job_count(session: Session, designer_id: uuid.UUID) -> int:
    """Jobs assigned to ``designer_id`` in ``assigned_to_graphic`` or ``in_progress_human``."""
    return int(
        session.execute(
            select(func.count())
            .select_from(PhotoProcessingJob)
            .where(
                PhotoProcessingJob.assigned_to == designer_id,
                PhotoProcessingJob.status.in_(ACTIVE_HUMAN_STATUSES),
            )
        ).scalar_one()
    )


def has_delivered_result(photo: Photo) -> bool:
    """The photo already has a delivered result still on storage (a free rework is under way on it):
    human steps must not take it away (DESIGN decisions: a rejected rework keeps the earlier result)."""
    delivered_states = (PhotoStatus.processed.value, PhotoStatus.processing.value)
    return bool(photo.processed_path) and photo.files_deleted_at is None and photo.status in delivered_states


def _refuse(message: str) -> ApplicationError:
    return ApplicationError(message, type=ASSIGNMENT_REFUSED_ERROR, non_retryable=True)


class HumanJobActivities:
    """Database activities of the human path; holds the session factory."""

    def __init__(self, sessions: sessionmaker[Session]) -> None:
        self.sessions = sessions

    @activity.defn(name="assign_job")
    def assign_job(self, inp: AssignJobActivityInput) -> None:
        """Assign the job to the designer with ``deadline``; the designer's profile row is locked so
        two assignments cannot both take the last free slot.

        Raises:
            ApplicationError: ``AssignmentRefusedError`` (non-retryable) when the designer does not
                exist, is not an active graphic/admin, or is at ``max_concurrent_jobs``.
        """
        designer_id = uuid.UUID(inp.designer_id)
        with job_transaction(self.sessions, inp.job_id) as session:
            designer = session.execute(
                select(Profile).where(Profile.id == designer_id).with_for_update()
            ).scalar_one_or_none()
            if designer is None or designer.user_role not in (UserRole.graphic, UserRole.admin):
                raise _refuse("Il grafico scelto non esiste.")
            if not designer.is_active:
                raise _refuse("Il grafico scelto non è attivo.")
            job = session.get_one(PhotoProcessingJob, uuid.UUID(inp.job_id), with_for_update=True)
            if job.assigned_to == designer_id and job.status == JobStatus.assigned_to_graphic:
                return  # retried after success
            if active_job_count(session, designer_id) >= designer.max_concurrent_jobs:
                raise _refuse(
                    f"Il grafico ha già {designer.max_concurrent_jobs} lavori attivi (capacità massima)."
                )
            job.assigned_to = designer_id
            job.status = JobStatus.assigned_to_graphic.value
            job.deadline = datetime.fromisoformat(inp.deadline)
            job.started_at = None
            emit_job_event(session, job, "job.assigned_to_designer")

    @activity.defn(name="start_human_job")
    def start_human_job(self, inp: HumanJobActivityInput) -> None:
        """``in_progress_human`` with ``started_at``; the photo is processing, unless it already has a
        delivered result (a free rework): that result stays delivered and downloadable."""
        with job_transaction(self.sessions, inp.job_id) as session:
            job = session.get_one(PhotoProcessingJob, uuid.UUID(inp.job_id))
            job.status = JobStatus.in_progress_human.value
            job.started_at = job.started_at or datetime.now(UTC)
            photo = session.get_one(Photo, job.photo_id)
            if not has_delivered_result(photo):
                photo.status = PhotoStatus.processing.value

    @activity.defn(name="complete_human_job")
    def complete_human_job(self, inp: HumanJobActivityInput) -> None:
        """``completed_human``: photo processed with the designer's result, progress 100,
        ``completed_at``, ``graphic_notes``, success notification 'Foto pronta' to the client quoting the
        designer's note (when there is one)."""
        with job_transaction(self.sessions, inp.job_id) as session:
            job = session.get_one(PhotoProcessingJob, uuid.UUID(inp.job_id))
            if job.status == JobStatus.completed_human:
                return
            photo = session.get_one(Photo, job.photo_id)
            job.graphic_notes = inp.notes
            # the download name, shown and searched like an AI result's
            seo = designer_seo_name(photo, job)
            job.processing_details = {**(job.processing_details or {}), "seo_filename": seo}
            mark_delivered(
                session,
                job,
                photo,
                status=JobStatus.completed_human,
                processed_path=inp.result_key or "",
                processed_webp_path=None,
                message=f"Il nostro team grafico ha completato {photo.original_filename}: è pronta da scaricare."
                + (f" Nota del grafico: {inp.notes}" if inp.notes else ""),
            )
            emit_job_event(session, job, "job.completed")

    @activity.defn(name="reject_human_job")
    def reject_human_job(self, inp: HumanJobActivityInput) -> None:
        """``rejected_human`` with the reason in ``graphic_notes`` and ``error_message`` (code
        ``rejected``); warning
        notification with it. A photo with a delivered result (rejected free rework) keeps that result
        and its downloads; otherwise it goes back to ``uploaded``."""
        with job_transaction(self.sessions, inp.job_id) as session:
            job = session.get_one(PhotoProcessingJob, uuid.UUID(inp.job_id))
            if job.status == JobStatus.rejected_human:
                return
            photo = session.get_one(Photo, job.photo_id)
            job.status = JobStatus.rejected_human.value
            job.graphic_notes = inp.notes
            job.error_message = inp.notes
            job.error_code = JobErrorCode.rejected.value
            kept = has_delivered_result(photo)
            if kept:
                photo.status = PhotoStatus.processed.value
                after = "Il risultato che avevi già ricevuto resta disponibile per il download."
            else:
                photo.status = PhotoStatus.uploaded.value
                after = "I crediti riservati ti sono stati restituiti."
            reason = (inp.notes or "").strip() or "nessun motivo indicato"
            if not reason.endswith((".", "!", "?", "…")):  # one full stop, never '..'
                reason += "."
            session.add(
                Notification(
                    user_id=job.user_id,
                    type="warning",
                    related_job_id=job.id,
                    title="Lavoro rifiutato",
                    message=f"Il team grafico non ha potuto lavorare {photo.original_filename}. Motivo: {reason} "
                    + after,
                )
            )
            session.flush()
            refresh_order(session, photo.order_id)
            rework = bool((job.options or {}).get("rework"))
            emit_job_event(session, job, "job.rework_rejected" if rework else "job.failed")

    @activity.defn(name="cancel_human_job")
    def cancel_human_job(self, inp: HumanJobActivityInput) -> None:
        """The seller cancelled a job queued for designers (not started): job ``failed`` with
        :data:`CANCELLED_BY_SELLER_MESSAGE` (code ``cancelled_by_client``), unassigned, no deadline;
        the photo keeps a delivered result if it has one (a cancelled free rework), else goes back to
        ``uploaded``."""
        with job_transaction(self.sessions, inp.job_id) as session:
            job = session.get_one(PhotoProcessingJob, uuid.UUID(inp.job_id))
            photo = session.get_one(Photo, job.photo_id)
            job.status = JobStatus.failed.value
            job.error_message = CANCELLED_BY_SELLER_MESSAGE
            job.error_code = JobErrorCode.cancelled_by_client.value
            job.assigned_to = None
            job.deadline = None
            job.completed_at = None
            photo.status = (
                PhotoStatus.processed.value if has_delivered_result(photo) else PhotoStatus.uploaded.value
            )
            session.flush()
            refresh_order(session, photo.order_id)
            emit_job_event(session, job, "job.failed")

    @activity.defn(name="escalate_overdue_job")
    def escalate_overdue_job(self, inp: HumanJobActivityInput) -> None:
        """The 72-hour deadline passed: back to ``pending_human``, unassigned, ``overdue``, higher
        priority, and every active admin is notified."""
        with job_transaction(self.sessions, inp.job_id) as session:
            job = session.get_one(PhotoProcessingJob, uuid.UUID(inp.job_id))
            photo = session.get_one(Photo, job.photo_id)
            previous = job.assigned_to
            job.status = JobStatus.pending_human.value
            job.assigned_to = None
            job.deadline = None
            job.started_at = None
            job.overdue = True
            job.priority = max(job.priority, 4)
            admins = (
                session.execute(
                    select(Profile.id).where(
                        Profile.user_role == UserRole.admin.value, Profile.is_active.is_(True)
                    )
                )
                .scalars()
                .all()
            )
            designer = session.get(Profile, previous) if previous else None
            who = designer.email if designer else "un grafico"
            for admin_id in admins:
                session.add(
                    Notification(
                        user_id=admin_id,
                        type="warning",
                        related_job_id=job.id,
                        title="Lavoro scaduto",
                        message=f"Il lavoro su {photo.original_filename} assegnato a {who} ha superato le 72 ore: "
                        "è tornato tra i lavori da assegnare.",
                    )
                )

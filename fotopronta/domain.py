"""The product's shared definitions, once: roles, photo and job states, job types, job error codes and
the reprocess rule, ledger kinds, credit costs and the free-rework window (SPEC §3, §4, §9; DESIGN.md
decisions).

A pure module (standard library only) so that Temporal workflows (sandboxed), activities, the API and
the tests import the same names without pulling SQLAlchemy, numpy or the retouch pipeline in. The
web app does not re-type these: it reads them through the API (``GET /api/config``).
"""

from __future__ import annotations

import enum
from datetime import timedelta


class UserRole(enum.StrEnum):
    """``profiles.user_role`` (SPEC §6)."""

    client = "client"
    graphic = "graphic"
    admin = "admin"


class PhotoStatus(enum.StrEnum):
    """``photos.status`` (SPEC §4 Photo status)."""

    uploaded = "uploaded"
    processing = "processing"
    processed = "processed"


class JobType(enum.StrEnum):
    """``photo_processing_jobs.job_type`` (SPEC §3)."""

    background_removal = "background_removal"
    background_removal_human = "background_removal_human"
    smart_backgrounds = "smart_backgrounds"


class JobStatus(enum.StrEnum):
    """``photo_processing_jobs.status`` (SPEC §4 Job status) plus ``waiting_for_credits``.

    ``waiting_for_credits`` is the durable wait of DESIGN.md (insufficient credits: the workflow
    waits until the API's ``resume`` update, sent after a purchase or an admin grant, or a
    ``credits_added`` signal); the UI shows it as 'Crediti terminati'.
    """

    pending = "pending"
    waiting_for_credits = "waiting_for_credits"
    processing = "processing"
    completed = "completed"
    failed = "failed"
    pending_human = "pending_human"
    assigned_to_graphic = "assigned_to_graphic"
    in_progress_human = "in_progress_human"
    completed_human = "completed_human"
    rejected_human = "rejected_human"


JOB_STATUS_LABELS: dict[JobStatus, str] = {
    JobStatus.pending: "In attesa",
    JobStatus.waiting_for_credits: "In attesa di crediti",
    JobStatus.processing: "Processamento AI",
    JobStatus.completed: "Completata",
    JobStatus.failed: "Errore",
    JobStatus.pending_human: "In coda per grafici",
    JobStatus.assigned_to_graphic: "Assegnato a grafico",
    JobStatus.in_progress_human: "In lavorazione",
    JobStatus.completed_human: "Processata da grafico",
    JobStatus.rejected_human: "Rifiutata",
}
"""The Italian badge label of each job status (SPEC §4), shown by the web app (``GET /api/config``)."""
NO_JOB_LABEL = "Non processata"
"""The badge of a photo without any job (SPEC §4)."""

JOB_TYPE_LABELS: dict[JobType, str] = {
    JobType.background_removal: "Ritocco AI",
    JobType.smart_backgrounds: "Sfondi intelligenti",
    JobType.background_removal_human: "Ritocco del team grafico",
}
"""The Italian name of each job type: the order's package on /orders, the staff job lists."""

DELIVERED_STATUSES: frozenset[JobStatus] = frozenset({JobStatus.completed, JobStatus.completed_human})
"""A job that delivered a result (by the AI or by a designer)."""
UNDELIVERED_END_STATUSES: frozenset[JobStatus] = frozenset({JobStatus.failed, JobStatus.rejected_human})
"""A job that ended without a result: failed (or cancelled by the seller) or refused by the designers."""
FINAL_STATUSES: frozenset[JobStatus] = DELIVERED_STATUSES | UNDELIVERED_END_STATUSES
"""A job that will not move again (a reprocess or a rework starts a new run or a new job)."""
ACTIVE_STATUSES: frozenset[JobStatus] = frozenset(JobStatus) - FINAL_STATUSES
"""A job still moving: waiting, waiting for credits, processing or in the designers' hands; its
photo may not be deleted and the seller's lists keep polling."""
WORKING_STATUSES: frozenset[JobStatus] = frozenset({JobStatus.processing, JobStatus.in_progress_human})
"""A job being worked on right now, by the AI or by a designer."""
DESIGNER_QUEUE_STATUSES: frozenset[JobStatus] = frozenset(
    {JobStatus.pending_human, JobStatus.assigned_to_graphic}
)
"""A human job waiting for a designer to start it (queued or assigned)."""
WITH_DESIGNER_STATUSES: frozenset[JobStatus] = frozenset(
    {JobStatus.assigned_to_graphic, JobStatus.in_progress_human}
)
"""SPEC §9 Designer capacity: a human job that occupies a designer (assigned or being worked on)."""
CANCELLABLE_STATUSES: frozenset[JobStatus] = DESIGNER_QUEUE_STATUSES
"""DESIGN decisions: the seller may cancel a photo queued for designers until a designer starts it."""
REWORKABLE_STATUSES: frozenset[JobStatus] = DELIVERED_STATUSES
"""The free rework is offered on every delivery, the AI's and a designer's, once per photo (see
``api.services.photo_rules.rework_refusal``)."""
REPROCESSABLE_STATUSES: frozenset[JobStatus] = frozenset({JobStatus.failed})
"""Only a failed job may be reprocessed, and only with a retryable error (:func:`can_reprocess`)."""

STATUS_GROUPS: dict[str, frozenset[JobStatus]] = {
    "active": ACTIVE_STATUSES,
    "final": FINAL_STATUSES,
    "delivered": DELIVERED_STATUSES,
    "ended_undelivered": UNDELIVERED_END_STATUSES,
    "working": WORKING_STATUSES,
    "designer_queue": DESIGNER_QUEUE_STATUSES,
    "with_designer": WITH_DESIGNER_STATUSES,
    "cancellable": CANCELLABLE_STATUSES,
    "reworkable": REWORKABLE_STATUSES,
    "reprocessable": REPROCESSABLE_STATUSES,
}
"""Every named group of job statuses, as ``GET /api/config`` gives them to the web app."""


class JobErrorCode(enum.StrEnum):
    """``photo_processing_jobs.error_code``: why a job ended without a result, for the code (the seller
    reads the Italian ``error_message`` written beside it). ``None`` on a job that has not ended so."""

    bad_image = "bad_image"
    """The retouch refused the original (unreadable, empty, too large, no product found): retrying the
    same bytes cannot succeed."""
    timeout = "timeout"
    """The retouch did not finish within its time limit, in each of its 3 attempts."""
    processing_failed = "processing_failed"
    """The retouch failed with an unexpected (server-side) error in each of its 3 attempts."""
    cancelled_by_client = "cancelled_by_client"
    """The seller withdrew a job queued for designers before a designer started it."""
    rejected = "rejected"
    """The designers refused the job (status ``rejected_human``; the reason is the message)."""
    result_lost = "result_lost"
    """The delivered result was overwritten in storage and cannot be recovered; the credits were given
    back and the seller is asked to upload the photo again (migration 0004)."""
    photo_deleted = "photo_deleted"
    """The photo was deleted under a running job: the workflow's outcome only (no row is left)."""
    waiting_expired = "waiting_expired"
    """The job waited 30 days for credits that never came (nothing charged; the seller was e-mailed):
    it may be reprocessed once the balance allows."""


REPROCESSABLE_ERROR_CODES: frozenset[JobErrorCode] = frozenset(
    {JobErrorCode.timeout, JobErrorCode.processing_failed, JobErrorCode.waiting_expired}
)
"""SPEC §4 Reprocess: the errors a failed job may be run again after (a fault of ours that a new
attempt can get past). Read by the API's ``can_reprocess`` and by the workflow's ``reprocess`` update."""

RETRYABLE_ERROR_MARKERS: tuple[str, ...] = (
    "insufficient credits",
    "processing timeout",
    "temporary service unavailable",
    "server error",
    "network error",
    "quota exceeded",
)
"""SPEC §4 Reprocess: an error whose message contains one of these, case-insensitively, is retryable.
Only failures recorded without a code are classified by their message
(:func:`error_code_from_message`); the messages written today still carry the marker of their code."""


def error_code_from_message(message: str | None) -> JobErrorCode | None:
    """The code of a failure recorded without one (a workflow history or a row written before codes
    existed), read from its message with :data:`RETRYABLE_ERROR_MARKERS`: 'processing timeout' gives
    :attr:`JobErrorCode.timeout`, any other marker :attr:`JobErrorCode.processing_failed`; no marker
    gives ``None`` (a cause that is not retryable and cannot be told from the text)."""
    text = (message or "").lower()
    if "processing timeout" in text:
        return JobErrorCode.timeout
    if any(marker in text for marker in RETRYABLE_ERROR_MARKERS):
        return JobErrorCode.processing_failed
    return None


def can_reprocess(status: str | None, error_code: str | None, error_message: str | None) -> bool:
    """Whether a job in ``status`` that ended with ``error_code`` may be reprocessed (SPEC §4): it
    failed (:data:`REPROCESSABLE_STATUSES`) with a code in :data:`REPROCESSABLE_ERROR_CODES`. A failure
    without a code (``error_code`` ``None``) is classified by ``error_message``
    (:func:`error_code_from_message`); the message is never read when the code is known."""
    if status not in REPROCESSABLE_STATUSES:
        return False
    code = error_code_from_message(error_message) if error_code is None else error_code
    return code in REPROCESSABLE_ERROR_CODES


class StatusFilter(enum.StrEnum):
    """The seller's /photos filter groups (SPEC §4) of a photo's newest job; ``pending`` takes every
    status not in another group, and a photo without jobs."""

    completed = "completed"
    processing = "processing"
    failed = "failed"
    pending = "pending"


def status_filter(status: str | None) -> StatusFilter:
    """The /photos filter group of a newest-job status (``None``: the photo has no job)."""
    if status in DELIVERED_STATUSES:
        return StatusFilter.completed
    if status in WORKING_STATUSES:
        return StatusFilter.processing
    if status in UNDELIVERED_END_STATUSES:
        return StatusFilter.failed
    return StatusFilter.pending


class LedgerKind(enum.StrEnum):
    """Kinds of credit-ledger entries. Signs of ``amount``: grant +, reserve −, charge 0,
    release +, expire −; so the balance is always the sum of ``amount``."""

    grant = "grant"
    reserve = "reserve"
    charge = "charge"
    release = "release"
    expire = "expire"


AI_COST = 1
"""Credits per AI-retouched photo (SPEC §1 terms, §9)."""
SMART_BACKGROUND_COST = 2
"""Credits per smart-background photo (SPEC §9)."""
HUMAN_COST = 3
"""Credits per photo retouched by our designers (SPEC §1 terms, §9)."""

AI_JOB_TYPES: frozenset[JobType] = frozenset({JobType.background_removal, JobType.smart_backgrounds})
"""The job types the retouch pipeline (not a designer) delivers."""

JOB_COSTS: dict[JobType, int] = {
    JobType.background_removal: AI_COST,
    JobType.smart_backgrounds: SMART_BACKGROUND_COST,
    JobType.background_removal_human: HUMAN_COST,
}
"""Credits per job type (SPEC §9): AI 1, smart background 2, designers 3."""

FREE_REWORK_DAYS = 7
"""DESIGN decisions: a seller unhappy with a completed result can ask once, within 7 days (the SPEC
§1 refund window), for a free rework by our designers."""
FREE_REWORK_WINDOW = timedelta(days=FREE_REWORK_DAYS)
""":data:`FREE_REWORK_DAYS` as a ``timedelta``."""

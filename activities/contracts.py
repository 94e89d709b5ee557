"""Names and dataclasses shared by workflows, activities, the worker and the API.

One input dataclass per workflow, activity, signal and update (Temporal samples habit), so fields can
be added later without breaking running workflows. Nothing here imports I/O libraries: this module is
loaded inside the workflow sandbox.

It lives beside the activities, below the workflows, so imports point one way (workflows and the API
import it; activities never import ``workflows``). Temporal's JSON payloads carry field names, not
class paths: renaming a class or field here breaks the replay of recorded histories, moving the
module does not.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from temporalio.common import SearchAttributeKey

from retouch.presets import DEFAULT_PRESET

TASK_QUEUE_JOBS = "photo-jobs"
"""Orchestration and light database activities."""
TASK_QUEUE_RETOUCH = "retouch"
"""CPU-heavy image work; scale by adding workers on their own machines."""

BAD_IMAGE_ERROR = "BadImageError"
INSUFFICIENT_CREDITS_ERROR = "InsufficientCreditsError"
ASSIGNMENT_REFUSED_ERROR = "AssignmentRefusedError"
ACTION_REFUSED_ERROR = "ActionRefusedError"
JOB_GONE_ERROR = "JobGoneError"
"""A job activity found its ``photo_processing_jobs`` row (or its photo's, or its owner's) gone: the
photo was deleted. Raised non-retryable; :class:`~workflows.photo_job.PhotoJobWorkflow` then ends."""

SIGNAL_CREDITS_ADDED = "credits_added"
UPDATE_RESUME = "resume"
"""Update of ``PhotoJobWorkflow``: retry a waiting job's reservation now (``activities.resume``)."""

SA_USER_EMAIL = SearchAttributeKey.for_keyword("UserEmail")
"""Search attribute: the job owner's e-mail (Temporal UI filter ``UserEmail = "…"``)."""
SA_JOB_TYPE = SearchAttributeKey.for_keyword("JobType")
"""Search attribute: ``background_removal``, ``smart_backgrounds`` or ``background_removal_human``."""
SA_JOB_STATUS = SearchAttributeKey.for_keyword("JobStatus")
"""Search attribute: the job status (``photo_processing_jobs.status``), upserted as it changes."""
SA_PRESET = SearchAttributeKey.for_keyword("Preset")
"""Search attribute: the output preset (``amazon``, ``zalando``, ``etsy``, ``shopify``, ``original``)."""
SA_PHOTO_NAME = SearchAttributeKey.for_keyword("PhotoName")
"""Search attribute: the photo's original file name as uploaded."""
JOB_SEARCH_ATTRIBUTES: tuple[SearchAttributeKey[str], ...] = (
    SA_USER_EMAIL,
    SA_JOB_TYPE,
    SA_JOB_STATUS,
    SA_PRESET,
    SA_PHOTO_NAME,
)
"""Every custom search attribute of ``PhotoJobWorkflow``: registered by ``make dev`` (dev server
``--search-attribute``), the tests' dev server and the production set-up job (docker-compose.yml)."""
PATCH_SEARCH_ATTRIBUTES = "search-attributes-status"
"""``workflow.patched()`` id guarding the status upserts (histories recorded before it still replay)."""

HUMAN_DEADLINE_HOURS = 72
"""Designer deadline on assignment (SPEC §9 Time and display)."""
RETENTION_DAYS = 30
"""Photos are deleted from servers within 30 days of delivery (SPEC §1 terms, §9)."""
WAITING_FOR_CREDITS_DAYS = 30
"""A job waits for credits at most this long; then it ends (not charged, the seller is e-mailed) and
the photo stays as the seller left it until the retention rules delete its files."""
WAITING_EXPIRED_MESSAGE = (
    "Crediti non arrivati entro 30 giorni: la foto non è stata elaborata e nessun credito è stato "
    "addebitato. Acquista crediti e rielaborala."
)
"""``error_message`` of a job whose wait for credits ended (code ``waiting_expired``, reprocessable)."""
CREDIT_VALIDITY_DAYS = 365
"""Credits are valid 365 days from purchase (SPEC §1 terms, §9)."""


def workflow_id_for_job(job_id: str) -> str:
    """``photo-job-{job_id}`` (DESIGN.md, Temporal design)."""
    return f"photo-job-{job_id}"


@dataclass
class PhotoJobInput:
    """Input of ``PhotoJobWorkflow``: one ``photo_processing_jobs`` row.

    ``cost`` is in credits (1 AI, 2 smart background, 3 human); ``preset`` names a retouch preset.
    """

    job_id: str
    photo_id: str
    user_id: str
    job_type: str
    cost: int
    preset: str = DEFAULT_PRESET
    background_category: str | None = None
    shadow: bool = True
    brand: str | None = None
    category: str | None = None
    run: int = 1
    retouch_task_queue: str = TASK_QUEUE_RETOUCH
    cutout: bool = False
    """Also store the transparent cutout (PNG with alpha, input size) beside the result: jobs started
    through the public API, whose clients ask for it (``?format=png``, ``/v1.0/removebg``)."""


@dataclass
class CreditsInput:
    """Input of the credit activities: ``amount`` credits for reservation ``reservation_id``."""

    user_id: str
    job_id: str
    reservation_id: str
    amount: int


@dataclass
class JobStatusInput:
    """Set a job's ``status`` (and optionally its progress and error message)."""

    job_id: str
    status: str
    progress_percentage: int | None = None
    error_message: str | None = None


@dataclass
class RetouchInput:
    """Input of ``retouch_photo``: the job to retouch and the pipeline options."""

    job_id: str
    photo_id: str
    user_id: str
    preset: str = DEFAULT_PRESET
    background_category: str | None = None
    shadow: bool = True
    brand: str | None = None
    category: str | None = None
    cutout: bool = False
    """Also store the transparent cutout: :func:`fotopronta.storage.result_key` with ``png``."""


@dataclass
class RetouchOutput:
    """Where ``retouch_photo`` stored the result (bucket ``processed-photos``) and what it found."""

    jpeg_key: str
    webp_key: str
    width: int
    height: int
    details: dict[str, Any] = field(default_factory=dict)


@dataclass
class CompleteJobInput:
    """Mark a job completed and its photo processed, and notify the owner."""

    job_id: str
    result: RetouchOutput


@dataclass
class FailJobInput:
    """Mark a job failed with ``error_message`` (Italian, for the seller) and ``error_code`` (a
    :class:`~fotopronta.domain.JobErrorCode` value), and notify the owner. ``error_code`` is ``None``
    only in the inputs of workflow histories recorded before codes existed."""

    job_id: str
    error_message: str
    error_code: str | None = None


@dataclass
class ResumeInput:
    """Update ``resume``: retry a waiting job's reservation now (no fields yet)."""


@dataclass
class ResumeWaitingInput:
    """Input of the ``resume_waiting_jobs`` activity: the seller whose released credits may let
    their jobs waiting for credits go on."""

    user_id: str


@dataclass
class CreditsAddedSignal:
    """Signal ``credits_added``: the user's balance rose (purchase, admin grant)."""

    balance: int = 0


@dataclass
class JobOutcome:
    """What ``PhotoJobWorkflow`` returns: the final job status and, on failure or rejection, the
    message and its :class:`~fotopronta.domain.JobErrorCode` value (``None`` in the results of
    histories recorded before codes existed)."""

    status: str
    error_message: str | None = None
    error_code: str | None = None


@dataclass
class AssignInput:
    """Update ``assign``: give a ``pending_human`` job to ``designer_id``.

    ``actor_id`` is who asks (an admin, or the designer for "assign to me"); the API checked roles.
    """

    designer_id: str
    actor_id: str
    by_admin: bool = False


@dataclass
class AssignJobActivityInput:
    """Input of the ``assign_job`` activity: ``deadline`` is ISO 8601 UTC."""

    job_id: str
    designer_id: str
    deadline: str


@dataclass
class StartInput:
    """Update ``start``: the assigned designer starts working."""

    actor_id: str


@dataclass
class CompleteHumanInput:
    """Update ``complete``: the designer's result, already stored at ``processed-photos/{result_key}``."""

    actor_id: str
    result_key: str
    notes: str | None = None


@dataclass
class RejectInput:
    """Update ``reject``: the designer rejects the job; ``notes`` is the reason shown to the client."""

    actor_id: str
    notes: str | None = None


@dataclass
class CancelInput:
    """Update ``cancel``: the seller withdraws a job queued for designers before a designer starts it
    (DESIGN decisions); ``actor_id`` is the seller (the API checked ownership)."""

    actor_id: str


CANCELLED_BY_SELLER_MESSAGE = "Lavoro annullato dal cliente: i crediti riservati sono stati restituiti."
"""``error_message`` of a human job the seller cancelled (code ``cancelled_by_client``, not retryable)."""

PHOTO_BUSY_MESSAGE = "La foto è in lavorazione: potrai eliminarla al termine."
"""Refusal of a cancellation (and deletion) once a designer has started the job."""


@dataclass
class HumanJobActivityInput:
    """Input of the human-job state activities (start, complete, reject, escalate)."""

    job_id: str
    result_key: str | None = None
    notes: str | None = None


@dataclass
class ReprocessInput:
    """Update ``reprocess``: run a failed job again (new reservation ``{job_id}:{run}``)."""

    actor_id: str


@dataclass
class RetentionInput:
    """Input of ``delete_photo_files``: the job whose photo's files are deleted."""

    job_id: str


@dataclass
class ExpireCreditsInput:
    """Input of ``expire_credits``: book expiry of every grant whose ``expires_at`` ≤ ``as_of`` (ISO)."""

    as_of: str


@dataclass
class ExpireCreditsOutput:
    """What ``expire_credits`` did and when the next grant expires (ISO, or ``None``)."""

    expired_grants: int
    expired_credits: int
    next_expiry: str | None


WEBHOOK_RETRY_SCHEDULE_S: tuple[int, ...] = (0, 5, 300, 1800, 7200, 18000, 36000, 50400, 72000, 86400)
"""Seconds to wait before each attempt of a webhook delivery (Standard Webhooks' example schedule:
immediately, 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 14 h, 20 h, 24 h; about three days in all). A
``Retry-After`` longer than the next wait replaces it (capped at :data:`WEBHOOK_MAX_RETRY_AFTER_S`)."""
WEBHOOK_MAX_RETRY_AFTER_S = 86400
"""The longest ``Retry-After`` honoured (a day, the schedule's longest wait)."""
SIGNAL_WEBHOOK_RETRY_NOW = "retry_now"
"""Signal of ``WebhookDeliveryWorkflow``: the seller pressed 'Reinvia': attempt now, without waiting."""


def workflow_id_for_delivery(delivery_id: str) -> str:
    """The id of the ``WebhookDeliveryWorkflow`` of a delivery (one per delivery, started once)."""
    return f"webhook-delivery-{delivery_id}"


@dataclass
class WebhookDeliveryInput:
    """Input of ``WebhookDeliveryWorkflow``: the delivery (``webhook_deliveries.id``); ``manual``: one
    attempt the seller asked for ('Reinvia' on a delivery whose schedule has ended), no retries."""

    delivery_id: str
    manual: bool = False


@dataclass
class DeliverWebhookInput:
    """Input of the ``deliver_webhook`` activity: the delivery and the attempt's number (1-based);
    ``next_wait_s``: the schedule's wait before the next attempt, ``None`` on the last one."""

    delivery_id: str
    attempt: int
    next_wait_s: int | None = None
    manual: bool = False


@dataclass
class DeliverWebhookOutput:
    """What one attempt ended in: ``outcome`` ``succeeded`` (a 2xx), ``retry`` (try again in
    ``retry_after_s``: the schedule's wait, or a longer ``Retry-After``; ``None`` when the schedule has
    run out) or ``stop`` (refused by a 4xx, the
    endpoint disabled or deleted: no more attempts)."""

    outcome: str
    status_code: int | None = None
    retry_after_s: int | None = None

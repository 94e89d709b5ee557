"""Names and dataclasses shared by workflows, activities, the worker and the API.

One input dataclass per workflow, activity, signal and update (Temporal samples habit), so fields can
be added later without breaking running workflows. Nothing here imports I/O libraries: this module is
loaded inside the workflow sandbox.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

TASK_QUEUE_JOBS = "photo-jobs"
"""Orchestration and light database activities."""
TASK_QUEUE_RETOUCH = "retouch"
"""CPU-heavy image work; scale by adding workers on their own machines."""

BAD_IMAGE_ERROR = "BadImageError"
INSUFFICIENT_CREDITS_ERROR = "InsufficientCreditsError"

SIGNAL_CREDITS_ADDED = "credits_added"


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
    preset: str = "original"
    background_category: str | None = None
    shadow: bool = True
    brand: str | None = None
    category: str | None = None
    run: int = 1


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
    preset: str = "original"
    background_category: str | None = None
    shadow: bool = True
    brand: str | None = None
    category: str | None = None


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
    """Mark a job failed with ``error_message`` and notify the owner."""

    job_id: str
    error_message: str


@dataclass
class CreditsAddedSignal:
    """Signal ``credits_added``: the user's balance rose (purchase, admin grant)."""

    balance: int = 0


@dataclass
class JobOutcome:
    """What ``PhotoJobWorkflow`` returns: the final job status and, on failure, the message."""

    status: str
    error_message: str | None = None

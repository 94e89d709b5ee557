"""The product's shared definitions, once: roles, photo and job states, job types, ledger kinds,
credit costs and the free-rework window (SPEC §3, §4, §9; DESIGN.md decisions).

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

"""Pydantic request and response schemas (kept apart from the tables)."""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from api.services.photo_rules import reprocess_refusal, rework_refusal, shown_job
from api.text_rules import PersonName, SingleLine
from fotopronta.domain import FREE_REWORK_DAYS, JobStatus, JobType, PhotoStatus
from fotopronta.models import Photo


class LoginIn(BaseModel):
    """``POST /api/auth/login`` body (the e-mail one line without control characters)."""

    email: SingleLine = Field(max_length=320)
    password: str = Field(max_length=200)


class RefreshIn(BaseModel):
    """``POST /api/auth/refresh`` and ``/logout`` body."""

    refresh_token: SingleLine = Field(max_length=200)


class ProfilePublic(BaseModel):
    """``GET /api/me``: SPEC §3 profile fields."""

    model_config = ConfigDict(from_attributes=True)

    id: uuid.UUID
    email: str
    first_name: str | None
    last_name: str | None
    user_role: str
    credits_remaining: int
    credits_expiry_date: datetime | None
    is_active: bool
    max_concurrent_jobs: int
    specializations: list[str] | None
    default_brand: str | None = None
    default_category: str | None = None
    created_at: datetime
    updated_at: datetime


class ProfileUpdate(BaseModel):
    """``PATCH /api/me``: first and last name (:data:`api.text_rules.PersonName`: one line, at most 60
    characters, no links); the default brand and category that prefill the upload form (blank clears
    them; no control characters)."""

    first_name: PersonName | None = Field(default=None, max_length=200)
    last_name: PersonName | None = Field(default=None, max_length=200)
    default_brand: SingleLine | None = Field(default=None, max_length=100)
    default_category: SingleLine | None = Field(default=None, max_length=100)

    @field_validator("default_brand", "default_category")
    @classmethod
    def _blank_is_none(cls, value: str | None) -> str | None:
        return (value or "").strip() or None


class SessionOut(BaseModel):
    """A signed-in session (login, verify, refresh)."""

    access_token: str
    refresh_token: str
    token_type: str = "bearer"
    expires_in: int
    expires_at: int
    user: ProfilePublic
    password_required: bool = False
    """True after a sign-up link opened in another browser: the pending password was discarded and
    this is a one-time session for ``POST /api/auth/password/reset`` (the owner chooses a password)."""


class JobPublic(BaseModel):
    """A ``photo_processing_jobs`` row as the client sees it."""

    model_config = ConfigDict(from_attributes=True)

    id: uuid.UUID
    photo_id: uuid.UUID
    job_type: JobType
    status: JobStatus
    background_category: dict[str, Any] | None
    error_message: str | None
    started_at: datetime | None
    completed_at: datetime | None
    progress_percentage: int
    processing_details: dict[str, Any] | None
    priority: int
    deadline: datetime | None
    assigned_to: uuid.UUID | None
    client_notes: str | None
    graphic_notes: str | None
    created_at: datetime


class PhotoPublic(BaseModel):
    """A ``photos`` row with its jobs nested (SPEC §3)."""

    model_config = ConfigDict(from_attributes=True)

    id: uuid.UUID
    user_id: uuid.UUID
    original_filename: str
    file_size: int
    file_format: str
    upload_path: str
    processed_path: str | None
    status: PhotoStatus
    width: int | None
    height: int | None
    created_at: datetime
    files_deleted_at: datetime | None
    order_id: uuid.UUID | None = None
    jobs: list[JobPublic]
    can_rework: bool = False
    """``POST /api/photos/{id}/rework`` would be accepted now (:func:`api.services.photo_rules.rework_refusal`)."""
    can_reprocess: bool = False
    """``POST /api/photos/{id}/reprocess`` would be accepted now, credits aside (the caller's balance,
    in ``GET /api/me``; :func:`api.services.photo_rules.reprocess_refusal`)."""
    shown_job_id: uuid.UUID | None = None
    """The job whose status the photo's badge shows (:func:`api.services.photo_rules.shown_job`): the
    newest, or, after a free rework that ended without a result, the delivery it was asked on (the
    rework is then a note on the card). ``null`` without jobs."""

    @model_validator(mode="before")
    @classmethod
    def _decide(cls, data: Any) -> Any:
        """From a ``Photo`` row (jobs loaded): its fields plus ``can_rework`` and ``can_reprocess``,
        decided by the same functions the POST routes raise from."""
        if not isinstance(data, Photo):
            return data
        fields = {name: getattr(data, name) for name in cls.model_fields if hasattr(data, name)}
        shown = shown_job(data)
        return {
            **fields,
            "shown_job_id": shown.id if shown is not None else None,
            "can_rework": rework_refusal(data) is None,
            "can_reprocess": reprocess_refusal(data) is None,
        }


class PhotoCounts(BaseModel):
    """Counters over all the caller's photos: by the newest job's filter group (``completed``,
    ``processing``, ``failed``, ``pending``: the /photos summary and filter), by the newest job's own
    status (``rejected``: rejected by the designers; ``designer_queue``: waiting for a designer, queued
    or assigned but not started) and by the photo's own status (``processed``; ``queued`` = uploaded or
    processing with a job still to finish, the dashboard's 'In Coda': a failed or rejected job is not
    queued)."""

    total: int
    completed: int
    processing: int
    failed: int
    pending: int
    processed: int
    queued: int
    rejected: int
    designer_queue: int


class OrderOutcome(BaseModel):
    """What became of an order's photos and credits (``/orders``): photos by their newest job's
    outcome (``delivered_photos`` equals ``processed_photos``; ``downloadable_photos``: delivered and
    still on storage, what the ZIP holds), and credits from the ledger entries of the order's jobs:
    ``credits_reserved`` (booked), ``credits_refunded`` (given back: rejected, failed or cancelled
    jobs) and ``credits_spent`` = reserved − refunded (still held by unfinished jobs included)."""

    rejected_photos: int
    failed_photos: int
    downloadable_photos: int
    credits_reserved: int
    credits_refunded: int
    credits_spent: int


class PhotoPage(BaseModel):
    """``GET /api/photos``: one page of photos, the cursor of the next page (null on the last) and the
    counters."""

    items: list[PhotoPublic]
    next_cursor: str | None
    counts: PhotoCounts


class BatchLimits(BaseModel):
    """One limit class of an upload batch (``GET /api/config``)."""

    max_files: int
    """Most photos in one batch."""
    max_bytes: int
    """Most bytes of all the batch's files together."""


class ChoiceOption(BaseModel):
    """A value the seller may choose and its Italian label (presets, background categories)."""

    value: str
    label: str


class AppConfig(BaseModel):
    """``GET /api/config`` (public): the server's product constants the web app shows, so it never
    re-types them. Read from :mod:`fotopronta.domain` and the settings."""

    job_costs: dict[str, int]
    """Credits per photo by job type (keys: the ``JobType`` values; SPEC §9)."""
    free_rework_days: int
    """Days after an AI delivery in which a free rework may be asked (once per photo)."""
    free_credits: int
    """Credits granted at sign-up (``settings.signup_free_credits``, SPEC §1)."""
    max_upload_bytes: int
    """Largest accepted file, in bytes (``settings.max_file_bytes``)."""
    max_upload_megapixels: int
    """Largest accepted image, in megapixels (width × height / 1,000,000)."""
    accepted_formats: list[str]
    """The accepted image formats, as shown to sellers (``api.uploads.ACCEPTED_FORMATS``)."""
    accepted_extensions: list[str]
    """Their file name extensions with the dot, for the file picker (``api.uploads.ACCEPTED_EXTENSIONS``)."""
    batch_limits: dict[str, BatchLimits]
    """The upload batch limits by limit class (keys ``standard`` and ``admin``; admins get ``admin``),
    from the settings ``max_batch_files_*`` / ``max_batch_bytes_*``."""
    job_status_labels: dict[str, str]
    """The Italian badge label of every job status (keys: the ``JobStatus`` values; SPEC §4)."""
    no_job_label: str
    """The badge of a photo without any job ('Non processata')."""
    job_type_labels: dict[str, str]
    """The Italian name of every job type (keys: the ``JobType`` values)."""
    status_groups: dict[str, list[str]]
    """Named groups of job statuses (``active``, ``final``, ``delivered``, ``ended_undelivered``,
    ``working``, ``designer_queue``, ``with_designer``, ``cancellable``, ``reworkable``,
    ``reprocessable``; :data:`fotopronta.domain.STATUS_GROUPS`)."""
    status_filters: dict[str, str]
    """The /photos filter group (``completed``, ``processing``, ``failed``, ``pending``) of every job
    status; a photo without jobs is ``pending``."""
    presets: list[ChoiceOption]
    """The output presets the seller may choose, the default first (``retouch.presets.PRESETS``)."""
    default_preset: str
    """The preset of an upload that names none."""
    background_categories: list[ChoiceOption]
    """The smart background categories (``retouch.presets.SMART_BACKGROUND_CATEGORIES``)."""
    photos_page_size: int
    """Photos per page of ``GET /api/photos`` when ``limit`` is not given."""
    photos_page_max: int
    """The largest ``limit`` ``GET /api/photos`` accepts."""


class DesignerJob(BaseModel):
    """A human job with the photo facts a designer needs."""

    model_config = ConfigDict(from_attributes=True)

    id: uuid.UUID
    photo_id: uuid.UUID
    user_id: uuid.UUID
    job_type: JobType
    status: JobStatus
    priority: int
    deadline: datetime | None
    overdue: bool
    assigned_to: uuid.UUID | None
    client_notes: str | None
    graphic_notes: str | None
    started_at: datetime | None
    completed_at: datetime | None
    created_at: datetime
    original_filename: str
    file_size: int
    file_format: str
    width: int | None
    height: int | None


class AdminJob(BaseModel):
    """One job as the admin's job list shows it: the job, its photo's name, owner and designer."""

    id: uuid.UUID
    photo_id: uuid.UUID
    user_id: uuid.UUID
    user_email: str
    original_filename: str
    job_type: JobType
    status: JobStatus
    error_message: str | None
    priority: int
    overdue: bool
    deadline: datetime | None
    assigned_to: uuid.UUID | None
    assigned_to_email: str | None
    created_at: datetime
    completed_at: datetime | None


class AdminJobPage(BaseModel):
    """One page of :class:`AdminJob` rows and the number of rows matching the filters."""

    items: list[AdminJob]
    total: int
    page: int
    size: int


class AdminOverview(BaseModel):
    """Counters of the admin Overview tab.

    - ``users_total``: every profile; ``users_without_credits``: 0 credits and registered in the last
      30 days (SPEC §9).
    - ``photos_total``: every photo row.
    - ``jobs_by_status``: number of jobs per status, every status of ``JobStatus`` present (0 if none).
    - ``pending_human_unassigned``: human jobs in the pool (``pending_human``, no designer).
    - ``credits_sold`` / ``revenue_cents``: credits and amount paid (cents of ``currency``) of
      completed purchases with a positive amount; ``credits_granted``: credits of completed
      zero-amount purchases (admin grants, SPEC §9), which are not sales.
    - ``jobs_needing_review``: AI jobs delivered in the last ``needs_review_window_days`` days whose
      result the retouch pipeline flagged (``processing_details.needs_review``), reworked or not.
    """

    users_total: int
    users_without_credits: int
    photos_total: int
    jobs_by_status: dict[str, int]
    pending_human_unassigned: int
    credits_sold: int
    credits_granted: int
    revenue_cents: int
    jobs_needing_review: int = 0
    needs_review_window_days: int = FREE_REWORK_DAYS
    currency: str = "EUR"


class DesignerLoad(BaseModel):
    """One designer (profile with role graphic) and their load (SPEC §9 Designer capacity).

    ``active_jobs``: jobs assigned to them in ``assigned_to_graphic`` or ``in_progress_human``;
    ``completed_jobs``: their ``completed_human`` jobs; ``is_full``: ``active_jobs >=
    max_concurrent_jobs``. Inactive designers are listed too (``is_active`` false; they act as clients,
    SPEC §6, and cannot take jobs).
    """

    id: uuid.UUID
    first_name: str | None
    last_name: str | None
    email: str
    is_active: bool
    max_concurrent_jobs: int
    active_jobs: int
    completed_jobs: int
    is_full: bool
    specializations: list[str] | None

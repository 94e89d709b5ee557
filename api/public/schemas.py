"""Request and response schemas of ``/v1`` (the public API's OpenAPI document is generated from these)."""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, Field

from api.text_rules import FreeText, SingleLine

Service = Literal["ai", "designer"]
OutputFormat = Literal["jpg", "webp", "png"]
PublicStatus = Literal[
    "queued",
    "waiting_for_credits",
    "processing",
    "designer_queue",
    "with_designer",
    "succeeded",
    "failed",
    "rejected",
    "cancelled",
]
METADATA_MAX_KEYS = 20
METADATA_MAX_VALUE = 500


def check_metadata(value: dict[str, str] | None) -> dict[str, str] | None:
    """At most 20 keys of 1–40 characters, string values of at most 500 characters, no NUL.

    Raises:
        ValueError: (pydantic turns it into a 422) otherwise.
    """
    if value is None:
        return None
    if len(value) > METADATA_MAX_KEYS:
        raise ValueError(f"al massimo {METADATA_MAX_KEYS} chiavi in metadata")
    for key, item in value.items():
        if not 1 <= len(key) <= 40 or "\x00" in key:
            raise ValueError("le chiavi di metadata hanno da 1 a 40 caratteri")
        if not isinstance(item, str) or len(item) > METADATA_MAX_VALUE or "\x00" in item:
            raise ValueError(f"i valori di metadata sono testi di al massimo {METADATA_MAX_VALUE} caratteri")
    return value


Metadata = Annotated[dict[str, str] | None, AfterValidator(check_metadata)]
"""The integrator's key/value pairs of a job (:func:`check_metadata`)."""


class JobOptionsIn(BaseModel):
    """The options of a job (``POST /v1/jobs`` JSON body, or its multipart form fields)."""

    service: Service = Field(default="ai", description="`ai` (1 credito) o `designer` (3 crediti, 24–48 h).")
    preset: str = Field(
        default="original",
        max_length=40,
        description="Formato di uscita: `original`, `amazon`, `zalando`, `etsy`, `shopify`.",
    )
    background: str = Field(
        default="white",
        max_length=40,
        description="`white`, o una categoria di sfondo intelligente (`minimal_studio`, `home_lifestyle`, "
        "`outdoor_natural`, `professional_office`, `seasonal_themed`; 2 crediti, solo con `service=ai`).",
    )
    output_format: OutputFormat = Field(default="jpg", description="Formato predefinito del risultato.")
    notes: FreeText | None = Field(default=None, max_length=2000, description="Istruzioni per il grafico.")


class JobCreateJson(JobOptionsIn):
    """``POST /v1/jobs`` as JSON: the photo as ``image_url`` or ``image_file_b64`` (exactly one)."""

    image_url: str | None = Field(
        default=None, max_length=2048, description="URL pubblico http(s) della foto."
    )
    image_file_b64: str | None = Field(default=None, description="La foto codificata in base64.")
    external_id: SingleLine | None = Field(default=None, max_length=255)
    metadata: Metadata = None


class BatchItemIn(BaseModel):
    """One photo of ``POST /v1/batches`` (JSON): ``image_url`` or ``image_file_b64``."""

    image_url: str | None = Field(default=None, max_length=2048)
    image_file_b64: str | None = None
    external_id: SingleLine | None = Field(default=None, max_length=255)
    metadata: Metadata = None


class BatchCreateJson(JobOptionsIn):
    """``POST /v1/batches`` as JSON: 1–10 photos (25 for admins) sharing the options."""

    jobs: list[BatchItemIn] = Field(min_length=1, max_length=25)


class ReworkIn(BaseModel):
    """``POST /v1/jobs/{id}/rework``: what the designer should change."""

    reason: FreeText = Field(min_length=1, max_length=2000)


class JobError(BaseModel):
    """Why a job ended without a result: a stable ``code`` and the Italian ``message``."""

    code: str
    message: str


class JobLinks(BaseModel):
    """Where to read the job and fetch its result (paths on this server)."""

    self: str
    result: str | None


class JobOut(BaseModel):
    """A job as ``/v1`` shows it (the same row the web app's /photos shows)."""

    id: uuid.UUID
    object: Literal["job"] = "job"
    status: PublicStatus
    status_detail: str = Field(description="Lo stato interno del lavoro (più fine di `status`).")
    service: Service
    preset: str
    background: str
    output_format: OutputFormat
    external_id: str | None
    metadata: dict[str, str] | None
    batch_id: uuid.UUID | None
    photo_id: uuid.UUID
    original_filename: str
    rework_of: uuid.UUID | None = Field(default=None, description="Il lavoro AI di cui è la revisione.")
    credits_charged: int = Field(description="Crediti trattenuti per questo lavoro ora (0 se restituiti).")
    needs_review: bool
    error: JobError | None
    livemode: bool
    created_at: datetime
    started_at: datetime | None
    completed_at: datetime | None
    links: JobLinks


class JobList(BaseModel):
    """A page of jobs, newest first; ``next_cursor`` fetches the next (``null`` on the last)."""

    object: Literal["list"] = "list"
    data: list[JobOut]
    has_more: bool
    next_cursor: str | None


class RejectedItem(BaseModel):
    """A photo of a batch that was not accepted, with the reason (the problem it would have answered)."""

    index: int
    code: str
    detail: str


class BatchOut(BaseModel):
    """A batch (the web app's order): its jobs and counts by status."""

    id: uuid.UUID
    object: Literal["batch"] = "batch"
    status: Literal["processing", "completed"]
    total_jobs: int
    counts: dict[str, int]
    jobs: list[JobOut]
    rejected: list[RejectedItem] = Field(default_factory=list)
    created_at: datetime


class KeyInfo(BaseModel):
    """The key used for the request."""

    id: uuid.UUID
    name: str
    prefix: str
    mode: Literal["live", "test"]
    scopes: list[str]
    monthly_credit_cap: int | None
    credits_used_this_month: int


class AccountLimits(BaseModel):
    """The limits that apply to this key and account."""

    rate_limit: str
    max_jobs_in_flight: int
    jobs_in_flight: int
    max_file_bytes: int
    max_megapixels: int
    max_batch_jobs: int


class AccountOut(BaseModel):
    """``GET /v1/account``: credits, the key and the limits."""

    object: Literal["account"] = "account"
    email: str
    credits_remaining: int
    credits_expiry_date: datetime | None
    job_costs: dict[str, int]
    key: KeyInfo
    limits: AccountLimits


class Problem(BaseModel):
    """An RFC 9457 problem (``application/problem+json``)."""

    type: str
    title: str
    status: int
    detail: str
    code: str
    request_id: str
    errors: list[dict[str, Any]] | None = None


WebhookEventType = Literal[
    "job.completed",
    "job.failed",
    "job.needs_review",
    "job.waiting_for_credits",
    "job.assigned_to_designer",
    "job.rework_rejected",
    "batch.completed",
    "credits.low",
]


class WebhookEndpointIn(BaseModel):
    """``POST /v1/webhook-endpoints``: where to send which events."""

    url: str = Field(
        min_length=1, max_length=2048, description="URL pubblico http(s) che riceve gli eventi (POST JSON)."
    )
    events: list[WebhookEventType] = Field(min_length=1, max_length=8, description="Gli eventi da ricevere.")
    description: SingleLine | None = Field(default=None, max_length=200)


class WebhookEndpointOut(BaseModel):
    """A webhook endpoint; ``status`` ``disabled`` with ``disabled_reason`` (``gone``: it answered 410;
    ``failing``: it failed for three days) receives no new event."""

    id: uuid.UUID
    object: Literal["webhook_endpoint"] = "webhook_endpoint"
    url: str
    description: str | None
    events: list[str]
    status: Literal["enabled", "disabled"]
    disabled_reason: str | None
    livemode: bool
    created_at: datetime


class WebhookEndpointCreated(WebhookEndpointOut):
    """The new endpoint with its signing secret (``whsec_…``), shown this once."""

    secret: str = Field(description="Il segreto di firma (Standard Webhooks): mostrato solo ora.")


class WebhookEndpointList(BaseModel):
    """The account's webhook endpoints, newest first."""

    object: Literal["list"] = "list"
    data: list[WebhookEndpointOut]


class WebhookAttemptOut(BaseModel):
    """One HTTP attempt: when, the answer's status (``null``: no answer, see ``error``), how long."""

    number: int
    started_at: datetime
    status_code: int | None
    response_ms: int | None
    error: str | None
    manual: bool


class WebhookDeliveryOut(BaseModel):
    """One event sent to one endpoint (its ``id`` is the ``webhook-id`` header): ``pending`` while
    attempts are left (``next_attempt_at``), then ``succeeded`` or ``failed``."""

    id: uuid.UUID
    object: Literal["webhook_delivery"] = "webhook_delivery"
    endpoint_id: uuid.UUID
    event_id: uuid.UUID
    event_type: str
    job_id: uuid.UUID | None
    status: Literal["pending", "succeeded", "failed"]
    attempt_count: int
    last_status_code: int | None
    last_error: str | None
    next_attempt_at: datetime | None
    created_at: datetime
    completed_at: datetime | None
    attempts: list[WebhookAttemptOut]


class WebhookDeliveryList(BaseModel):
    """A page of an endpoint's deliveries, newest first; ``next_cursor`` fetches the next."""

    object: Literal["list"] = "list"
    data: list[WebhookDeliveryOut]
    has_more: bool
    next_cursor: str | None

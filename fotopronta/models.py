"""SQLAlchemy 2 table models: SPEC §3 entities plus what the server needs.

SPEC §3 tables: ``profiles``, ``photos``, ``photo_processing_jobs``, ``credit_packages``,
``credit_purchases``, ``orders``, ``notifications``. Server tables (DESIGN.md "Data"): ``users``
(credentials), ``refresh_sessions``, ``one_time_codes``, ``credit_ledger`` (append-only, unique
idempotency key) and ``email_outbox``. Schema changes go through Alembic only
(``fotopronta/migrations``).
"""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any

from sqlalchemy import (
    BigInteger,
    Boolean,
    CheckConstraint,
    DateTime,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    String,
    Text,
    func,
    text,
)
from sqlalchemy.dialects.postgresql import JSONB, UUID
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column, relationship

from fotopronta.domain import JobStatus, PhotoStatus, UserRole


class Base(DeclarativeBase):
    """Declarative base of every FotoPronta table."""


RAW_SQL_TABLES = frozenset({"rate_limit_hits"})
"""Tables that migrations create but only plain SQL reads and writes (``rate_limit_hits``:
:mod:`fotopronta.ratelimit`), so they have no model here; :func:`include_object` keeps Alembic's
autogenerate from proposing to drop them."""


def include_object(obj: object, name: str | None, type_: str, reflected: bool, compare_to: object) -> bool:
    """Alembic autogenerate filter (``include_object`` in ``migrations/env.py``): ``False`` for a table of
    :data:`RAW_SQL_TABLES` or an index or constraint on one, ``True`` for everything else."""
    del reflected, compare_to  # part of Alembic's signature, not needed here
    if type_ == "table":
        return name not in RAW_SQL_TABLES
    table = getattr(obj, "table", None)
    return getattr(table, "name", None) not in RAW_SQL_TABLES


def _uuid_pk() -> Mapped[uuid.UUID]:
    return mapped_column(UUID(as_uuid=True), primary_key=True, default=uuid.uuid4)


def _created_at() -> Mapped[datetime]:
    return mapped_column(DateTime(timezone=True), server_default=func.now(), nullable=False)


class User(Base):
    """Login credentials (the auth user); ``profiles.id`` equals ``users.id`` (SPEC §3)."""

    __tablename__ = "users"

    id: Mapped[uuid.UUID] = _uuid_pk()
    email: Mapped[str] = mapped_column(String(320), unique=True, nullable=False)
    password_hash: Mapped[str] = mapped_column(Text, nullable=False)
    email_confirmed_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    created_at: Mapped[datetime] = _created_at()
    # the account lock-out (api.services.auth.login): failures from clients without a device cookie
    failed_logins: Mapped[int] = mapped_column(Integer, nullable=False, default=0, server_default="0")
    last_failed_login_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    login_locked_until: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))

    profile: Mapped[Profile] = relationship(back_populates="user", uselist=False)


class Profile(Base):
    """SPEC §3 ``profiles``. ``credits_remaining`` always equals the sum of the user's ledger."""

    __tablename__ = "profiles"
    __table_args__ = (
        CheckConstraint("credits_remaining >= 0", name="credits_non_negative"),
        CheckConstraint("user_role IN ('client','graphic','admin')", name="user_role_valid"),
    )

    id: Mapped[uuid.UUID] = mapped_column(
        UUID(as_uuid=True), ForeignKey("users.id", ondelete="CASCADE"), primary_key=True
    )
    first_name: Mapped[str | None] = mapped_column(String(200))
    last_name: Mapped[str | None] = mapped_column(String(200))
    email: Mapped[str] = mapped_column(String(320), nullable=False)
    user_role: Mapped[str] = mapped_column(String(20), nullable=False, default=UserRole.client.value)
    credits_remaining: Mapped[int] = mapped_column(Integer, nullable=False, default=0)
    credits_expiry_date: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    is_active: Mapped[bool] = mapped_column(Boolean, nullable=False, default=True)
    max_concurrent_jobs: Mapped[int] = mapped_column(Integer, nullable=False, default=5)
    specializations: Mapped[list[str] | None] = mapped_column(JSONB)
    # the seller's defaults for SEO file names, prefilled in the upload form
    default_brand: Mapped[str | None] = mapped_column(String(100))
    default_category: Mapped[str | None] = mapped_column(String(100))
    created_at: Mapped[datetime] = _created_at()
    updated_at: Mapped[datetime] = mapped_column(
        DateTime(timezone=True), server_default=func.now(), onupdate=func.now(), nullable=False
    )

    user: Mapped[User] = relationship(back_populates="profile")


class RefreshSession(Base):
    """A refresh token (stored as its SHA-256), rotated on use and revocable (logout).

    ``family_id`` is the sign-in session: every token rotated from one login shares it, access tokens
    carry it as ``sid``, and an access token is valid only while its family has a live refresh token
    (logout and password changes revoke the family, so its access tokens stop working at once).
    """

    __tablename__ = "refresh_sessions"

    id: Mapped[uuid.UUID] = _uuid_pk()
    user_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    family_id: Mapped[uuid.UUID] = mapped_column(UUID(as_uuid=True), nullable=False, index=True)
    token_hash: Mapped[str] = mapped_column(String(64), unique=True, nullable=False)
    created_at: Mapped[datetime] = _created_at()
    expires_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), nullable=False)
    revoked_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    replaced_by: Mapped[uuid.UUID | None] = mapped_column(UUID(as_uuid=True))


class OneTimeCode(Base):
    """Single-use, expiring codes and link tokens (sign-up confirmation, password recovery).

    ``purpose`` is ``signup`` or ``recovery``; ``code_hash`` is the SHA-256 of the 6-digit code or
    of the link's ``token_hash``; ``used_at`` makes it single-use.
    """

    __tablename__ = "one_time_codes"

    id: Mapped[uuid.UUID] = _uuid_pk()
    user_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    purpose: Mapped[str] = mapped_column(String(20), nullable=False)
    kind: Mapped[str] = mapped_column(String(10), nullable=False)  # "code" or "link"
    code_hash: Mapped[str] = mapped_column(String(64), nullable=False, index=True)
    attempts: Mapped[int] = mapped_column(Integer, nullable=False, default=0)
    created_at: Mapped[datetime] = _created_at()
    expires_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), nullable=False)
    used_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))


class Photo(Base):
    """SPEC §3 ``photos``: an uploaded original and, once processed, its result paths.

    ``upload_path`` is ``{user_id}/{timestamp}-{random}.{ext}`` in bucket ``user-uploads``;
    ``processed_path`` (JPEG) and ``processed_webp_path`` are in ``processed-photos``.
    ``files_deleted_at`` is set when retention (30 days after delivery) removed the files.
    """

    __tablename__ = "photos"

    id: Mapped[uuid.UUID] = _uuid_pk()
    user_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("profiles.id", ondelete="CASCADE"), index=True)
    original_filename: Mapped[str] = mapped_column(String(500), nullable=False)
    file_size: Mapped[int] = mapped_column(BigInteger, nullable=False)
    file_format: Mapped[str] = mapped_column(String(100), nullable=False)
    upload_path: Mapped[str] = mapped_column(String(500), nullable=False)
    processed_path: Mapped[str | None] = mapped_column(String(500))
    processed_webp_path: Mapped[str | None] = mapped_column(String(500))
    status: Mapped[str] = mapped_column(String(20), nullable=False, default=PhotoStatus.uploaded.value)
    width: Mapped[int | None] = mapped_column(Integer)
    height: Mapped[int | None] = mapped_column(Integer)
    files_deleted_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    order_id: Mapped[uuid.UUID | None] = mapped_column(
        ForeignKey("orders.id", ondelete="SET NULL"), index=True
    )
    created_at: Mapped[datetime] = _created_at()

    jobs: Mapped[list[PhotoProcessingJob]] = relationship(
        back_populates="photo", order_by="PhotoProcessingJob.created_at", cascade="all, delete-orphan"
    )


REWORK_INDEX = "uq_jobs_one_rework_per_photo"
"""Partial unique index: at most one job flagged ``options.rework`` (the free rework) per photo."""


class PhotoProcessingJob(Base):
    """SPEC §3 ``photo_processing_jobs``; one ``PhotoJobWorkflow`` (id ``photo-job-{id}``) each."""

    __tablename__ = "photo_processing_jobs"
    __table_args__ = (
        Index("ix_jobs_status_priority", "status", "priority"),
        Index("ix_jobs_user_external_id", "user_id", "external_id"),
        Index(
            REWORK_INDEX,
            "photo_id",
            unique=True,
            postgresql_where=text("(options ->> 'rework') = 'true'"),
        ),
    )

    id: Mapped[uuid.UUID] = _uuid_pk()
    photo_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("photos.id", ondelete="CASCADE"), index=True)
    user_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("profiles.id", ondelete="CASCADE"), index=True)
    job_type: Mapped[str] = mapped_column(String(40), nullable=False)
    status: Mapped[str] = mapped_column(String(30), nullable=False, default=JobStatus.pending.value)
    background_category: Mapped[dict[str, Any] | None] = mapped_column(JSONB)
    options: Mapped[dict[str, Any] | None] = mapped_column(JSONB)
    error_message: Mapped[str | None] = mapped_column(Text)
    error_code: Mapped[str | None] = mapped_column(String(40))
    """A :class:`~fotopronta.domain.JobErrorCode` value beside ``error_message`` on a job that failed
    or was rejected; what the reprocess rule reads (:func:`fotopronta.domain.can_reprocess`)."""
    started_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    completed_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    progress_percentage: Mapped[int] = mapped_column(Integer, nullable=False, default=0)
    processing_details: Mapped[dict[str, Any] | None] = mapped_column(JSONB)
    priority: Mapped[int] = mapped_column(Integer, nullable=False, default=1)
    deadline: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    overdue: Mapped[bool] = mapped_column(Boolean, nullable=False, default=False)
    assigned_to: Mapped[uuid.UUID | None] = mapped_column(ForeignKey("profiles.id", ondelete="SET NULL"))
    client_notes: Mapped[str | None] = mapped_column(Text)
    graphic_notes: Mapped[str | None] = mapped_column(Text)
    api_key_id: Mapped[uuid.UUID | None] = mapped_column(
        ForeignKey("api_keys.id", ondelete="SET NULL"), index=True
    )
    """The API key that started the job through ``/v1`` (``None``: the web app, or a key deleted since)."""
    external_id: Mapped[str | None] = mapped_column(String(255))
    """The integrator's own reference (a SKU, a PIM id), given to ``POST /v1/jobs``; not unique."""
    client_metadata: Mapped[dict[str, Any] | None] = mapped_column(JSONB)
    """Free key/value pairs an integrator attached with ``POST /v1/jobs`` (answered back as given)."""
    livemode: Mapped[bool] = mapped_column(Boolean, nullable=False, default=True, server_default=text("true"))
    """``False`` for a job started with a ``fp_test_`` key (test mode)."""
    created_at: Mapped[datetime] = _created_at()
    updated_at: Mapped[datetime] = mapped_column(
        DateTime(timezone=True), server_default=func.now(), onupdate=func.now(), nullable=False
    )

    photo: Mapped[Photo] = relationship(back_populates="jobs")


class CreditPackage(Base):
    """SPEC §3 ``credit_packages`` (seeded: Free, Light, Standard, Maxi)."""

    __tablename__ = "credit_packages"

    id: Mapped[uuid.UUID] = _uuid_pk()
    name: Mapped[str] = mapped_column(String(100), unique=True, nullable=False)
    credits: Mapped[int] = mapped_column(Integer, nullable=False)
    price_cents: Mapped[int] = mapped_column(Integer, nullable=False)
    currency: Mapped[str] = mapped_column(String(3), nullable=False, default="EUR")
    is_active: Mapped[bool] = mapped_column(Boolean, nullable=False, default=True)


class CreditPurchase(Base):
    """SPEC §3 ``credit_purchases`` (``stripe_payment_intent_id`` holds the checkout session id)."""

    __tablename__ = "credit_purchases"

    id: Mapped[uuid.UUID] = _uuid_pk()
    user_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("profiles.id", ondelete="CASCADE"), index=True)
    package_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("credit_packages.id"))
    credits_purchased: Mapped[int] = mapped_column(Integer, nullable=False)
    amount_paid_cents: Mapped[int] = mapped_column(Integer, nullable=False)
    currency: Mapped[str] = mapped_column(String(3), nullable=False, default="EUR")
    status: Mapped[str] = mapped_column(String(20), nullable=False, default="pending")
    credits_expiry_date: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    stripe_payment_intent_id: Mapped[str | None] = mapped_column(String(255), unique=True)
    created_at: Mapped[datetime] = _created_at()

    package: Mapped[CreditPackage] = relationship()


class Order(Base):
    """SPEC §3 ``orders``: one upload batch. ``package_type`` is the job type, ``total_amount`` the
    credits reserved for it (batches are paid in credits, not euros); ``processed_photos`` counts
    delivered photos and ``status`` is ``processing`` until every job has finished, then ``completed``."""

    __tablename__ = "orders"

    id: Mapped[uuid.UUID] = _uuid_pk()
    user_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("profiles.id", ondelete="CASCADE"), index=True)
    package_type: Mapped[str] = mapped_column(String(100), nullable=False)
    total_photos: Mapped[int] = mapped_column(Integer, nullable=False, default=0)
    processed_photos: Mapped[int] = mapped_column(Integer, nullable=False, default=0)
    status: Mapped[str] = mapped_column(String(20), nullable=False, default="pending")
    total_amount: Mapped[int] = mapped_column(Integer, nullable=False, default=0)
    created_at: Mapped[datetime] = _created_at()


class Notification(Base):
    """SPEC §3 ``notifications`` (type: success, info, warning, error)."""

    __tablename__ = "notifications"

    id: Mapped[uuid.UUID] = _uuid_pk()
    user_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("profiles.id", ondelete="CASCADE"), index=True)
    title: Mapped[str] = mapped_column(String(200), nullable=False)
    message: Mapped[str] = mapped_column(Text, nullable=False)
    type: Mapped[str] = mapped_column(String(20), nullable=False, default="info")
    read: Mapped[bool] = mapped_column(Boolean, nullable=False, default=False)
    related_job_id: Mapped[uuid.UUID | None] = mapped_column(
        ForeignKey("photo_processing_jobs.id", ondelete="SET NULL")
    )
    created_at: Mapped[datetime] = _created_at()


class CreditLedgerEntry(Base):
    """Append-only credit ledger: every grant, reservation, charge, release and expiry.

    ``amount`` is signed (see :class:`LedgerKind`); ``idempotency_key`` is unique so an activity
    retried by Temporal writes its entry at most once (e.g. ``reserve:{job_id}``).
    """

    __tablename__ = "credit_ledger"
    __table_args__ = (
        CheckConstraint("kind IN ('grant','reserve','charge','release','expire')", name="ledger_kind_valid"),
    )

    id: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=True)
    user_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("profiles.id", ondelete="CASCADE"), index=True)
    kind: Mapped[str] = mapped_column(String(10), nullable=False)
    amount: Mapped[int] = mapped_column(Integer, nullable=False)
    idempotency_key: Mapped[str] = mapped_column(String(200), unique=True, nullable=False)
    job_id: Mapped[uuid.UUID | None] = mapped_column(UUID(as_uuid=True), index=True)
    purchase_id: Mapped[uuid.UUID | None] = mapped_column(UUID(as_uuid=True))
    expires_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    note: Mapped[str | None] = mapped_column(Text)
    created_at: Mapped[datetime] = _created_at()


class EmailOutbox(Base):
    """Every e-mail the mailer sent (or, in development, only stored and logged)."""

    __tablename__ = "email_outbox"

    id: Mapped[uuid.UUID] = _uuid_pk()
    to_address: Mapped[str] = mapped_column(String(320), nullable=False)
    subject: Mapped[str] = mapped_column(String(300), nullable=False)
    text: Mapped[str] = mapped_column(Text, nullable=False)
    links: Mapped[list[str] | None] = mapped_column(JSONB)
    sent_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    created_at: Mapped[datetime] = _created_at()


API_SCOPES = ("jobs:write", "jobs:read", "webhooks:manage")
"""The scopes an API key may hold: start jobs (and batches, reworks, deletions), read jobs and results,
manage webhook endpoints."""


class ApiKey(Base):
    """A seller's secret key for the public API (``/v1``, ``/v1.0``).

    The secret ``fp_live_…`` / ``fp_test_…`` (:mod:`fotopronta.api_keys`) is shown once at creation and
    stored only as its SHA-256 (``secret_hash``); ``prefix`` (the first 12 characters after the mode
    prefix) names it in lists. ``scopes`` is a subset of :data:`API_SCOPES`; ``monthly_credit_cap``
    limits the credits its jobs may cost per calendar month (UTC), ``None`` without a cap.
    ``revoked_at`` set: refused at the next request.
    """

    __tablename__ = "api_keys"
    __table_args__ = (CheckConstraint("mode IN ('live','test')", name="api_key_mode_valid"),)

    id: Mapped[uuid.UUID] = _uuid_pk()
    user_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("profiles.id", ondelete="CASCADE"), index=True)
    name: Mapped[str] = mapped_column(String(100), nullable=False)
    mode: Mapped[str] = mapped_column(String(4), nullable=False, default="live")
    prefix: Mapped[str] = mapped_column(String(32), nullable=False)
    secret_hash: Mapped[str] = mapped_column(String(64), unique=True, nullable=False)
    scopes: Mapped[list[str]] = mapped_column(JSONB, nullable=False)
    monthly_credit_cap: Mapped[int | None] = mapped_column(Integer)
    created_at: Mapped[datetime] = _created_at()
    last_used_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    revoked_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))


class IdempotencyRecord(Base):
    """One ``Idempotency-Key`` of an account on the public API, kept 24 h (``expires_at``).

    ``fingerprint`` is the SHA-256 of the request (method, path, body); ``locked_until`` is set while
    the first request is in flight (a retry then answers 409) and cleared with the stored answer
    (``response_status``, ``response_headers``, ``response_body``), which a retry with the same
    fingerprint gets back (``Idempotent-Replayed: true``).
    """

    __tablename__ = "api_idempotency_keys"
    __table_args__ = (Index("uq_idempotency_user_key", "user_id", "key", unique=True),)

    id: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=True)
    user_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("profiles.id", ondelete="CASCADE"), nullable=False)
    key: Mapped[str] = mapped_column(String(255), nullable=False)
    fingerprint: Mapped[str] = mapped_column(String(64), nullable=False)
    locked_until: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    response_status: Mapped[int | None] = mapped_column(Integer)
    response_headers: Mapped[dict[str, str] | None] = mapped_column(JSONB)
    response_body: Mapped[bytes | None] = mapped_column(LargeBinary)
    created_at: Mapped[datetime] = _created_at()
    expires_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), nullable=False, index=True)


class WebhookEndpoint(Base):
    """A URL of a seller's that is told about their jobs (Standard Webhooks, :mod:`fotopronta.webhooks`).

    ``events`` is a subset of :data:`fotopronta.webhooks.EVENT_TYPES`; ``secret`` (``whsec_`` + base64
    of 32 random bytes) signs every delivery and is shown once at creation, so it is kept as is (an
    HMAC needs it); after a rotation ``previous_secret`` signs beside it until
    ``previous_secret_expires_at`` (24 h). ``disabled_at`` set (with ``disabled_reason``: the endpoint answered 410, or failed
    for three days): no new event is sent to it. ``deleted_at`` set: gone from the lists and the API.
    """

    __tablename__ = "webhook_endpoints"

    id: Mapped[uuid.UUID] = _uuid_pk()
    user_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("profiles.id", ondelete="CASCADE"), index=True)
    url: Mapped[str] = mapped_column(String(2048), nullable=False)
    description: Mapped[str | None] = mapped_column(String(200))
    events: Mapped[list[str]] = mapped_column(JSONB, nullable=False)
    secret: Mapped[str] = mapped_column(String(100), nullable=False)
    previous_secret: Mapped[str | None] = mapped_column(String(100))
    previous_secret_expires_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    livemode: Mapped[bool] = mapped_column(Boolean, nullable=False, server_default=text("true"))
    created_at: Mapped[datetime] = _created_at()
    disabled_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    disabled_reason: Mapped[str | None] = mapped_column(String(40))
    deleted_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))


class WebhookEvent(Base):
    """Something that happened to a seller's job, as sent to their endpoints: ``type`` (e.g.
    ``job.completed``) and the Standard Webhooks ``payload`` (``{"type", "timestamp", "data"}``) frozen
    when it happened. ``dedupe_key`` (unique) makes an activity's retry emit it once."""

    __tablename__ = "webhook_events"

    id: Mapped[uuid.UUID] = _uuid_pk()
    user_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("profiles.id", ondelete="CASCADE"), index=True)
    type: Mapped[str] = mapped_column(String(40), nullable=False)
    job_id: Mapped[uuid.UUID | None] = mapped_column(UUID(as_uuid=True))
    dedupe_key: Mapped[str] = mapped_column(String(300), unique=True, nullable=False)
    payload: Mapped[dict[str, Any]] = mapped_column(JSONB, nullable=False)
    created_at: Mapped[datetime] = _created_at()


class WebhookDelivery(Base):
    """One event to one endpoint (its ``id`` is the ``webhook-id`` header, the same on every attempt,
    so a receiver recognises a replay). ``status``: ``pending`` (attempts left), ``succeeded`` (a 2xx),
    ``failed`` (refused by a 4xx, the endpoint disabled, or the schedule ran out). ``dispatched_at``:
    its ``WebhookDeliveryWorkflow`` was started (the dispatcher starts the rest)."""

    __tablename__ = "webhook_deliveries"
    __table_args__ = (
        Index("uq_webhook_delivery_event_endpoint", "event_id", "endpoint_id", unique=True),
        Index(
            "ix_webhook_deliveries_undispatched", "created_at", postgresql_where=text("dispatched_at IS NULL")
        ),
        Index("ix_webhook_deliveries_endpoint_created", "endpoint_id", "created_at"),
    )

    id: Mapped[uuid.UUID] = _uuid_pk()
    event_id: Mapped[uuid.UUID] = mapped_column(
        ForeignKey("webhook_events.id", ondelete="CASCADE"), nullable=False
    )
    endpoint_id: Mapped[uuid.UUID] = mapped_column(
        ForeignKey("webhook_endpoints.id", ondelete="CASCADE"), nullable=False
    )
    status: Mapped[str] = mapped_column(String(12), nullable=False, default="pending")
    attempts: Mapped[int] = mapped_column(Integer, nullable=False, default=0)
    last_status_code: Mapped[int | None] = mapped_column(Integer)
    last_error: Mapped[str | None] = mapped_column(String(300))
    next_attempt_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    created_at: Mapped[datetime] = _created_at()
    dispatched_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    completed_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))


class WebhookAttempt(Base):
    """One HTTP attempt of a delivery: when, the answer's ``status_code`` (``None``: no answer, see
    ``error``), ``response_ms`` and whether the seller asked for it (``manual``, 'Reinvia')."""

    __tablename__ = "webhook_attempts"

    id: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=True)
    delivery_id: Mapped[uuid.UUID] = mapped_column(
        ForeignKey("webhook_deliveries.id", ondelete="CASCADE"), index=True, nullable=False
    )
    number: Mapped[int] = mapped_column(Integer, nullable=False)
    started_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), nullable=False)
    status_code: Mapped[int | None] = mapped_column(Integer)
    response_ms: Mapped[int | None] = mapped_column(Integer)
    error: Mapped[str | None] = mapped_column(String(300))
    manual: Mapped[bool] = mapped_column(Boolean, nullable=False, server_default=text("false"))

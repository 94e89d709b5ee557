"""The public API: sellers' API keys, idempotency keys, and what a job started through ``/v1`` carries

- ``api_keys``: a seller's secret keys (stored as their SHA-256 only), with mode (``live``/``test``),
  scopes, a monthly credit cap, ``last_used_at`` and ``revoked_at``;
- ``api_idempotency_keys``: one ``Idempotency-Key`` per account, with the request's fingerprint and the
  stored answer, kept 24 hours;
- ``photo_processing_jobs`` gains ``api_key_id`` (the key that started it), ``external_id`` (the
  integrator's reference, indexed with the owner), ``client_metadata`` and ``livemode`` (true for every
  existing row).

Downgrade drops the new columns and tables.

Revision ID: 0010_api_keys
Revises: 0009_account_lockout
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0010_api_keys"
down_revision: str | None = "0009_account_lockout"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "api_keys",
        sa.Column("id", sa.UUID(), nullable=False),
        sa.Column("user_id", sa.UUID(), nullable=False),
        sa.Column("name", sa.String(length=100), nullable=False),
        sa.Column("mode", sa.String(length=4), nullable=False),
        sa.Column("prefix", sa.String(length=32), nullable=False),
        sa.Column("secret_hash", sa.String(length=64), nullable=False),
        sa.Column("scopes", postgresql.JSONB(astext_type=sa.Text()), nullable=False),
        sa.Column("monthly_credit_cap", sa.Integer(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), server_default=sa.text("now()"), nullable=False),
        sa.Column("last_used_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("revoked_at", sa.DateTime(timezone=True), nullable=True),
        sa.CheckConstraint("mode IN ('live','test')", name="api_key_mode_valid"),
        sa.ForeignKeyConstraint(["user_id"], ["profiles.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("secret_hash"),
    )
    op.create_index(op.f("ix_api_keys_user_id"), "api_keys", ["user_id"], unique=False)
    op.create_table(
        "api_idempotency_keys",
        sa.Column("id", sa.BigInteger(), autoincrement=True, nullable=False),
        sa.Column("user_id", sa.UUID(), nullable=False),
        sa.Column("key", sa.String(length=255), nullable=False),
        sa.Column("fingerprint", sa.String(length=64), nullable=False),
        sa.Column("locked_until", sa.DateTime(timezone=True), nullable=True),
        sa.Column("response_status", sa.Integer(), nullable=True),
        sa.Column("response_headers", postgresql.JSONB(astext_type=sa.Text()), nullable=True),
        sa.Column("response_body", sa.LargeBinary(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), server_default=sa.text("now()"), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["user_id"], ["profiles.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index(
        op.f("ix_api_idempotency_keys_expires_at"), "api_idempotency_keys", ["expires_at"], unique=False
    )
    op.create_index("uq_idempotency_user_key", "api_idempotency_keys", ["user_id", "key"], unique=True)
    op.add_column("photo_processing_jobs", sa.Column("api_key_id", sa.UUID(), nullable=True))
    op.add_column("photo_processing_jobs", sa.Column("external_id", sa.String(length=255), nullable=True))
    op.add_column(
        "photo_processing_jobs",
        sa.Column("client_metadata", postgresql.JSONB(astext_type=sa.Text()), nullable=True),
    )
    op.add_column(
        "photo_processing_jobs",
        sa.Column("livemode", sa.Boolean(), server_default=sa.text("true"), nullable=False),
    )
    op.create_foreign_key(
        "photo_processing_jobs_api_key_id_fkey",
        "photo_processing_jobs",
        "api_keys",
        ["api_key_id"],
        ["id"],
        ondelete="SET NULL",
    )
    op.create_index(
        op.f("ix_photo_processing_jobs_api_key_id"), "photo_processing_jobs", ["api_key_id"], unique=False
    )
    op.create_index("ix_jobs_user_external_id", "photo_processing_jobs", ["user_id", "external_id"])


def downgrade() -> None:
    op.drop_index("ix_jobs_user_external_id", table_name="photo_processing_jobs")
    op.drop_index(op.f("ix_photo_processing_jobs_api_key_id"), table_name="photo_processing_jobs")
    op.drop_constraint("photo_processing_jobs_api_key_id_fkey", "photo_processing_jobs", type_="foreignkey")
    for column in ("livemode", "client_metadata", "external_id", "api_key_id"):
        op.drop_column("photo_processing_jobs", column)
    op.drop_index("uq_idempotency_user_key", table_name="api_idempotency_keys")
    op.drop_index(op.f("ix_api_idempotency_keys_expires_at"), table_name="api_idempotency_keys")
    op.drop_table("api_idempotency_keys")
    op.drop_index(op.f("ix_api_keys_user_id"), table_name="api_keys")
    op.drop_table("api_keys")

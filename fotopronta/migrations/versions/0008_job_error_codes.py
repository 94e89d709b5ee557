"""A machine-readable error code beside each job's Italian error message

``photo_processing_jobs.error_code`` (nullable, a ``fotopronta.domain.JobErrorCode`` value) is written
with ``error_message`` by every step that fails or rejects a job, and the reprocess rule reads it
instead of searching the message for SPEC §4's markers.

Existing rows are classified once, from what wrote them (the only writers of a failed job so far):

- ``rejected_human`` → ``rejected`` (the designers' reason is the message);
- the seller's cancellation message → ``cancelled_by_client``;
- migration 0004's lost-result message → ``result_lost``;
- a message holding 'processing timeout' → ``timeout``; one holding another SPEC §4 marker
  (insufficient credits, temporary service unavailable, server error, network error, quota exceeded,
  case-insensitively) → ``processing_failed``; both stay reprocessable, as before;
- any other failed job → ``bad_image``: the retouch's refusal of the image is the only failure whose
  message carries no marker, and it stays not reprocessable, as before.

Rows that already have a code are left alone. Downgrade drops the column (the messages stay).

Revision ID: 0008
Revises: 0007
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0008"
down_revision: str | None = "0007"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

CANCELLED_MESSAGE = "Lavoro annullato dal cliente: i crediti riservati sono stati restituiti."
LOST_MESSAGE = (
    "Il risultato di questa foto è andato perso per un errore del server: i crediti sono stati "
    "restituiti. Carica di nuovo la foto per elaborarla."
)
OTHER_MARKERS = (
    "insufficient credits",
    "temporary service unavailable",
    "server error",
    "network error",
    "quota exceeded",
)
"""SPEC §4's retryable markers other than 'processing timeout', as they stood when codes came in."""


def backfill(conn: sa.Connection) -> int:
    """Give every failed or rejected job without a code the code its message implies (see the module
    docstring); returns the number of rows updated."""
    result = conn.execute(
        sa.text(
            """
            UPDATE photo_processing_jobs SET error_code = CASE
                WHEN status = 'rejected_human' THEN 'rejected'
                WHEN error_message = :cancelled THEN 'cancelled_by_client'
                WHEN error_message = :lost THEN 'result_lost'
                WHEN error_message ILIKE '%processing timeout%' THEN 'timeout'
                WHEN error_message ILIKE ANY (:markers) THEN 'processing_failed'
                ELSE 'bad_image'
            END
            WHERE status IN ('failed', 'rejected_human') AND error_code IS NULL
            """
        ),
        {
            "cancelled": CANCELLED_MESSAGE,
            "lost": LOST_MESSAGE,
            "markers": [f"%{marker}%" for marker in OTHER_MARKERS],
        },
    )
    return result.rowcount


def upgrade() -> None:
    op.add_column("photo_processing_jobs", sa.Column("error_code", sa.String(length=40), nullable=True))
    backfill(op.get_bind())


def downgrade() -> None:
    op.drop_column("photo_processing_jobs", "error_code")

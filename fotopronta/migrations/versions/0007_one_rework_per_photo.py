"""At most one free rework per photo, enforced by the database: a partial unique index on
``photo_processing_jobs (photo_id) WHERE (options ->> 'rework') = 'true'``.

The API checked "already asked" in Python and then inserted, without a lock, so parallel requests
could each insert a free designer job. ``POST /api/photos/{id}/rework`` now also locks the photo row
(``SELECT … FOR UPDATE``); this index is the guarantee whatever the code path.

Photos that already hold several reworks keep the oldest one as *the* rework; each later one keeps
running as it is (it is free: its workflow carries cost 0) but its ``options`` lose the ``rework`` key
and gain ``"rework_duplicate": true``, so the index can be built and the rows still say what they were.

Downgrade drops the index (the duplicates' marker stays).

Revision ID: 0007
Revises: 0006
Create Date: 2026-11-26
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0007"
down_revision: str | None = "0006"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

INDEX = "uq_jobs_one_rework_per_photo"


def upgrade() -> None:
    op.execute(
        sa.text(
            """
            WITH ranked AS (
                SELECT id, row_number() OVER (PARTITION BY photo_id ORDER BY created_at, id) AS n
                FROM photo_processing_jobs
                WHERE (options ->> 'rework') = 'true'
            )
            UPDATE photo_processing_jobs AS j
            SET options = (j.options - 'rework') || '{"rework_duplicate": true}'::jsonb
            FROM ranked
            WHERE ranked.id = j.id AND ranked.n > 1
            """
        )
    )
    op.create_index(
        INDEX,
        "photo_processing_jobs",
        ["photo_id"],
        unique=True,
        postgresql_where=sa.text("(options ->> 'rework') = 'true'"),
    )


def downgrade() -> None:
    op.drop_index(INDEX, table_name="photo_processing_jobs")

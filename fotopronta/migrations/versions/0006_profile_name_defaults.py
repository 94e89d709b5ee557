"""Seller's default brand and category for SEO file names (issue 12, item 11):
``profiles.default_brand`` and ``profiles.default_category``, edited on /profile (``PATCH /api/me``)
and used to prefill the upload form.

Revision ID: 0006
Revises: 0005
Create Date: 2026-11-23
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0006"
down_revision: str | None = "0005"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column("profiles", sa.Column("default_brand", sa.String(100), nullable=True))
    op.add_column("profiles", sa.Column("default_category", sa.String(100), nullable=True))


def downgrade() -> None:
    op.drop_column("profiles", "default_category")
    op.drop_column("profiles", "default_brand")

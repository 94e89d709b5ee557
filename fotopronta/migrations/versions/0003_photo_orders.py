"""photos.order_id: every upload batch is an order (SPEC §2 /orders, DESIGN decisions: Details shows
the order's photos, Download a ZIP of its completed photos)

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-22
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0003"
down_revision: str | None = "0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column("photos", sa.Column("order_id", sa.UUID(), nullable=True))
    op.create_foreign_key(
        "photos_order_id_fkey", "photos", "orders", ["order_id"], ["id"], ondelete="SET NULL"
    )
    op.create_index("ix_photos_order_id", "photos", ["order_id"])


def downgrade() -> None:
    op.drop_index("ix_photos_order_id", table_name="photos")
    op.drop_constraint("photos_order_id_fkey", "photos", type_="foreignkey")
    op.drop_column("photos", "order_id")

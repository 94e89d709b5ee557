"""Account security (issue 11 items 3 and 5): ``refresh_sessions.family_id`` (the session id that
access tokens carry as ``sid`` and that logout revokes) and ``rate_limit_hits`` (moving-window login and
sign-up limits shared by every API replica, surviving restarts; ``fotopronta/ratelimit.py``).

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-23
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0005"
down_revision: str | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column("refresh_sessions", sa.Column("family_id", sa.UUID(), nullable=True))
    op.execute("UPDATE refresh_sessions SET family_id = id")  # each existing token is its own session
    op.alter_column("refresh_sessions", "family_id", nullable=False)
    op.create_index("ix_refresh_sessions_family_id", "refresh_sessions", ["family_id"])
    op.create_table(
        "rate_limit_hits",
        sa.Column("id", sa.BigInteger(), sa.Identity(), primary_key=True),
        sa.Column("key", sa.Text(), nullable=False),
        sa.Column("hit_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_rate_limit_hits_key_hit_at", "rate_limit_hits", ["key", "hit_at"])
    op.create_index("ix_rate_limit_hits_expires_at", "rate_limit_hits", ["expires_at"])


def downgrade() -> None:
    op.drop_index("ix_rate_limit_hits_expires_at", table_name="rate_limit_hits")
    op.drop_index("ix_rate_limit_hits_key_hit_at", table_name="rate_limit_hits")
    op.drop_table("rate_limit_hits")
    op.drop_index("ix_refresh_sessions_family_id", table_name="refresh_sessions")
    op.drop_column("refresh_sessions", "family_id")

"""The account lock-out: consecutive failed logins and the lock they earn, on the account itself

``users.failed_logins`` counts failed logins from clients without the account's device cookie since
the last success (or reset), ``users.last_failed_login_at`` is when the last one happened (the count
starts again after a quiet day) and ``users.login_locked_until`` is the end of the current lock:
``api.services.auth.login`` refuses such clients until then without checking the password, and each
further failure doubles the lock (docs/security.md "Account lock-out").

Revision ID: 0009_account_lockout
Revises: 0008
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0009_account_lockout"
down_revision: str | None = "0008"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column("users", sa.Column("failed_logins", sa.Integer(), nullable=False, server_default="0"))
    op.add_column("users", sa.Column("last_failed_login_at", sa.DateTime(timezone=True), nullable=True))
    op.add_column("users", sa.Column("login_locked_until", sa.DateTime(timezone=True), nullable=True))


def downgrade() -> None:
    op.drop_column("users", "login_locked_until")
    op.drop_column("users", "last_failed_login_at")
    op.drop_column("users", "failed_logins")

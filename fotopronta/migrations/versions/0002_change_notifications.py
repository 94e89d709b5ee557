"""LISTEN/NOTIFY triggers: job, photo and notification changes for server-sent events

Every insert or update of ``photo_processing_jobs``, ``photos`` and ``notifications`` sends a small
JSON payload on channel ``fotopronta_events``: ``{"table", "op", "id", "user_id", "status",
"assigned_to"}``. The API's ``GET /api/events`` listens and forwards to the owner (and to the
designers for human jobs).

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-22
"""

from collections.abc import Sequence

from alembic import op

revision: str = "0002"
down_revision: str | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

CHANNEL = "fotopronta_events"


def upgrade() -> None:
    op.execute(
        f"""
        CREATE FUNCTION fotopronta_notify_change() RETURNS trigger LANGUAGE plpgsql AS $$
        DECLARE
            body jsonb;
        BEGIN
            body := jsonb_build_object('table', TG_TABLE_NAME, 'op', lower(TG_OP), 'id', NEW.id,
                                       'user_id', NEW.user_id);
            IF TG_TABLE_NAME = 'photo_processing_jobs' THEN
                body := body || jsonb_build_object('status', NEW.status, 'assigned_to', NEW.assigned_to,
                                                   'photo_id', NEW.photo_id, 'job_type', NEW.job_type);
            ELSIF TG_TABLE_NAME = 'photos' THEN
                body := body || jsonb_build_object('status', NEW.status);
            END IF;
            PERFORM pg_notify('{CHANNEL}', body::text);
            RETURN NEW;
        END $$;
        CREATE TRIGGER jobs_notify_change AFTER INSERT OR UPDATE ON photo_processing_jobs
            FOR EACH ROW EXECUTE FUNCTION fotopronta_notify_change();
        CREATE TRIGGER photos_notify_change AFTER INSERT OR UPDATE ON photos
            FOR EACH ROW EXECUTE FUNCTION fotopronta_notify_change();
        CREATE TRIGGER notifications_notify_change AFTER INSERT OR UPDATE ON notifications
            FOR EACH ROW EXECUTE FUNCTION fotopronta_notify_change();
        """
    )


def downgrade() -> None:
    for table, trigger in (
        ("photo_processing_jobs", "jobs_notify_change"),
        ("photos", "photos_notify_change"),
        ("notifications", "notifications_notify_change"),
    ):
        op.execute(f"DROP TRIGGER IF EXISTS {trigger} ON {table}")
    op.execute("DROP FUNCTION IF EXISTS fotopronta_notify_change()")

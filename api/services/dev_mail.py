"""The development outbox (``api/routes/dev_mail.py``): what the mailer stored, newest first."""

from __future__ import annotations

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from fotopronta.models import EmailOutbox

MAIL_LIMIT = 100


def outbox(session: Session, to: str | None) -> list[EmailOutbox]:
    """The stored e-mails, newest first (at most :data:`MAIL_LIMIT`); ``to`` keeps one recipient's
    (case-insensitive)."""
    query = select(EmailOutbox).order_by(EmailOutbox.created_at.desc(), EmailOutbox.id).limit(MAIL_LIMIT)
    if to:
        query = query.where(func.lower(EmailOutbox.to_address) == to.strip().lower())
    return list(session.execute(query).scalars())

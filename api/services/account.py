"""The signed-in user's own data: profile edits and notifications (``/api/me``,
``/api/notifications``; SPEC §4 Notification, §9: 10 fetched, newest first). Writers commit."""

from __future__ import annotations

import uuid

from sqlalchemy import select, update
from sqlalchemy.orm import Session

from api.errors import ApiError
from api.schemas import ProfileUpdate
from fotopronta.models import Notification, Profile


def update_profile(session: Session, user: Profile, changes: ProfileUpdate) -> Profile:
    """Set the fields the client sent (``model_fields_set``: names, default brand and category);
    commits and returns the refreshed profile."""
    for field in changes.model_fields_set:
        setattr(user, field, getattr(changes, field))
    session.commit()
    session.refresh(user)
    return user


def latest_notifications(session: Session, user_id: uuid.UUID, limit: int) -> list[Notification]:
    """The user's latest ``limit`` notifications, newest first."""
    return list(
        session.execute(
            select(Notification)
            .where(Notification.user_id == user_id)
            .order_by(Notification.created_at.desc(), Notification.id)
            .limit(limit)
        ).scalars()
    )


def mark_read(session: Session, user_id: uuid.UUID, notification_id: uuid.UUID) -> None:
    """Mark one of the user's notifications read; commits.

    Raises:
        ApiError: 404 'Notifica non trovata' (unknown, or another user's).
    """
    note = session.get(Notification, notification_id)
    if note is None or note.user_id != user_id:
        raise ApiError(404, "Notifica non trovata", "notification_not_found")
    note.read = True
    session.commit()


def mark_all_read(session: Session, user_id: uuid.UUID) -> None:
    """Mark all the user's unread notifications read; commits."""
    session.execute(
        update(Notification)
        .where(Notification.user_id == user_id, Notification.read.is_(False))
        .values(read=True)
    )
    session.commit()

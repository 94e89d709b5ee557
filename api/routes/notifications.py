"""The caller's notifications (``/api/notifications``; SPEC §7 Tables, §4 Notification, §9: 10
fetched, newest first)."""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Annotated

from fastapi import APIRouter, Query, status
from pydantic import BaseModel, ConfigDict

from api.deps import CurrentUser, SessionDep
from api.services import account
from fotopronta.models import Notification

router = APIRouter(prefix="/api/notifications", tags=["notifications"])

NOTIFICATIONS_LIMIT = 10
"""SPEC §9: 10 notifications fetched."""


class NotificationPublic(BaseModel):
    """One notification (type: success, info, warning, error)."""

    model_config = ConfigDict(from_attributes=True)

    id: uuid.UUID
    title: str
    message: str
    type: str
    read: bool
    related_job_id: uuid.UUID | None
    created_at: datetime


@router.get("", response_model=list[NotificationPublic], operation_id="notifications-list")
def list_notifications(
    user: CurrentUser, session: SessionDep, limit: Annotated[int, Query(ge=1, le=50)] = NOTIFICATIONS_LIMIT
) -> list[Notification]:
    """The caller's latest notifications, newest first."""
    return account.latest_notifications(session, user.id, limit)


@router.post(
    "/{notification_id}/read", status_code=status.HTTP_204_NO_CONTENT, operation_id="notifications-read"
)
def mark_read(notification_id: uuid.UUID, user: CurrentUser, session: SessionDep) -> None:
    """Mark one of the caller's notifications read."""
    account.mark_read(session, user.id, notification_id)


@router.post("/read-all", status_code=status.HTTP_204_NO_CONTENT, operation_id="notifications-read-all")
def mark_all_read(user: CurrentUser, session: SessionDep) -> None:
    """Mark all the caller's unread notifications read ('Segna tutto')."""
    account.mark_all_read(session, user.id)

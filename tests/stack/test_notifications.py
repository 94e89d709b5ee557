"""Notifications (SPEC §4 Notification, §7, §9): the owner's latest 10, newest first; mark one read,
'Segna tutto' marks all the owner's unread ones; nobody else's."""

from __future__ import annotations

import uuid

import httpx
import pytest
from sqlalchemy import select

from fotopronta.db import session_scope
from fotopronta.models import Notification, Profile
from tests.utils.factories import login, make_user

pytestmark = pytest.mark.stack


def _notify(email: str, n: int) -> list[uuid.UUID]:
    with session_scope() as session:
        user_id = session.execute(select(Profile.id).where(Profile.email == email)).scalar_one()
        notes = [
            Notification(user_id=user_id, title=f"Avviso {i}", message="testo", type="info") for i in range(n)
        ]
        session.add_all(notes)
        session.flush()
        return [note.id for note in notes]


async def test_list_and_mark_read(stack: object, api: httpx.AsyncClient) -> None:
    email, password = make_user()
    owner = await login(api, email, password)
    other_email, other_password = make_user()
    other = await login(api, other_email, other_password)
    ids = _notify(email, 12)
    listed = (await api.get("/api/notifications", headers=owner)).json()
    assert len(listed) == 10 and not any(n["read"] for n in listed)
    assert (await api.get("/api/notifications", headers=other)).json() == []

    assert (await api.post(f"/api/notifications/{ids[0]}/read", headers=other)).status_code == 404
    assert (await api.post(f"/api/notifications/{ids[0]}/read", headers=owner)).status_code == 204
    _notify(other_email, 1)
    assert (await api.post("/api/notifications/read-all", headers=owner)).status_code == 204
    assert all(
        n["read"] for n in (await api.get("/api/notifications", headers=owner, params={"limit": 20})).json()
    )
    assert not (await api.get("/api/notifications", headers=other)).json()[0]["read"]
    assert (await api.get("/api/notifications")).status_code == 401

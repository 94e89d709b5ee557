"""12 photos with 10 credits — exactly 10 complete, 2 wait durably; admin grants of 1 then
4 credits (5 in all) resume them in upload order; the final balance is 3 and equals the ledger
(real stack)."""

from __future__ import annotations

import asyncio
import time

import httpx
import pytest
from sqlalchemy import select

from fotopronta.db import session_factory
from fotopronta.domain import UserRole
from fotopronta.models import Profile
from tests.utils.factories import login, product_photo_bytes
from tests.utils.histories import maybe_record
from tests.utils.jobs import credits_and_ledger, new_user
from tests.utils.stack import Stack

pytestmark = pytest.mark.stack


async def _statuses(api: httpx.AsyncClient, headers: dict[str, str]) -> list[str]:
    photos = (await api.get("/api/photos", headers=headers)).json()["items"]
    return [p["jobs"][-1]["status"] for p in sorted(photos, key=lambda p: p["created_at"])]


async def _until(
    api: httpx.AsyncClient, headers: dict[str, str], done: int, waiting: int, timeout_s: float = 240
) -> list[str]:
    deadline = time.monotonic() + timeout_s
    while True:
        statuses = await _statuses(api, headers)
        if statuses.count("completed") == done and statuses.count("waiting_for_credits") == waiting:
            return statuses
        assert time.monotonic() < deadline, statuses
        await asyncio.sleep(0.5)


async def test_twelve_photos_with_ten_credits(stack: Stack, api: httpx.AsyncClient) -> None:
    sessions = session_factory()
    user_id = new_user(sessions, credits=10)
    with sessions() as session:
        email = session.execute(select(Profile.email).where(Profile.id == user_id)).scalar_one()
    headers = await login(api, email, "segreto123")
    image = product_photo_bytes((120, 90))
    for batch in (10, 2):  # the standard batch limit is 10 files
        resp = await api.post(
            "/api/photos",
            headers=headers,
            files=[("files", (f"p{i}.jpg", image, "image/jpeg")) for i in range(batch)],
        )
        assert resp.status_code == 201, resp.text
        await asyncio.sleep(0.2)

    statuses = await _until(api, headers, done=10, waiting=2)
    assert statuses[-2:] == ["waiting_for_credits", "waiting_for_credits"]  # the last uploads wait
    photos = (await api.get("/api/photos", headers=headers)).json()["items"]
    waiting = [p["jobs"][-1] for p in photos if p["jobs"][-1]["status"] == "waiting_for_credits"]
    assert all(j["error_message"] == "Crediti terminati" for j in waiting)
    assert credits_and_ledger(sessions, user_id) == (0, 0)

    admin_id = new_user(sessions, role=UserRole.admin)
    with sessions() as session:
        admin_email = session.execute(select(Profile.email).where(Profile.id == admin_id)).scalar_one()
    admin = await login(api, admin_email, "segreto123")
    # one credit: the earlier upload of the two resumes first (upload order), the other keeps waiting
    resp = await api.post(f"/api/admin/users/{user_id}/credits", headers=admin, json={"amount": 1})
    assert resp.status_code == 200, resp.text
    statuses = await _until(api, headers, done=11, waiting=1)
    assert statuses[-2:] == ["completed", "waiting_for_credits"]
    resp = await api.post(f"/api/admin/users/{user_id}/credits", headers=admin, json={"amount": 4})
    assert resp.status_code == 200, resp.text

    await _until(api, headers, done=12, waiting=0)
    assert credits_and_ledger(sessions, user_id) == (3, 3)
    last = max(photos, key=lambda p: p["created_at"])["jobs"][-1]["id"]
    await maybe_record(stack.temporal.get_workflow_handle(f"photo-job-{last}"), "ai-waited-for-credits")


async def _until_all(
    api: httpx.AsyncClient, headers: dict[str, str], status: str, count: int, timeout_s: float = 120
) -> list[dict]:
    """The caller's photos once ``count`` of them have a newest job in ``status``."""
    deadline = time.monotonic() + timeout_s
    while True:
        photos = (await api.get("/api/photos", headers=headers)).json()["items"]
        if sum(p["jobs"][-1]["status"] == status for p in photos) == count:
            return list(photos)
        assert time.monotonic() < deadline, [p["jobs"][-1]["status"] for p in photos]
        await asyncio.sleep(0.5)


async def test_a_zero_credit_account_holds_a_bounded_number_of_waiting_photos_and_can_delete_them(
    stack: Stack, api: httpx.AsyncClient
) -> None:
    sessions = session_factory()
    user_id = new_user(sessions, credits=0)
    with sessions() as session:
        email = session.execute(select(Profile.email).where(Profile.id == user_id)).scalar_one()
    headers = await login(api, email, "segreto123")
    image = product_photo_bytes((120, 90))
    limit = stack.settings.max_batch_files_standard

    def batch(n: int, start: int = 0) -> list[tuple[str, tuple[str, bytes, str]]]:
        return [("files", (f"attesa{start + i}.jpg", image, "image/jpeg")) for i in range(n)]

    resp = await api.post("/api/photos", headers=headers, files=batch(limit))
    assert resp.status_code == 201, resp.text
    photos = await _until_all(api, headers, "waiting_for_credits", limit)
    # one more photo would wait too: refused, nothing stored
    for route in ("/api/photos", "/api/photos/batch"):
        resp = await api.post(route, headers=headers, files=batch(1, limit))
        assert resp.status_code == 400, resp.text
        assert resp.json() == {
            "detail": f"Puoi avere al massimo {limit} foto in attesa di crediti (Limite standard): "
            "acquista crediti o elimina le foto in attesa.",
            "code": "too_many_waiting",
            "title": "Troppe foto in attesa di crediti (Limite standard)",
        }
    assert len((await api.get("/api/photos", headers=headers)).json()["items"]) == limit

    # a waiting photo can be deleted: its job is cancelled by its workflow, nothing is charged
    gone = photos[0]
    resp = await api.delete(f"/api/photos/{gone['id']}", headers=headers)
    assert resp.status_code == 204, resp.text
    assert (await api.get(f"/api/photos/{gone['id']}", headers=headers)).status_code == 404
    handle = stack.temporal.get_workflow_handle(f"photo-job-{gone['jobs'][-1]['id']}")
    assert (await handle.describe()).status.name in ("TERMINATED", "COMPLETED")
    await maybe_record(handle, "ai-waiting-cancelled-photo-deleted")
    assert credits_and_ledger(sessions, user_id) == (0, 0)
    # room for one more waiting photo again
    resp = await api.post("/api/photos", headers=headers, files=batch(1, limit))
    assert resp.status_code == 201, resp.text
    await _until_all(api, headers, "waiting_for_credits", limit)
    assert credits_and_ledger(sessions, user_id) == (0, 0)

"""``GET /api/admin/overview`` and ``GET /api/admin/designers`` over real rows (SPEC §6 Admin, §9).

The session's database is shared with other tests, so the overview is checked by its change across
rows this test inserts; the designers' rows are this test's own.
"""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta

import httpx
import pytest
from sqlalchemy import select

from fotopronta.db import session_scope
from fotopronta.domain import JobStatus, JobType, UserRole
from fotopronta.models import CreditPackage, CreditPurchase, Photo, PhotoProcessingJob, Profile, User
from tests.utils.factories import login, make_user, unique_email
from tests.utils.stack import Stack

pytestmark = pytest.mark.stack


def user_without_credits(*, days_ago: int) -> uuid.UUID:
    """A client with 0 credits registered ``days_ago`` days ago (no sign-up grant, e.g. an old account)."""
    created = datetime.now(UTC) - timedelta(days=days_ago)
    with session_scope() as session:
        user = User(
            email=unique_email("senza"), password_hash="x", email_confirmed_at=created, created_at=created
        )
        session.add(user)
        session.flush()
        session.add(
            Profile(
                id=user.id,
                email=user.email,
                first_name="Senza",
                user_role="client",
                credits_remaining=0,
                is_active=True,
                created_at=created,
            )
        )
        return user.id


def profile_id(email: str) -> uuid.UUID:
    with session_scope() as session:
        return session.execute(select(Profile.id).where(Profile.email == email)).scalar_one()


def add_jobs(owner: uuid.UUID, specs: list[tuple[str, uuid.UUID | None]]) -> None:
    """One photo and one human job per ``(status, assigned_to)``."""
    with session_scope() as session:
        for status, designer in specs:
            photo = Photo(
                user_id=owner,
                original_filename="f.jpg",
                file_size=1,
                file_format="image/jpeg",
                upload_path=f"{owner}/f.jpg",
            )
            session.add(photo)
            session.flush()
            session.add(
                PhotoProcessingJob(
                    photo_id=photo.id,
                    user_id=owner,
                    status=status,
                    assigned_to=designer,
                    job_type=JobType.background_removal_human.value,
                )
            )


async def overview(api: httpx.AsyncClient, headers: dict[str, str]) -> dict:
    resp = await api.get("/api/admin/overview", headers=headers)
    assert resp.status_code == 200, resp.text
    return dict(resp.json())


async def test_overview_counts_real_rows(stack: Stack, api: httpx.AsyncClient) -> None:
    admin_email, admin_password = make_user(role=UserRole.admin)
    admin = await login(api, admin_email, admin_password)
    before = await overview(api, admin)
    assert set(before["jobs_by_status"]) >= {s.value for s in JobStatus}

    client_email, _ = make_user()
    owner = profile_id(client_email)
    user_without_credits(days_ago=3)  # counted as 'without credits'
    user_without_credits(days_ago=45)  # registered too long ago
    add_jobs(
        owner,
        [
            (JobStatus.pending_human.value, None),
            (JobStatus.pending_human.value, None),
            (JobStatus.completed_human.value, None),
            (JobStatus.rejected_human.value, None),
        ],
    )
    with session_scope() as session:
        light = session.execute(select(CreditPackage).where(CreditPackage.name == "Light")).scalar_one()
        free = session.execute(select(CreditPackage).where(CreditPackage.name == "Free")).scalar_one()
        session.add_all(
            [
                CreditPurchase(
                    user_id=owner,
                    package_id=light.id,
                    credits_purchased=light.credits,
                    amount_paid_cents=light.price_cents,
                    status="completed",
                ),
                CreditPurchase(
                    user_id=owner,
                    package_id=light.id,
                    credits_purchased=light.credits,
                    amount_paid_cents=light.price_cents,
                    status="pending",
                ),  # not paid yet
                CreditPurchase(
                    user_id=owner,
                    package_id=free.id,
                    credits_purchased=7,
                    amount_paid_cents=0,
                    status="completed",
                ),  # an admin grant (SPEC §9)
            ]
        )
        light_credits, light_cents = light.credits, light.price_cents

    after = await overview(api, admin)
    delta = {k: after[k] - before[k] for k in after if isinstance(after[k], int)}
    assert delta == {
        "users_total": 3,
        "users_without_credits": 1,
        "photos_total": 4,
        "pending_human_unassigned": 2,
        "credits_sold": light_credits,
        "credits_granted": 7,
        "revenue_cents": light_cents,
        "jobs_needing_review": 0,  # none of these is a flagged AI result (tests/stack/test_needs_review.py)
        "needs_review_window_days": 0,
    }
    jobs = {s: after["jobs_by_status"][s] - before["jobs_by_status"][s] for s in after["jobs_by_status"]}
    assert jobs[JobStatus.pending_human.value] == 2
    assert jobs[JobStatus.completed_human.value] == 1 and jobs[JobStatus.rejected_human.value] == 1
    assert after["currency"] == "EUR"


async def test_designers_load_and_capacity(stack: Stack, api: httpx.AsyncClient) -> None:
    admin_email, admin_password = make_user(role=UserRole.admin)
    admin = await login(api, admin_email, admin_password)
    full_email, _ = make_user(role=UserRole.graphic, first_name="Aurora")
    free_email, _ = make_user(role=UserRole.graphic, first_name="Bice")
    off_email, _ = make_user(role=UserRole.graphic, first_name="Cesare")
    client_email, _ = make_user()
    full, free, off, owner = (profile_id(e) for e in (full_email, free_email, off_email, client_email))
    with session_scope() as session:
        session.get_one(Profile, full).max_concurrent_jobs = 2
        session.get_one(Profile, full).specializations = ["gioielli", "moda"]
        session.get_one(Profile, off).is_active = False
    add_jobs(
        owner,
        [
            (JobStatus.assigned_to_graphic.value, full),
            (JobStatus.in_progress_human.value, full),
            (JobStatus.completed_human.value, full),
            (JobStatus.completed_human.value, full),
            (JobStatus.rejected_human.value, full),  # neither active nor completed
            (JobStatus.in_progress_human.value, free),
            (JobStatus.completed_human.value, free),
            (JobStatus.pending_human.value, None),
        ],
    )

    resp = await api.get("/api/admin/designers", headers=admin)
    assert resp.status_code == 200, resp.text
    rows = {r["id"]: r for r in resp.json()}
    assert str(profile_id(admin_email)) not in rows and str(owner) not in rows
    assert rows[str(full)] == {
        "id": str(full),
        "first_name": "Aurora",
        "last_name": None,
        "email": full_email,
        "is_active": True,
        "max_concurrent_jobs": 2,
        "active_jobs": 2,
        "completed_jobs": 2,
        "is_full": True,
        "specializations": ["gioielli", "moda"],
    }
    assert (
        rows[str(free)]["active_jobs"],
        rows[str(free)]["completed_jobs"],
        rows[str(free)]["is_full"],
    ) == (1, 1, False)
    assert rows[str(free)]["max_concurrent_jobs"] == 5
    assert rows[str(off)]["is_active"] is False and rows[str(off)]["active_jobs"] == 0
    names = [r["first_name"] for r in resp.json() if r["id"] in {str(full), str(free), str(off)}]
    assert names == ["Aurora", "Bice", "Cesare"]


async def test_admin_pages_are_for_active_admins_only(stack: Stack, api: httpx.AsyncClient) -> None:
    for path in ("/api/admin/overview", "/api/admin/designers"):
        assert (await api.get(path)).status_code == 401
    client_email, client_password = make_user()
    designer_email, designer_password = make_user(role=UserRole.graphic)
    former_email, former_password = make_user(role=UserRole.admin)
    with session_scope() as session:
        session.get_one(Profile, profile_id(former_email)).is_active = False  # an inactive admin is a client
    for email, password in (
        (client_email, client_password),
        (designer_email, designer_password),
        (former_email, former_password),
    ):
        headers = await login(api, email, password)
        for path in ("/api/admin/overview", "/api/admin/designers"):
            resp = await api.get(path, headers=headers)
            assert resp.status_code == 403, (email, path, resp.text)
            assert resp.json()["code"] == "forbidden"

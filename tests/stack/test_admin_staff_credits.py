"""Admin: the 'Senza crediti' counter counts sellers only, and designers are not offered credits (the
server refuses them); an admin, who also has the client area, still can be."""

from __future__ import annotations

import httpx
import pytest
from sqlalchemy import select

from fotopronta.db import session_scope
from fotopronta.domain import UserRole
from fotopronta.models import Profile
from tests.utils.factories import login, make_user
from tests.utils.stack import Stack

pytestmark = pytest.mark.stack


def zero_credits(email: str) -> str:
    """Empties the account's balance; returns its id."""
    with session_scope() as session:
        profile = session.execute(select(Profile).where(Profile.email == email)).scalar_one()
        profile.credits_remaining = 0
        return str(profile.id)


async def test_without_credits_counts_sellers_and_designers_get_no_credits(
    stack: Stack, api: httpx.AsyncClient
) -> None:
    admin_email, admin_password = make_user(role=UserRole.admin)
    admin = await login(api, admin_email, admin_password)
    before = (await api.get("/api/admin/overview", headers=admin)).json()["users_without_credits"]

    seller = zero_credits(make_user()[0])
    designer = zero_credits(make_user(role=UserRole.graphic)[0])
    other_admin = zero_credits(make_user(role=UserRole.admin)[0])
    off_designer_email = make_user(role=UserRole.graphic)[0]
    with session_scope() as session:  # a designer whose role is off is a client (SPEC §6)
        session.execute(
            select(Profile).where(Profile.email == off_designer_email)
        ).scalar_one().is_active = False
    zero_credits(off_designer_email)

    after = (await api.get("/api/admin/overview", headers=admin)).json()["users_without_credits"]
    assert after - before == 2  # the seller and the inactive designer, not the staff

    resp = await api.post(f"/api/admin/users/{designer}/credits", headers=admin, json={"amount": 5})
    assert resp.status_code == 400 and resp.json()["code"] == "designer_needs_no_credits"
    assert "grafici non usano crediti" in resp.json()["detail"]
    for user_id in (seller, other_admin):
        resp = await api.post(f"/api/admin/users/{user_id}/credits", headers=admin, json={"amount": 5})
        assert resp.status_code == 200, resp.text

"""API keys on the real stack: a seller creates, lists and revokes keys (``/api/api-keys``); the secret
is answered once and stored only as its SHA-256; a key opens ``/v1`` (``Authorization: Bearer`` and
``X-Api-Key``) and nothing under ``/api/`` nor any staff route; a revoked key is refused at the next
request; keys are the seller's own (another seller's key cannot be revoked, a designer has none)."""

from __future__ import annotations

import hashlib
import uuid

import httpx
import pytest
from sqlalchemy import select

from fotopronta.db import session_factory
from fotopronta.domain import UserRole
from fotopronta.models import ApiKey
from tests.utils.factories import login, make_user

pytestmark = pytest.mark.stack


async def _seller(api: httpx.AsyncClient, role: UserRole = UserRole.client) -> dict[str, str]:
    email, password = make_user(role=role)
    return await login(api, email, password)


async def test_create_list_use_and_revoke_a_key(api: httpx.AsyncClient) -> None:
    seller = await _seller(api)
    resp = await api.post(
        "/api/api-keys", headers=seller, json={"name": "Shopify", "monthly_credit_cap": 100}
    )
    assert resp.status_code == 201, resp.text
    created = resp.json()
    secret = created["secret"]
    assert secret.startswith("fp_live_") and len(secret) == len("fp_live_") + 43
    assert created["prefix"] == secret[:16]
    assert set(created["scopes"]) == {"jobs:write", "jobs:read", "webhooks:manage"}
    assert created["last_used_at"] is None

    # stored only as its SHA-256; listed by prefix, never the secret again
    with session_factory()() as session:
        row = session.get_one(ApiKey, uuid.UUID(created["id"]))
        assert row.secret_hash == hashlib.sha256(secret.encode()).hexdigest()
        assert secret not in repr(row.__dict__)
    listed = (await api.get("/api/api-keys", headers=seller)).json()
    assert [k["id"] for k in listed] == [created["id"]]
    assert "secret" not in listed[0] and listed[0]["prefix"] == created["prefix"]

    # both headers open /v1; last_used_at is set
    for headers in ({"Authorization": f"Bearer {secret}"}, {"X-Api-Key": secret}):
        resp = await api.get("/v1/account", headers=headers)
        assert resp.status_code == 200, resp.text
        assert resp.headers["X-Request-Id"].startswith("req_")
        assert int(resp.headers["RateLimit-Limit"]) >= 1
        body = resp.json()
        assert body["credits_remaining"] == 15 and body["key"]["prefix"] == created["prefix"]
    listed = (await api.get("/api/api-keys", headers=seller)).json()
    assert listed[0]["last_used_at"] is not None

    # a key opens nothing under /api/ and no staff route
    for path in ("/api/me", "/api/photos", "/api/api-keys", "/api/admin/users", "/api/designer/jobs"):
        for headers in ({"Authorization": f"Bearer {secret}"}, {"X-Api-Key": secret}):
            resp = await api.get(path, headers=headers)
            assert resp.status_code == 401, (path, resp.status_code, resp.text)

    # revoked: refused at the very next request, with its code
    assert (await api.delete(f"/api/api-keys/{created['id']}", headers=seller)).status_code == 204
    resp = await api.get("/v1/account", headers={"X-Api-Key": secret})
    assert resp.status_code == 401
    assert resp.headers["content-type"] == "application/problem+json"
    problem = resp.json()
    assert problem["code"] == "api_key_revoked" and problem["status"] == 401
    assert problem["request_id"] == resp.headers["X-Request-Id"]
    assert (await api.get("/api/api-keys", headers=seller)).json()[0]["revoked_at"] is not None


async def test_keys_are_the_sellers_own(api: httpx.AsyncClient) -> None:
    alice, bob = await _seller(api), await _seller(api)
    key = (await api.post("/api/api-keys", headers=alice, json={"name": "PIM"})).json()
    assert (await api.delete(f"/api/api-keys/{key['id']}", headers=bob)).status_code == 404
    assert (await api.get("/api/api-keys", headers=bob)).json() == []
    with session_factory()() as session:
        assert (
            session.execute(select(ApiKey.revoked_at).where(ApiKey.id == uuid.UUID(key["id"]))).scalar_one()
            is None
        )

    designer = await _seller(api, UserRole.graphic)
    resp = await api.post("/api/api-keys", headers=designer, json={"name": "x"})
    assert resp.status_code == 403 and resp.json()["code"] == "seller_only"
    assert (await api.post("/api/api-keys", json={"name": "x"})).status_code == 401
    resp = await api.post("/api/api-keys", headers=alice, json={"name": "x", "scopes": ["admin:all"]})
    assert resp.status_code == 422


async def test_bad_secrets_are_refused_with_their_codes(api: httpx.AsyncClient) -> None:
    cases = {
        None: "missing_api_key",
        "fp_live_short": "invalid_api_key",
        "fp_live_" + "A" * 43: "invalid_api_key",
        "sk_live_" + "A" * 43: "invalid_api_key",
    }
    for secret, code in cases.items():
        headers = {"X-Api-Key": secret} if secret else {}
        resp = await api.get("/v1/account", headers=headers)
        assert resp.status_code == 401, resp.text
        assert resp.json()["code"] == code

"""A seller's API keys for the public API (``/api/api-keys``, the web app's 'Sviluppatori' page):
create (the secret is answered once, never again), list (by prefix, with ``last_used_at``) and revoke.
Signed-in sellers only (clients and admins; a designer's account has none); an API key itself opens
nothing here (these routes take the web session's bearer token only)."""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Literal

from fastapi import APIRouter, status
from fastapi.concurrency import run_in_threadpool
from pydantic import BaseModel, Field

from api.deps import SellerUser, SessionDep
from api.services import api_keys as service
from api.text_rules import SingleLine
from fotopronta.models import ApiKey

router = APIRouter(prefix="/api/api-keys", tags=["api-keys"])

Scope = Literal["jobs:write", "jobs:read", "webhooks:manage"]
SCOPES: tuple[Scope, ...] = ("jobs:write", "jobs:read", "webhooks:manage")


class ApiKeyCreate(BaseModel):
    """``POST /api/api-keys``: a name the seller recognises (one line, 1–100 characters), the scopes
    (empty or omitted: all of them) and an optional monthly credit cap (credits per calendar month, UTC).
    ``mode`` is ``live``: keys of the test mode (``fp_test_``) come with the test mode itself."""

    name: SingleLine = Field(min_length=1, max_length=100)
    mode: Literal["live"] = "live"
    scopes: list[Scope] = Field(default_factory=list, max_length=3)
    monthly_credit_cap: int | None = Field(default=None, ge=1, le=1_000_000)


class ApiKeyPublic(BaseModel):
    """A key as the seller's list shows it: never the secret, only its ``prefix``."""

    id: uuid.UUID
    name: str
    mode: Literal["live", "test"]
    prefix: str
    scopes: list[Scope]
    monthly_credit_cap: int | None
    credits_used_this_month: int
    created_at: datetime
    last_used_at: datetime | None
    revoked_at: datetime | None


class ApiKeyCreated(ApiKeyPublic):
    """``POST /api/api-keys``: the new key and its ``secret``, answered this once only."""

    secret: str


def _public(key: ApiKey, used: int) -> ApiKeyPublic:
    return ApiKeyPublic(
        id=key.id,
        name=key.name,
        mode="test" if key.mode == "test" else "live",
        prefix=key.prefix,
        scopes=[s for s in SCOPES if s in (key.scopes or [])],
        monthly_credit_cap=key.monthly_credit_cap,
        credits_used_this_month=used,
        created_at=key.created_at,
        last_used_at=key.last_used_at,
        revoked_at=key.revoked_at,
    )


@router.post(
    "", status_code=status.HTTP_201_CREATED, response_model=ApiKeyCreated, operation_id="api-keys-create"
)
async def create_api_key(body: ApiKeyCreate, user: SellerUser, session: SessionDep) -> ApiKeyCreated:
    """Create a key; the answer holds its secret (``fp_live_…``), shown this once: only its SHA-256 is
    kept. 409 ``too_many_api_keys`` past the active keys allowed."""
    key, secret = await run_in_threadpool(
        service.create_key,
        session,
        user,
        name=body.name,
        mode=body.mode,
        scopes=list(body.scopes),
        monthly_credit_cap=body.monthly_credit_cap,
    )
    return ApiKeyCreated(**_public(key, 0).model_dump(), secret=secret)


@router.get("", response_model=list[ApiKeyPublic], operation_id="api-keys-list")
def list_api_keys(user: SellerUser, session: SessionDep) -> list[ApiKeyPublic]:
    """The caller's keys, newest first (revoked ones too, marked by ``revoked_at``)."""
    return [_public(key, used) for key, used in service.list_keys(session, user)]


@router.delete("/{key_id}", status_code=status.HTTP_204_NO_CONTENT, operation_id="api-keys-revoke")
def revoke_api_key(key_id: uuid.UUID, user: SellerUser, session: SessionDep) -> None:
    """Revoke a key: the next request made with it is refused (401 ``api_key_revoked``). 404 for a key
    that is not the caller's."""
    service.revoke_key(session, user, key_id)

"""Admin user management (``/api/admin/users``, SPEC §6 Admin, §5, §9 admin grant). Admin only
(``AdminUser``: an active admin; others get 403).

- ``GET ?q=``: search by e-mail, first or last name (case-insensitive substring), newest first;
  with ``page``/``size``/``sort``/``order``: one sorted page and the total.
- ``POST /{user_id}/credits {amount}``: add ``amount`` (integer ≥ 1) credits valid one year, recorded
  as a zero-amount completed purchase of the Free package; waiting jobs resume.
- ``POST /assign-missing-free-credits``: the 15 sign-up credits for every user whose ledger has no
  sign-up grant (idempotent: the grant's key is the one sign-up uses, ``signup:{user_id}``).
"""

from __future__ import annotations

import uuid
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Query
from fastapi.concurrency import run_in_threadpool
from pydantic import BaseModel

from api.deps import AdminUser, OptionalTemporalDep, SessionDep
from api.errors import ApiError
from api.job_control import resume_after_credit
from api.schemas import ProfilePublic
from api.services import admin_users as service
from api.services.admin_users import CREDITS_TITLE
from fotopronta.models import Profile

router = APIRouter(prefix="/api/admin/users", tags=["admin"])


class AddCreditsIn(BaseModel):
    """``POST /api/admin/users/{id}/credits``: any JSON value, checked as an integer ≥ 1 in the route
    so the error is the Italian one."""

    amount: Any


class AddCreditsOut(BaseModel):
    """The grant's purchase id and the user's new balance and expiry."""

    purchase_id: uuid.UUID
    credits_added: int
    profile: ProfilePublic


class AssignMissingOut(BaseModel):
    """How many users received the sign-up credits now, and who."""

    assigned: int
    user_ids: list[uuid.UUID]


class UserPage(BaseModel):
    """One page of users and how many match the search."""

    items: list[ProfilePublic]
    total: int
    page: int
    size: int


UserSort = Literal["created_at", "email", "name", "user_role", "credits_remaining", "credits_expiry_date"]


@router.get("", response_model=list[ProfilePublic] | UserPage, operation_id="admin-users-search")
def search_users(
    _admin: AdminUser,  # the role check
    session: SessionDep,
    q: str = Query("", max_length=200),
    page: Annotated[int | None, Query(ge=1)] = None,
    size: Annotated[int, Query(ge=1, le=100)] = 20,
    sort: UserSort = "created_at",
    order: Literal["asc", "desc"] = "desc",
) -> list[Profile] | UserPage:
    """Users whose e-mail, first or last name contains ``q`` (case-insensitive).

    Without ``page``: newest first, at most 200. With ``page``: ``size`` rows sorted by ``sort``
    (``order``; ties by id) and the number of matches.
    """
    rows, total = service.search_users(session, q, page=page, size=size, sort=sort, order=order)
    if page is None or total is None:
        return rows
    return UserPage(items=[ProfilePublic.model_validate(p) for p in rows], total=total, page=page, size=size)


def _amount(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int | str):
        raise ApiError(
            400, "Inserisci un numero intero di crediti, almeno 1.", "invalid_amount", CREDITS_TITLE
        )
    try:
        amount = int(value)
    except ValueError as exc:
        raise ApiError(
            400, "Inserisci un numero intero di crediti, almeno 1.", "invalid_amount", CREDITS_TITLE
        ) from exc
    if amount < 1:
        raise ApiError(
            400, "Inserisci un numero intero di crediti, almeno 1.", "invalid_amount", CREDITS_TITLE
        )
    if amount > 1_000_000:
        raise ApiError(400, "Quantità di crediti troppo grande.", "invalid_amount", CREDITS_TITLE)
    return amount


@router.post("/{user_id}/credits", response_model=AddCreditsOut, operation_id="admin-users-add-credits")
async def add_credits(
    user_id: uuid.UUID,
    body: AddCreditsIn,
    admin: AdminUser,
    session: SessionDep,
    temporal: OptionalTemporalDep,
) -> AddCreditsOut:
    """Add credits to a user (integer ≥ 1, valid one year) and resume their jobs waiting for credits.

    Errors (title 'Errore assegnazione crediti'): 400 bad amount; 404 unknown user.
    """
    amount = _amount(body.amount)
    purchase_id, profile = await run_in_threadpool(service.grant_credits, session, user_id, amount, admin.id)
    await resume_after_credit(temporal, session, user_id)
    return AddCreditsOut(
        purchase_id=purchase_id, credits_added=amount, profile=ProfilePublic.model_validate(profile)
    )


@router.post(
    "/assign-missing-free-credits",
    response_model=AssignMissingOut,
    operation_id="admin-users-assign-missing-free-credits",
)
async def assign_missing_free_credits(
    _admin: AdminUser, session: SessionDep, temporal: OptionalTemporalDep
) -> AssignMissingOut:
    """Give the sign-up credits (15, valid 365 days) to every user without a sign-up grant; idempotent.

    Errors: 'Impossibile assegnare i crediti mancanti' (500) if the database fails.
    """
    try:
        user_ids = await run_in_threadpool(service.assign_missing_signup_credits, session)
    except ApiError:
        raise
    except Exception as exc:
        raise ApiError(500, "Impossibile assegnare i crediti mancanti", "assign_missing_failed") from exc
    for user_id in user_ids:
        await resume_after_credit(temporal, session, user_id)
    return AssignMissingOut(assigned=len(user_ids), user_ids=user_ids)

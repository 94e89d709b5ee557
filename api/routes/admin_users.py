"""Admin user management (``/api/admin/users``, SPEC §6 Admin, §5, §9 admin grant). Admin only
(``AdminUser``: an active admin; others get 403).

- ``GET ?q=``: search by e-mail, first or last name (case-insensitive substring), newest first;
  with ``page``/``size``/``sort``/``order``: one sorted page and the total (issue 12 item 14).
- ``POST /{user_id}/credits {amount}``: add ``amount`` (integer ≥ 1) credits valid one year, recorded
  as a zero-amount completed purchase of the Free package; waiting jobs resume.
- ``POST /assign-missing-free-credits``: the 15 sign-up credits for every user whose ledger has no
  sign-up grant (idempotent: the grant's key is the one sign-up uses, ``signup:{user_id}``).
"""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Query, Request
from fastapi.concurrency import run_in_threadpool
from pydantic import BaseModel
from sqlalchemy import String, cast, exists, func, or_, select
from sqlalchemy.orm import Session

from api.deps import AdminUser, SessionDep
from api.errors import ApiError
from api.routes.payments import resume_after_credit
from api.schemas import ProfilePublic
from fotopronta import ledger
from fotopronta.models import CreditLedgerEntry, CreditPackage, CreditPurchase, Profile
from fotopronta.settings import get_settings

router = APIRouter(prefix="/api/admin/users", tags=["admin"])

SEARCH_LIMIT = 200
CREDITS_TITLE = "Errore assegnazione crediti"


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
    admin: AdminUser,
    session: SessionDep,
    q: str = Query("", max_length=200),
    page: Annotated[int | None, Query(ge=1)] = None,
    size: Annotated[int, Query(ge=1, le=100)] = 20,
    sort: UserSort = "created_at",
    order: Literal["asc", "desc"] = "desc",
) -> list[Profile] | UserPage:
    """Users whose e-mail, first or last name contains ``q`` (case-insensitive).

    Without ``page``: newest first, at most 200. With ``page``: ``size`` rows sorted by ``sort``
    (``order``; ties by id) and the number of matches (issue 12 item 14).
    """
    query = select(Profile)
    term = q.strip()
    if term:
        pattern = "%" + term.lower().replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
        query = query.where(
            or_(
                *(
                    func.lower(func.coalesce(col, "")).like(pattern, escape="\\")
                    for col in (Profile.email, Profile.first_name, Profile.last_name)
                )
            )
        )
    if page is None:
        return list(session.execute(query.order_by(Profile.created_at.desc()).limit(SEARCH_LIMIT)).scalars())
    total = session.execute(select(func.count()).select_from(query.subquery())).scalar_one()
    column: Any = {
        "created_at": Profile.created_at,
        "email": Profile.email,
        "name": func.lower(
            func.concat(func.coalesce(Profile.first_name, ""), " ", func.coalesce(Profile.last_name, ""))
        ),
        "user_role": Profile.user_role,
        "credits_remaining": Profile.credits_remaining,
        "credits_expiry_date": Profile.credits_expiry_date,
    }[sort]
    direction = column.asc().nulls_last() if order == "asc" else column.desc().nulls_last()
    rows = session.execute(
        query.order_by(direction, Profile.id).offset((page - 1) * size).limit(size)
    ).scalars()
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


def _grant_tx(session: Session, user_id: uuid.UUID, amount: int, admin_id: uuid.UUID) -> AddCreditsOut:
    profile = session.get(Profile, user_id)
    if profile is None:
        raise ApiError(404, "Utente non trovato.", "user_not_found", CREDITS_TITLE)
    free = session.execute(select(CreditPackage).where(CreditPackage.name == "Free")).scalar_one_or_none()
    if free is None:
        raise ApiError(
            500,
            "Pacchetto 'Free' mancante: impossibile registrare l'accredito.",
            "free_package_missing",
            CREDITS_TITLE,
        )
    now = datetime.now(UTC)
    expires_at = now + timedelta(days=get_settings().credit_validity_days)
    purchase = CreditPurchase(
        id=uuid.uuid4(),
        user_id=user_id,
        package_id=free.id,
        credits_purchased=amount,
        amount_paid_cents=0,
        currency=free.currency,
        status="completed",
        credits_expiry_date=expires_at,
    )
    session.add(purchase)
    session.flush()
    ledger.grant(
        session,
        user_id=user_id,
        amount=amount,
        idempotency_key=f"admin:{purchase.id}",
        expires_at=expires_at,
        purchase_id=purchase.id,
        note=f"accredito manuale da {admin_id}",
    )
    session.commit()
    session.refresh(profile)
    return AddCreditsOut(
        purchase_id=purchase.id, credits_added=amount, profile=ProfilePublic.model_validate(profile)
    )


@router.post("/{user_id}/credits", response_model=AddCreditsOut, operation_id="admin-users-add-credits")
async def add_credits(
    user_id: uuid.UUID, body: AddCreditsIn, admin: AdminUser, session: SessionDep, request: Request
) -> AddCreditsOut:
    """Add credits to a user (integer ≥ 1, valid one year) and resume their jobs waiting for credits.

    Errors (title 'Errore assegnazione crediti'): 400 bad amount; 404 unknown user.
    """
    amount = _amount(body.amount)
    out = await run_in_threadpool(_grant_tx, session, user_id, amount, admin.id)
    await resume_after_credit(request, session, user_id)
    return out


def _assign_missing_tx(session: Session) -> list[uuid.UUID]:
    settings = get_settings()
    has_signup_grant = exists().where(
        CreditLedgerEntry.user_id == Profile.id,
        CreditLedgerEntry.idempotency_key == func.concat("grant:signup:", cast(Profile.id, String)),
    )
    missing = (
        session.execute(select(Profile.id).where(~has_signup_grant).order_by(Profile.created_at))
        .scalars()
        .all()
    )
    now = datetime.now(UTC)
    done = []
    for user_id in missing:
        if ledger.grant(
            session,
            user_id=user_id,
            amount=settings.signup_free_credits,
            idempotency_key=f"signup:{user_id}",
            expires_at=now + timedelta(days=settings.credit_validity_days),
            note="crediti gratuiti di benvenuto (assegnati dall'amministratore)",
        ):
            done.append(user_id)
    session.commit()
    return done


@router.post(
    "/assign-missing-free-credits",
    response_model=AssignMissingOut,
    operation_id="admin-users-assign-missing-free-credits",
)
async def assign_missing_free_credits(
    admin: AdminUser, session: SessionDep, request: Request
) -> AssignMissingOut:
    """Give the sign-up credits (15, valid 365 days) to every user without a sign-up grant; idempotent.

    Errors: 'Impossibile assegnare i crediti mancanti' (500) if the database fails.
    """
    try:
        user_ids = await run_in_threadpool(_assign_missing_tx, session)
    except ApiError:
        raise
    except Exception as exc:
        raise ApiError(500, "Impossibile assegnare i crediti mancanti", "assign_missing_failed") from exc
    for user_id in user_ids:
        await resume_after_credit(request, session, user_id)
    return AssignMissingOut(assigned=len(user_ids), user_ids=user_ids)

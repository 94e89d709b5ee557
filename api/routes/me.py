"""The signed-in user's profile (``/api/me``)."""

from __future__ import annotations

from fastapi import APIRouter

from api.deps import CurrentUser, SessionDep
from api.schemas import ProfilePublic, ProfileUpdate
from api.services import account
from fotopronta.models import Profile

router = APIRouter(prefix="/api", tags=["me"])


@router.get("/me", response_model=ProfilePublic, operation_id="me-read")
def read_me(user: CurrentUser) -> Profile:
    """The caller's profile with credits and role."""
    return user


@router.patch("/me", response_model=ProfilePublic, operation_id="me-update")
def update_me(body: ProfileUpdate, user: CurrentUser, session: SessionDep) -> Profile:
    """Edit first and last name, default brand and default category."""
    return account.update_profile(session, user, body)

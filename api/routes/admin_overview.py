"""Admin dashboard, Overview and Graphics team tabs (SPEC §2 /admin-dashboard, §6 Admin, §9):
``GET /api/admin/overview`` (counters) and ``GET /api/admin/designers`` (designers' load)."""

from __future__ import annotations

from fastapi import APIRouter

from api.deps import AdminUser, SessionDep
from api.schemas import AdminOverview, DesignerLoad
from api.services import admin_overview as service

router = APIRouter(prefix="/api/admin", tags=["admin"])


@router.get("/overview", response_model=AdminOverview, operation_id="admin-overview")
def admin_overview(_: AdminUser, session: SessionDep) -> AdminOverview:
    """Counters for the admin Overview tab (users, photos, jobs, sales, results flagged for review).
    Raises: 401, 403."""
    return service.overview(session)


@router.get("/designers", response_model=list[DesignerLoad], operation_id="admin-designers")
def admin_designers(_: AdminUser, session: SessionDep) -> list[DesignerLoad]:
    """Every designer with active and completed job counts, by name. Raises: 401, 403."""
    return service.designer_loads(session)

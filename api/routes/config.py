"""``GET /api/config``: the server's product constants for the web app (public, no sign-in)."""

from __future__ import annotations

from fastapi import APIRouter

from api.schemas import AppConfig
from api.services.config import app_config

router = APIRouter(prefix="/api", tags=["config"])


@router.get("/config", response_model=AppConfig, operation_id="config-get")
def get_config() -> AppConfig:
    """Credit costs per job type, the free-rework window (days), the sign-up credits and the upload
    limits (:class:`api.schemas.AppConfig`). Public: the landing and sign-up pages show them too."""
    return app_config()

"""The product constants the web app reads (``GET /api/config``), from their one home on the server."""

from __future__ import annotations

from api.schemas import AppConfig
from api.uploads import ACCEPTED_EXTENSIONS, ACCEPTED_FORMATS
from fotopronta.domain import FREE_REWORK_DAYS, JOB_COSTS
from fotopronta.settings import get_settings
from retouch.limits import MAX_PIXELS


def app_config() -> AppConfig:
    """Credit costs by job type (:data:`fotopronta.domain.JOB_COSTS`), the free-rework window in days,
    the sign-up credits, the per-file upload limits (bytes; megapixels, as
    :func:`api.uploads.inspect_image` enforces them) and the accepted formats and extensions."""
    settings = get_settings()
    return AppConfig(
        job_costs={kind.value: cost for kind, cost in JOB_COSTS.items()},
        free_rework_days=FREE_REWORK_DAYS,
        free_credits=settings.signup_free_credits,
        max_upload_bytes=settings.max_file_bytes,
        max_upload_megapixels=MAX_PIXELS // 1_000_000,
        accepted_formats=list(ACCEPTED_FORMATS),
        accepted_extensions=list(ACCEPTED_EXTENSIONS),
    )

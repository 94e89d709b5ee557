"""The product constants the web app reads (``GET /api/config``), from their one home on the server."""

from __future__ import annotations

from api.schemas import AppConfig, BatchLimits, ChoiceOption
from api.services.photos import PAGE_DEFAULT, PAGE_MAX
from api.uploads import ACCEPTED_EXTENSIONS, ACCEPTED_FORMATS
from fotopronta.domain import (
    FREE_REWORK_DAYS,
    JOB_COSTS,
    JOB_STATUS_LABELS,
    JOB_TYPE_LABELS,
    NO_JOB_LABEL,
    STATUS_GROUPS,
    JobStatus,
    status_filter,
)
from fotopronta.settings import get_settings
from retouch.limits import MAX_PIXELS
from retouch.presets import DEFAULT_PRESET, PRESETS, SMART_BACKGROUND_CATEGORIES, SMART_BACKGROUND_LABELS


def app_config() -> AppConfig:
    """Credit costs by job type (:data:`fotopronta.domain.JOB_COSTS`), the free-rework window in days,
    the sign-up credits, the per-file upload limits (bytes; megapixels, as
    :func:`api.uploads.inspect_image` enforces them), the accepted formats and extensions, the batch
    limits, the job statuses' and types' labels and groups (:mod:`fotopronta.domain`), the presets and
    background categories (:mod:`retouch.presets`) and the photo list's page size."""
    settings = get_settings()
    return AppConfig(
        job_costs={kind.value: cost for kind, cost in JOB_COSTS.items()},
        free_rework_days=FREE_REWORK_DAYS,
        free_credits=settings.signup_free_credits,
        max_upload_bytes=settings.max_file_bytes,
        max_upload_megapixels=MAX_PIXELS // 1_000_000,
        accepted_formats=list(ACCEPTED_FORMATS),
        accepted_extensions=list(ACCEPTED_EXTENSIONS),
        batch_limits={
            "standard": BatchLimits(
                max_files=settings.max_batch_files_standard, max_bytes=settings.max_batch_bytes_standard
            ),
            "admin": BatchLimits(
                max_files=settings.max_batch_files_admin, max_bytes=settings.max_batch_bytes_admin
            ),
        },
        job_status_labels={status.value: label for status, label in JOB_STATUS_LABELS.items()},
        no_job_label=NO_JOB_LABEL,
        job_type_labels={kind.value: label for kind, label in JOB_TYPE_LABELS.items()},
        status_groups={name: sorted(s.value for s in group) for name, group in STATUS_GROUPS.items()},
        status_filters={status.value: status_filter(status).value for status in JobStatus},
        presets=[
            ChoiceOption(value=name, label=preset.label)
            for name, preset in sorted(PRESETS.items(), key=lambda item: item[0] != DEFAULT_PRESET)
        ],
        default_preset=DEFAULT_PRESET,
        background_categories=[
            ChoiceOption(value=name, label=SMART_BACKGROUND_LABELS[name])
            for name in SMART_BACKGROUND_CATEGORIES
        ],
        photos_page_size=PAGE_DEFAULT,
        photos_page_max=PAGE_MAX,
    )

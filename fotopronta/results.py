"""Delivered results: their download names and the rule that one photo's deletion never deletes a file
another photo still uses.

Result files are stored under ids (:func:`fotopronta.storage.result_key`); the SEO name the pipeline
computes (``processing_details["seo_filename"]``) is only the name the seller's browser saves.
"""

from __future__ import annotations

from pathlib import PurePath

from sqlalchemy import or_, select
from sqlalchemy.orm import Session

from fotopronta.domain import DELIVERED_STATUSES
from fotopronta.models import Photo, PhotoProcessingJob


def download_name(photo: Photo, key: str) -> str:
    """The file name to offer for the result stored at ``key`` (``Content-Disposition``, ZIP entries).

    The SEO name of the job that delivered the photo's current result (the latest delivered job), with
    the extension of ``key`` (``.jpg``, ``.webp``, or a designer's ``.png``); without one (a designer's
    result, an old row) the key's own file name. Never used as a storage key.
    """
    suffix = PurePath(key).suffix
    delivered = [j for j in photo.jobs if j.status in DELIVERED_STATUSES and j.completed_at is not None]
    if delivered:
        job = max(delivered, key=lambda j: j.completed_at)  # type: ignore[arg-type, return-value]
        seo = (job.processing_details or {}).get("seo_filename")
        if seo:
            return PurePath(str(seo)).stem + suffix
        return PurePath(designer_seo_name(photo, job)).stem + suffix
    return PurePath(key).name


def designer_seo_name(photo: Photo, job: PhotoProcessingJob) -> str:
    """The SEO name of a result delivered without one (a designer's): built like the AI pipeline's
    (``retouch.names.seo_filename``: brand, category, main colour, the job id's first 8 characters;
    without brand and category the original file name's words and the colours) from the job's brand
    and category and the colours an earlier AI job found."""
    from retouch.names import seo_filename

    options = {**(job.options or {}), **(job.processing_details or {})}
    names: list[str] = []
    for other in sorted(photo.jobs, key=lambda j: j.created_at, reverse=True):
        found = (other.processing_details or {}).get("colors") or []
        names = [str(c.get("name") if isinstance(c, dict) else c) for c in found if c]
        names = [n for n in names if n and n != "None"]
        if names:
            break
    return seo_filename(
        options.get("brand"),
        options.get("category"),
        names[0] if names else None,
        str(job.id)[:8],
        original_filename=photo.original_filename,
        colours=names or None,
    )


def cutout_keys(photo: Photo) -> list[str]:
    """The storage keys (bucket ``processed-photos``) of the transparent cutouts the photo's jobs stored
    (jobs started through the public API, ``options.cutout``): deleted with the photo's other files."""
    from fotopronta.storage import result_key

    return [
        result_key(photo.user_id, job.id, "png") for job in photo.jobs if (job.options or {}).get("cutout")
    ]


def keys_used_elsewhere(session: Session, photo: Photo) -> set[str]:
    """The photo's result keys (``processed_path``, ``processed_webp_path``) that another photo row
    also references. Deleting ``photo`` must leave these files alone: rows written before result keys
    were unique (migration 0004 repairs what it can) may still share one file."""
    keys = {k for k in (photo.processed_path, photo.processed_webp_path) if k}
    if not keys:
        return set()
    rows = session.execute(
        select(Photo.processed_path, Photo.processed_webp_path).where(
            Photo.id != photo.id,
            or_(Photo.processed_path.in_(keys), Photo.processed_webp_path.in_(keys)),
        )
    ).all()
    return {k for row in rows for k in row if k in keys}

"""Delivered results: their download names, a ZIP of several streamed one file at a time, and the
rule that one photo's deletion never deletes a file another photo still uses.

Result files are stored under ids (:func:`fotopronta.storage.result_key`); the SEO name the pipeline
computes (``processing_details["seo_filename"]``) is only the name the seller's browser saves.
"""

from __future__ import annotations

import io
import time
import zipfile
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import PurePath
from typing import Any

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


def unique_names(names: Iterable[str]) -> list[str]:
    """``names`` with repeats numbered (``a.jpg``, ``a-2.jpg``, ``a-3.jpg``…), in order: ZIP entries
    must not collide (two photos of one product can share an SEO name)."""
    used: set[str] = set()
    out: list[str] = []
    for name in names:
        stem, suffix = PurePath(name).stem, PurePath(name).suffix
        candidate, n = name, 2
        while candidate in used:
            candidate, n = f"{stem}-{n}{suffix}", n + 1
        used.add(candidate)
        out.append(candidate)
    return out


class _Chunks(io.RawIOBase):
    """A write-only, unseekable sink that keeps what :class:`zipfile.ZipFile` writes until
    :meth:`take` hands it on (``ZipFile`` then writes data descriptors instead of seeking back)."""

    def __init__(self) -> None:
        super().__init__()
        self._parts: list[bytes] = []

    def writable(self) -> bool:
        return True

    def write(self, data: Any) -> int:
        chunk = bytes(data)
        self._parts.append(chunk)
        return len(chunk)

    def take(self) -> bytes:
        data, self._parts = b"".join(self._parts), []
        return data


def stream_zip(entries: Sequence[tuple[str, str]], read: Callable[[str], bytes | None]) -> Iterator[bytes]:
    """A ZIP archive (entries stored, not compressed: JPEG/WebP/PNG are compressed already) produced
    one entry at a time, so at most one file is held in memory.

    Args:
        entries: ``(entry name, storage key)`` pairs, names already unique (:func:`unique_names`).
        read: the file's bytes for a key, or ``None`` when it is gone (the entry is then left out).

    Yields:
        The archive's bytes, in order (local headers, data and data descriptors, then the central
        directory); concatenated they are a valid ZIP (``zipfile`` reads it back).
    """
    sink = _Chunks()
    with zipfile.ZipFile(sink, "w", compression=zipfile.ZIP_STORED) as archive:
        for name, key in entries:
            data = read(key)
            if data is None:
                continue
            info = zipfile.ZipInfo(name, date_time=time.localtime()[:6])
            info.compress_type = zipfile.ZIP_STORED
            archive.writestr(info, data)
            del data
            yield sink.take()
    tail = sink.take()
    if tail:
        yield tail

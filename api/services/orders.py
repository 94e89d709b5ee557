"""Orders (``/api/orders``): one upload batch each (``total_amount``: the credits it costs, not
money), its photos and the ZIP of its delivered photos under their SEO names."""

from __future__ import annotations

import io
import uuid
import zipfile
from pathlib import PurePath

from sqlalchemy import select
from sqlalchemy.orm import Session, selectinload

from api.deps import owner_or_admin
from api.errors import ApiError
from api.services.queries import begin_snapshot
from fotopronta.domain import PhotoStatus
from fotopronta.models import Order, Photo, Profile
from fotopronta.results import download_name
from fotopronta.storage import BUCKET_PROCESSED, ObjectNotFoundError, get_storage


def user_orders(session: Session, user_id: uuid.UUID) -> list[Order]:
    """The user's orders, newest first."""
    return list(
        session.execute(
            select(Order).where(Order.user_id == user_id).order_by(Order.created_at.desc())
        ).scalars()
    )


def owned_order(session: Session, user: Profile, order_id: uuid.UUID) -> Order:
    """The caller's order (admins: anyone's).

    Raises:
        ApiError: 404 'Ordine non trovato'.
    """
    order = session.get(Order, order_id)
    if order is None or not owner_or_admin(user, order.user_id):
        raise ApiError(404, "Ordine non trovato", "order_not_found")
    return order


def order_photos(session: Session, order_id: uuid.UUID) -> list[Photo]:
    """The order's photos with their jobs loaded, oldest upload first."""
    return list(
        session.execute(
            select(Photo)
            .where(Photo.order_id == order_id)
            .options(selectinload(Photo.jobs))
            .order_by(Photo.created_at)
        ).scalars()
    )


def order_with_photos(session: Session, user: Profile, order_id: uuid.UUID) -> tuple[Order, list[Photo]]:
    """The caller's order and its photos (:func:`order_photos`), read on one snapshot
    (:func:`~api.services.queries.begin_snapshot`) so the order's counters match its photos and jobs.

    Raises:
        ApiError: 404 'Ordine non trovato'.
    """
    begin_snapshot(session)
    return owned_order(session, user, order_id), order_photos(session, order_id)


def order_zip(session: Session, user: Profile, order_id: uuid.UUID) -> tuple[bytes, str]:
    """A ZIP (stored, not compressed) of the caller's order's delivered photos, each under its SEO file
    name (duplicates numbered), and the ZIP's file name.

    Raises:
        ApiError: 404 not the caller's order; 409 'Nessuna foto completata da scaricare' when nothing
            is delivered (or every file was already removed by retention).
    """
    order = owned_order(session, user, order_id)
    storage = get_storage()
    buffer = io.BytesIO()
    used: set[str] = set()
    count = 0
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_STORED) as archive:
        for photo in order_photos(session, order.id):
            if photo.status != PhotoStatus.processed or not photo.processed_path or photo.files_deleted_at:
                continue
            try:
                data = storage.get(BUCKET_PROCESSED, photo.processed_path)
            except ObjectNotFoundError:
                continue
            name = download_name(photo, photo.processed_path)
            stem, suffix = PurePath(name).stem, PurePath(name).suffix
            n = 2
            while name in used:
                name, n = f"{stem}-{n}{suffix}", n + 1
            used.add(name)
            archive.writestr(name, data)  # JPEG/WebP are already compressed: stored as they are
            count += 1
    if count == 0:
        raise ApiError(409, "Nessuna foto completata da scaricare", "nothing_to_download", "Errore download")
    filename = f"fotopronta-ordine-{order.created_at:%Y%m%d}-{str(order.id)[:8]}.zip"
    return buffer.getvalue(), filename

"""Order details and ZIP download (``/api/orders/{id}``; DESIGN decisions: Details shows the order's
photos, Download streams a ZIP of its completed photos under their SEO names). The list itself is
``GET /api/orders`` in ``api/routes/credits.py``."""

from __future__ import annotations

import io
import uuid
import zipfile
from datetime import datetime
from pathlib import PurePath

from fastapi import APIRouter
from fastapi.responses import Response
from pydantic import BaseModel, ConfigDict
from sqlalchemy import select
from sqlalchemy.orm import selectinload

from api.deps import CurrentUser, SessionDep, effective_role
from api.errors import ApiError
from api.http_headers import content_disposition
from api.schemas import PhotoPublic
from fotopronta.models import Order, Photo, PhotoStatus, UserRole
from fotopronta.results import download_name
from fotopronta.storage import BUCKET_PROCESSED, ObjectNotFoundError, get_storage

router = APIRouter(prefix="/api/orders", tags=["orders"])


class OrderDetail(BaseModel):
    """An order with its photos (jobs nested)."""

    model_config = ConfigDict(from_attributes=True)

    id: uuid.UUID
    package_type: str
    total_photos: int
    processed_photos: int
    status: str
    total_amount: int
    created_at: datetime
    photos: list[PhotoPublic]


def _owned_order(session: SessionDep, user: CurrentUser, order_id: uuid.UUID) -> Order:
    order = session.get(Order, order_id)
    if order is None or (order.user_id != user.id and effective_role(user) is not UserRole.admin):
        raise ApiError(404, "Ordine non trovato", "order_not_found")
    return order


def _photos(session: SessionDep, order_id: uuid.UUID) -> list[Photo]:
    return list(
        session.execute(
            select(Photo)
            .where(Photo.order_id == order_id)
            .options(selectinload(Photo.jobs))
            .order_by(Photo.created_at)
        ).scalars()
    )


@router.get("/{order_id}", response_model=OrderDetail, operation_id="orders-read")
def read_order(order_id: uuid.UUID, user: CurrentUser, session: SessionDep) -> OrderDetail:
    """The order and its photos."""
    order = _owned_order(session, user, order_id)
    photos = [PhotoPublic.model_validate(p) for p in _photos(session, order_id)]
    return OrderDetail.model_validate(
        {**{k: getattr(order, k) for k in OrderDetail.model_fields if k != "photos"}, "photos": photos}
    )


@router.get(
    "/{order_id}/download",
    operation_id="orders-download",
    responses={200: {"content": {"application/zip": {}}}},
)
def download_order(order_id: uuid.UUID, user: CurrentUser, session: SessionDep) -> Response:
    """A ZIP of the order's delivered photos, each under its SEO file name (duplicates numbered).

    Raises: ApiError 409 'Nessuna foto completata da scaricare' when nothing is delivered (or every
    file was already removed by retention).
    """
    order = _owned_order(session, user, order_id)
    storage = get_storage()
    buffer = io.BytesIO()
    used: set[str] = set()
    count = 0
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_STORED) as archive:
        for photo in _photos(session, order.id):
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
    return Response(
        buffer.getvalue(),
        media_type="application/zip",
        headers={"Content-Disposition": content_disposition(filename)},
    )

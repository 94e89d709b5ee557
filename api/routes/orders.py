"""Order details and ZIP download (``/api/orders/{id}``; DESIGN decisions: Details shows the order's
photos, Download streams a ZIP of its completed photos under their SEO names). The list itself is
``GET /api/orders`` in ``api/routes/credits.py``."""

from __future__ import annotations

import uuid
from datetime import datetime

from fastapi import APIRouter
from fastapi.responses import Response
from pydantic import ConfigDict

from api.deps import SellerUser, SessionDep
from api.http_headers import content_disposition
from api.schemas import OrderOutcome, PhotoPublic
from api.services import orders as service

router = APIRouter(prefix="/api/orders", tags=["orders"])


class OrderDetail(OrderOutcome):
    """An order with its photos (jobs nested), their outcomes and the credits it really cost."""

    model_config = ConfigDict(from_attributes=True)

    id: uuid.UUID
    package_type: str
    total_photos: int
    processed_photos: int
    status: str
    total_amount: int
    created_at: datetime
    photos: list[PhotoPublic]


@router.get("/{order_id}", response_model=OrderDetail, operation_id="orders-read")
def read_order(order_id: uuid.UUID, user: SellerUser, session: SessionDep) -> OrderDetail:
    """The order and its photos."""
    order, rows = service.order_with_photos(session, user, order_id)
    photos = [PhotoPublic.model_validate(p) for p in rows]
    outcome = service.order_outcomes(session, [order.id])[order.id]
    own = (k for k in OrderDetail.model_fields if k != "photos" and k not in OrderOutcome.model_fields)
    return OrderDetail.model_validate(
        {**{k: getattr(order, k) for k in own}, **outcome.model_dump(), "photos": photos}
    )


@router.get(
    "/{order_id}/download",
    operation_id="orders-download",
    responses={200: {"content": {"application/zip": {}}}},
)
def download_order(order_id: uuid.UUID, user: SellerUser, session: SessionDep) -> Response:
    """A ZIP of the order's delivered photos, each under its SEO file name (duplicates numbered).

    Raises: ApiError 409 'Nessuna foto completata da scaricare' when nothing is delivered (or every
    file was already removed by retention).
    """
    data, filename = service.order_zip(session, user, order_id)
    return Response(
        data,
        media_type="application/zip",
        headers={"Content-Disposition": content_disposition(filename)},
    )

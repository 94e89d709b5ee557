"""Orders (``/api/orders``): one upload batch each (``total_amount``: the credits it costs, not
money), its photos and the ZIP of its delivered photos under their SEO names."""

from __future__ import annotations

import io
import uuid
import zipfile
from pathlib import PurePath

from sqlalchemy import case, func, select
from sqlalchemy.orm import Session, selectinload

from api.deps import owner_or_admin
from api.errors import ApiError
from api.schemas import OrderOutcome
from api.services.photos import latest_job_status
from api.services.queries import begin_snapshot
from fotopronta.domain import JobStatus, LedgerKind, PhotoStatus
from fotopronta.models import CreditLedgerEntry, Order, Photo, PhotoProcessingJob, Profile
from fotopronta.results import download_name
from fotopronta.storage import BUCKET_PROCESSED, ObjectNotFoundError, get_storage


def user_orders(session: Session, user_id: uuid.UUID) -> list[Order]:
    """The user's orders, newest first."""
    return list(
        session.execute(
            select(Order).where(Order.user_id == user_id).order_by(Order.created_at.desc())
        ).scalars()
    )


def order_outcomes(session: Session, order_ids: list[uuid.UUID]) -> dict[uuid.UUID, OrderOutcome]:
    """:class:`~api.schemas.OrderOutcome` of each order in ``order_ids``, in two statements whatever
    their number: the photos by newest-job outcome, and the ledger's reserve and release entries of
    the orders' jobs (credit amounts are signed: reserve −n, release +n)."""
    if not order_ids:
        return {}
    latest = latest_job_status()
    downloadable = (
        (Photo.status == PhotoStatus.processed.value)
        & Photo.processed_path.is_not(None)
        & Photo.files_deleted_at.is_(None)
    )
    photo_rows = session.execute(
        select(
            Photo.order_id,
            func.count().filter(latest == JobStatus.rejected_human.value),
            func.count().filter(latest == JobStatus.failed.value),
            func.count().filter(downloadable),
        )
        .where(Photo.order_id.in_(order_ids))
        .group_by(Photo.order_id)
    ).all()
    credit_rows = session.execute(
        select(
            Photo.order_id,
            func.coalesce(
                func.sum(
                    case((CreditLedgerEntry.kind == LedgerKind.reserve.value, -CreditLedgerEntry.amount))
                ),
                0,
            ),
            func.coalesce(
                func.sum(
                    case((CreditLedgerEntry.kind == LedgerKind.release.value, CreditLedgerEntry.amount))
                ),
                0,
            ),
        )
        .join(PhotoProcessingJob, PhotoProcessingJob.id == CreditLedgerEntry.job_id)
        .join(Photo, Photo.id == PhotoProcessingJob.photo_id)
        .where(Photo.order_id.in_(order_ids))
        .group_by(Photo.order_id)
    ).all()
    photos = {order_id: (rejected, failed, ready) for order_id, rejected, failed, ready in photo_rows}
    credits = {order_id: (int(reserved), int(released)) for order_id, reserved, released in credit_rows}
    out = {}
    for order_id in order_ids:
        rejected, failed, ready = photos.get(order_id, (0, 0, 0))
        reserved, released = credits.get(order_id, (0, 0))
        out[order_id] = OrderOutcome(
            rejected_photos=rejected,
            failed_photos=failed,
            downloadable_photos=ready,
            credits_reserved=reserved,
            credits_refunded=released,
            credits_spent=reserved - released,
        )
    return out


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

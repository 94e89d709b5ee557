"""Retention and expiry activities (task queue ``photo-jobs``): delete a delivered photo's files after
30 days (SPEC §1 terms), and expire credits 365 days after their grant (ledger ``expire`` entries)."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime

from sqlalchemy import func, select
from sqlalchemy.orm import Session, sessionmaker
from temporalio import activity

from activities.contracts import ExpireCreditsInput, ExpireCreditsOutput, RetentionInput
from fotopronta import ledger
from fotopronta.domain import LedgerKind
from fotopronta.models import CreditLedgerEntry, Photo, PhotoProcessingJob, Profile
from fotopronta.results import cutout_keys, keys_used_elsewhere
from fotopronta.storage import BUCKET_PROCESSED, BUCKET_UPLOADS, ObjectStorage
from fotopronta.thumbnails import thumbnail_key


class RetentionActivities:
    """Holds the session factory and the object storage."""

    def __init__(self, sessions: sessionmaker[Session], storage: ObjectStorage) -> None:
        self.sessions = sessions
        self.storage = storage

    @activity.defn(name="delete_photo_files")
    def delete_photo_files(self, inp: RetentionInput) -> None:
        """Delete the original and processed files of the job's photo; the rows stay, with
        ``photos.files_deleted_at`` set. A photo already deleted by its owner is a no-op."""
        with self.sessions.begin() as session:
            job = session.get(PhotoProcessingJob, uuid.UUID(inp.job_id))
            photo = session.get(Photo, job.photo_id) if job else None
            if photo is None or photo.files_deleted_at is not None:
                return
            if job is not None and any(other.created_at > job.created_at for other in photo.jobs):
                return  # a later job of this photo (e.g. a free rework) delivers later: its workflow deletes
            self.storage.delete(BUCKET_UPLOADS, photo.upload_path)
            self.storage.delete(BUCKET_UPLOADS, thumbnail_key(photo.upload_path))
            shared = keys_used_elsewhere(session, photo)  # another photo's file: not ours to delete
            for key in (photo.processed_path, photo.processed_webp_path):
                if key and key not in shared:
                    self.storage.delete(BUCKET_PROCESSED, key)
                    self.storage.delete(BUCKET_PROCESSED, thumbnail_key(key))
            for key in cutout_keys(photo):
                self.storage.delete(BUCKET_PROCESSED, key)
            photo.files_deleted_at = datetime.now(UTC)

    @activity.defn(name="expire_credits")
    def expire_credits(self, inp: ExpireCreditsInput) -> ExpireCreditsOutput:
        """Book an ``expire`` entry for every grant with ``expires_at`` ≤ ``as_of`` not yet expired.

        Credits are spent from the grant that expires first, so what is left of an expiring grant is
        ``min(grant, max(0, balance − credits of the user's later-expiring, still valid grants))``.
        Reserved credits count as spent. Also moves ``credits_expiry_date`` to the next valid grant.
        Idempotent: key ``expire:{grant idempotency key}``.
        """
        as_of = datetime.fromisoformat(inp.as_of)
        expired_grants = expired_credits = 0
        with self.sessions.begin() as session:
            expired_keys = {
                k.removeprefix("expire:")
                for k in session.execute(
                    select(CreditLedgerEntry.idempotency_key).where(
                        CreditLedgerEntry.kind == LedgerKind.expire.value
                    )
                ).scalars()
            }
            due = [
                g
                for g in session.execute(
                    select(CreditLedgerEntry)
                    .where(
                        CreditLedgerEntry.kind == LedgerKind.grant.value,
                        CreditLedgerEntry.expires_at <= as_of,
                    )
                    .order_by(CreditLedgerEntry.expires_at, CreditLedgerEntry.id)
                ).scalars()
                if g.idempotency_key not in expired_keys
            ]
            for grant in due:
                profile = session.execute(
                    select(Profile).where(Profile.id == grant.user_id).with_for_update()
                ).scalar_one()
                later = int(
                    session.execute(
                        select(func.coalesce(func.sum(CreditLedgerEntry.amount), 0)).where(
                            CreditLedgerEntry.user_id == grant.user_id,
                            CreditLedgerEntry.kind == LedgerKind.grant.value,
                            CreditLedgerEntry.expires_at > as_of,
                        )
                    ).scalar_one()
                )
                lost = min(grant.amount, max(0, profile.credits_remaining - later))
                ledger.expire(session, user_id=grant.user_id, grant_key=grant.idempotency_key, amount=lost)
                expired_grants += 1
                expired_credits += lost
                profile.credits_expiry_date = session.execute(
                    select(func.min(CreditLedgerEntry.expires_at)).where(
                        CreditLedgerEntry.user_id == grant.user_id,
                        CreditLedgerEntry.kind == LedgerKind.grant.value,
                        CreditLedgerEntry.expires_at > as_of,
                    )
                ).scalar_one()
            next_expiry = session.execute(
                select(func.min(CreditLedgerEntry.expires_at)).where(
                    CreditLedgerEntry.kind == LedgerKind.grant.value, CreditLedgerEntry.expires_at > as_of
                )
            ).scalar_one()
        return ExpireCreditsOutput(
            expired_grants, expired_credits, next_expiry.isoformat() if next_expiry else None
        )

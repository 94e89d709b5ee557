"""Helpers for job tests: users by id, photo jobs created without the API, waiting on job states."""

from __future__ import annotations

import asyncio
import time
import uuid

from sqlalchemy import func, select
from sqlalchemy.orm import Session, sessionmaker

from fotopronta import ledger
from fotopronta.accounts import create_user
from fotopronta.domain import JobType, UserRole
from fotopronta.models import CreditLedgerEntry, Photo, PhotoProcessingJob, Profile
from fotopronta.storage import BUCKET_UPLOADS, ObjectStorage, new_upload_key
from tests.utils.factories import product_photo_bytes, unique_email


def new_user(
    sessions: sessionmaker[Session],
    *,
    role: UserRole = UserRole.client,
    credits: int | None = None,
    max_concurrent_jobs: int = 5,
    is_active: bool = True,
) -> uuid.UUID:
    """Create a confirmed user (15 sign-up credits, reduced to ``credits`` by a ledger ``expire``
    entry when given); returns the user id."""
    with sessions.begin() as session:
        profile = create_user(session, email=unique_email(role.value), password="segreto123", role=role)
        profile.max_concurrent_jobs = max_concurrent_jobs
        profile.is_active = is_active
        if credits is not None and credits < profile.credits_remaining:
            ledger.expire(
                session,
                user_id=profile.id,
                grant_key=f"test-adjust:{profile.id}",
                amount=profile.credits_remaining - credits,
            )
        return profile.id


def new_photo_job(
    sessions: sessionmaker[Session],
    storage: ObjectStorage,
    user_id: uuid.UUID,
    *,
    job_type: JobType = JobType.background_removal,
    data: bytes | None = None,
) -> tuple[uuid.UUID, uuid.UUID]:
    """Store an original and insert its photo and job rows (as ``POST /api/photos`` does, without
    starting a workflow); returns ``(photo_id, job_id)``."""
    data = data or product_photo_bytes((160, 120))
    key = new_upload_key(user_id, "jpg")
    storage.put(BUCKET_UPLOADS, key, data, "image/jpeg")
    with sessions.begin() as session:
        photo = Photo(
            user_id=user_id,
            original_filename="prodotto.jpg",
            file_size=len(data),
            file_format="image/jpeg",
            upload_path=key,
            status="uploaded",
        )
        session.add(photo)
        session.flush()
        job = PhotoProcessingJob(
            photo_id=photo.id,
            user_id=user_id,
            job_type=job_type.value,
            status="pending",
            options={"preset": "original"},
        )
        session.add(job)
        session.flush()
        return photo.id, job.id


def job_row(sessions: sessionmaker[Session], job_id: uuid.UUID | str) -> PhotoProcessingJob:
    """The job row, freshly read."""
    with sessions() as session:
        return session.get_one(PhotoProcessingJob, uuid.UUID(str(job_id)))


async def wait_job_status(
    sessions: sessionmaker[Session], job_id: uuid.UUID | str, statuses: set[str], *, timeout_s: float = 120
) -> PhotoProcessingJob:
    """Poll the database until the job's status is one of ``statuses``.

    Raises:
        AssertionError: ``timeout_s`` seconds passed.
    """
    deadline = time.monotonic() + timeout_s
    while True:
        job = job_row(sessions, job_id)
        if job.status in statuses:
            return job
        assert time.monotonic() < deadline, f"job {job_id} still {job.status}, wanted {statuses}"
        await asyncio.sleep(0.3)


def credits_and_ledger(sessions: sessionmaker[Session], user_id: uuid.UUID) -> tuple[int, int]:
    """``(profiles.credits_remaining, sum of the ledger)``."""
    with sessions() as session:
        return session.get_one(Profile, user_id).credits_remaining, ledger.ledger_balance(session, user_id)


def ledger_kinds(sessions: sessionmaker[Session], job_id: uuid.UUID | str) -> list[str]:
    """The ledger entry kinds booked for a job, in order."""
    with sessions() as session:
        return list(
            session.execute(
                select(CreditLedgerEntry.kind)
                .where(CreditLedgerEntry.job_id == uuid.UUID(str(job_id)))
                .order_by(CreditLedgerEntry.id)
            ).scalars()
        )


def count_rows(sessions: sessionmaker[Session], model: type, **filters: object) -> int:
    """``SELECT count(*) FROM model WHERE col = value …``."""
    with sessions() as session:
        query = select(func.count()).select_from(model)
        for column, value in filters.items():
            query = query.where(getattr(model, column) == value)
        return int(session.execute(query).scalar_one())

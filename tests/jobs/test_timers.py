"""The workflow timers on the time-skipping server: the 72-hour designer deadline, the 30-day retention,
the 30-day wait for credits and the 365-day credit expiry, with real activities on PostgreSQL."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta

from sqlalchemy import select

from activities.contracts import (
    TASK_QUEUE_JOBS,
    WAITING_EXPIRED_MESSAGE,
    AssignInput,
    PhotoJobInput,
    StartInput,
    workflow_id_for_job,
)
from fotopronta import ledger
from fotopronta.domain import JobType, UserRole, can_reprocess
from fotopronta.models import EmailOutbox, Notification, Photo, Profile
from fotopronta.storage import BUCKET_PROCESSED, BUCKET_UPLOADS
from tests.jobs.conftest import TimeSkipping
from tests.utils.histories import maybe_record
from tests.utils.jobs import credits_and_ledger, ledger_kinds, new_photo_job, new_user, wait_job_status
from workflows.credit_expiry import CreditExpiryInput, CreditExpiryWorkflow
from workflows.photo_job import PhotoJobWorkflow


def _job_input(
    photo_id: uuid.UUID, job_id: uuid.UUID, user_id: uuid.UUID, job_type: JobType, cost: int
) -> PhotoJobInput:
    return PhotoJobInput(
        job_id=str(job_id), photo_id=str(photo_id), user_id=str(user_id), job_type=job_type.value, cost=cost
    )


async def test_deadline_passes_job_returns_to_pool_and_admins_are_told(time_skipping: TimeSkipping) -> None:
    ts = time_skipping
    client_id = new_user(ts.sessions)
    designer_id = new_user(ts.sessions, role=UserRole.graphic)
    admin_id = new_user(ts.sessions, role=UserRole.admin)
    photo_id, job_id = new_photo_job(
        ts.sessions, ts.storage, client_id, job_type=JobType.background_removal_human
    )
    handle = await ts.env.client.start_workflow(
        PhotoJobWorkflow.run,
        _job_input(photo_id, job_id, client_id, JobType.background_removal_human, 3),
        id=workflow_id_for_job(str(job_id)),
        task_queue=TASK_QUEUE_JOBS,
    )
    await wait_job_status(ts.sessions, job_id, {"pending_human"})

    deadline = await handle.execute_update(
        PhotoJobWorkflow.assign,
        AssignInput(designer_id=str(designer_id), actor_id=str(admin_id), by_admin=True),
    )
    job = await wait_job_status(ts.sessions, job_id, {"assigned_to_graphic"})
    assert job.assigned_to == designer_id
    assert job.deadline is not None and job.deadline == datetime.fromisoformat(deadline)
    await handle.execute_update(PhotoJobWorkflow.start, StartInput(actor_id=str(designer_id)))
    await wait_job_status(ts.sessions, job_id, {"in_progress_human"})

    await ts.env.sleep(timedelta(hours=71))
    assert (await wait_job_status(ts.sessions, job_id, {"in_progress_human"})).overdue is False
    await ts.env.sleep(timedelta(hours=2))
    job = await wait_job_status(ts.sessions, job_id, {"pending_human"})
    assert job.overdue and job.assigned_to is None and job.deadline is None and job.started_at is None
    with ts.sessions() as session:
        notes = session.execute(select(Notification).where(Notification.user_id == admin_id)).scalars().all()
        assert [n.title for n in notes] == ["Lavoro scaduto"]
    assert credits_and_ledger(ts.sessions, client_id) == (12, 12)  # still reserved for the redo
    # back in the pool: it can be assigned again
    await handle.execute_update(
        PhotoJobWorkflow.assign, AssignInput(designer_id=str(designer_id), actor_id=str(designer_id))
    )
    await wait_job_status(ts.sessions, job_id, {"assigned_to_graphic"})
    await maybe_record(handle, "human-deadline-escalation")


async def test_files_deleted_thirty_days_after_delivery(time_skipping: TimeSkipping) -> None:
    ts = time_skipping
    client_id = new_user(ts.sessions)
    photo_id, job_id = new_photo_job(ts.sessions, ts.storage, client_id)
    handle = await ts.env.client.start_workflow(
        PhotoJobWorkflow.run,
        _job_input(photo_id, job_id, client_id, JobType.background_removal, 1),
        id=workflow_id_for_job(str(job_id)),
        task_queue=TASK_QUEUE_JOBS,
    )
    await wait_job_status(ts.sessions, job_id, {"completed"})
    with ts.sessions() as session:
        photo = session.get_one(Photo, photo_id)
        keys = [
            (BUCKET_UPLOADS, photo.upload_path),
            (BUCKET_PROCESSED, photo.processed_path),
            (BUCKET_PROCESSED, photo.processed_webp_path),
        ]
        delivered = photo.created_at
    assert all(ts.storage.exists(b, k) for b, k in keys if k)

    await ts.env.sleep(timedelta(days=29))
    assert all(ts.storage.exists(b, k) for b, k in keys if k)
    outcome = await handle.result()  # skips the rest of the 30 days
    assert outcome.status == "completed"
    assert not any(ts.storage.exists(b, k) for b, k in keys if k)
    with ts.sessions() as session:
        photo = session.get_one(Photo, photo_id)
        assert photo.files_deleted_at is not None and photo.processed_path  # the row stays, marked deleted
        assert photo.files_deleted_at >= delivered
    assert ledger_kinds(ts.sessions, job_id) == ["reserve", "charge"]
    await maybe_record(handle, "ai-completed-retention")


async def test_credits_expire_365_days_after_grant(time_skipping: TimeSkipping) -> None:
    ts = time_skipping
    spender = new_user(ts.sessions)  # 15 sign-up credits, then spends 5
    with ts.sessions.begin() as session:
        ledger.reserve(session, user_id=spender, reservation_id=f"spend:{spender}", amount=5)
        ledger.charge(session, user_id=spender, reservation_id=f"spend:{spender}")
    buyer = new_user(ts.sessions)  # 15 sign-up credits, plus a purchase a month later
    purchase_expiry = datetime.now(UTC) + timedelta(days=395)
    with ts.sessions.begin() as session:
        ledger.grant(
            session, user_id=buyer, amount=20, idempotency_key=f"purchase:{buyer}", expires_at=purchase_expiry
        )
    assert credits_and_ledger(ts.sessions, spender) == (10, 10)
    assert credits_and_ledger(ts.sessions, buyer) == (35, 35)

    handle = await ts.env.client.start_workflow(
        CreditExpiryWorkflow.run,
        CreditExpiryInput(),
        id=f"credit-expiry-test-{uuid.uuid4()}",
        task_queue=TASK_QUEUE_JOBS,
    )
    await ts.env.sleep(timedelta(days=300))
    assert credits_and_ledger(ts.sessions, spender) == (10, 10)
    await ts.env.sleep(timedelta(days=66))
    await _wait_balance(ts, spender, 0)
    await _wait_balance(ts, buyer, 20)  # the sign-up credits expired, the purchase is still valid
    with ts.sessions() as session:
        expiry = session.get_one(Profile, buyer).credits_expiry_date
        assert expiry is not None and abs((expiry - purchase_expiry).total_seconds()) < 1
    await ts.env.sleep(timedelta(days=30))
    await _wait_balance(ts, buyer, 0)
    await maybe_record(handle, "credit-expiry")
    await handle.terminate("test finished")


async def _wait_balance(ts: TimeSkipping, user_id: uuid.UUID, expected: int, timeout_s: float = 30) -> None:
    import asyncio
    import time

    deadline = time.monotonic() + timeout_s
    while credits_and_ledger(ts.sessions, user_id) != (expected, expected):
        assert time.monotonic() < deadline, credits_and_ledger(ts.sessions, user_id)
        await asyncio.sleep(0.2)


async def test_a_wait_for_credits_ends_after_thirty_days_with_an_email(time_skipping: TimeSkipping) -> None:
    """A job of an account without credits waits 30 days, then ends ``failed`` (``waiting_expired``,
    reprocessable), nothing charged, the photo as the seller left it, and the seller is e-mailed."""
    ts = time_skipping
    client_id = new_user(ts.sessions, credits=0)
    photo_id, job_id = new_photo_job(ts.sessions, ts.storage, client_id)
    handle = await ts.env.client.start_workflow(
        PhotoJobWorkflow.run,
        _job_input(photo_id, job_id, client_id, JobType.background_removal, 1),
        id=workflow_id_for_job(str(job_id)),
        task_queue=TASK_QUEUE_JOBS,
    )
    await wait_job_status(ts.sessions, job_id, {"waiting_for_credits"})
    await ts.env.sleep(timedelta(days=29))
    assert (await wait_job_status(ts.sessions, job_id, {"waiting_for_credits"})).error_code is None
    await ts.env.sleep(timedelta(days=2))
    job = await wait_job_status(ts.sessions, job_id, {"failed"})
    assert (job.error_code, job.error_message) == ("waiting_expired", WAITING_EXPIRED_MESSAGE)
    assert can_reprocess(job.status, job.error_code, job.error_message)
    with ts.sessions() as session:
        photo = session.get_one(Photo, photo_id)
        owner = session.get_one(Profile, client_id)
        assert photo.status == "uploaded" and photo.files_deleted_at is None
        assert ts.storage.exists(BUCKET_UPLOADS, photo.upload_path)
        mails = (
            session.execute(select(EmailOutbox).where(EmailOutbox.to_address == owner.email)).scalars().all()
        )
        assert [m.subject for m in mails] == [f"Foto non elaborata: {photo.original_filename}"]
        assert "30 giorni" in mails[0].text and "non ti abbiamo addebitato nulla" in mails[0].text
        notes = session.execute(select(Notification).where(Notification.user_id == client_id)).scalars().all()
        assert [n.title for n in notes] == ["Attesa crediti scaduta"]
    assert credits_and_ledger(ts.sessions, client_id) == (0, 0)
    assert ledger_kinds(ts.sessions, job_id) == []
    await maybe_record(handle, "ai-waiting-for-credits-expired")
    # the retention rules then apply as to any undelivered photo: its files go 30 days later
    outcome = await handle.result()
    assert outcome.error_code == "waiting_expired"
    with ts.sessions() as session:
        assert session.get_one(Photo, photo_id).files_deleted_at is not None

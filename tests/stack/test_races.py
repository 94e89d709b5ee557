"""Races on the real stack: requests that arrive together keep every rule.

1. Twenty parallel ``POST /api/photos/{id}/rework`` give one free rework (one 200, the others 409 with
   the Italian 'already asked' message), and the database itself refuses a second rework row.
2. A job whose row is gone (its photo deleted under it) does not keep its workflow retrying: the
   activity fails with the non-retryable ``JobGoneError`` and the workflow ends; the reconciler
   terminates a running workflow whose row is gone; reworks racing deletions leave no workflow behind.
3. Credits given back by a cancelled or rejected paid job resume the seller's waiting jobs in upload
   order (before, only purchases and admin grants did).
"""

from __future__ import annotations

import asyncio
import time
import uuid

import httpx
import pytest
from sqlalchemy import delete, select, text
from sqlalchemy.exc import IntegrityError
from temporalio.client import Client, WorkflowExecutionStatus

from activities.contracts import JOB_GONE_ERROR, workflow_id_for_job
from activities.resume import resume_waiting_jobs
from fotopronta import ledger
from fotopronta.db import session_factory
from fotopronta.domain import JobType, UserRole
from fotopronta.models import Photo, PhotoProcessingJob, Profile
from fotopronta.storage import BUCKET_UPLOADS, get_storage
from tests.utils.factories import login, product_photo_bytes
from tests.utils.histories import maybe_record
from tests.utils.jobs import count_rows, credits_and_ledger, job_row, new_photo_job, new_user, wait_job_status
from tests.utils.stack import Stack
from workflows.starter import reconcile_orphan_workflows, start_job_workflow

pytestmark = pytest.mark.stack

ALREADY_ASKED = "Hai già chiesto la revisione gratuita di questa foto."


async def _login_id(api: httpx.AsyncClient, user_id: uuid.UUID) -> dict[str, str]:
    with session_factory()() as session:
        email = session.execute(select(Profile.email).where(Profile.id == user_id)).scalar_one()
    return await login(api, email, "segreto123")


async def _upload(api: httpx.AsyncClient, client: dict[str, str], job_type: str, *names: str) -> list[dict]:
    resp = await api.post(
        "/api/photos",
        headers=client,
        data={"job_type": job_type},
        files=[("files", (name, product_photo_bytes((160, 120)), "image/jpeg")) for name in names],
    )
    assert resp.status_code == 201, resp.text
    return list(resp.json())


def _reworks(photo_id: str) -> int:
    with session_factory()() as session:
        return int(
            session.execute(
                select(text("count(*)"))
                .select_from(PhotoProcessingJob)
                .where(
                    PhotoProcessingJob.photo_id == uuid.UUID(photo_id),
                    PhotoProcessingJob.options["rework"].astext == "true",
                )
            ).scalar_one()
        )


async def _status(temporal: Client, job_id: str | uuid.UUID) -> WorkflowExecutionStatus | None:
    return (await temporal.get_workflow_handle(workflow_id_for_job(str(job_id))).describe()).status


async def _wait_closed(temporal: Client, job_id: str | uuid.UUID, timeout_s: float = 90) -> None:
    deadline = time.monotonic() + timeout_s
    while (status := await _status(temporal, job_id)) == WorkflowExecutionStatus.RUNNING:
        assert time.monotonic() < deadline, f"workflow of {job_id} still running"
        await asyncio.sleep(0.5)
    assert status is not None


async def test_twenty_parallel_reworks_give_one(stack: Stack, api: httpx.AsyncClient) -> None:
    sessions = session_factory()
    client_id = new_user(sessions)
    client = await _login_id(api, client_id)
    photos = await _upload(api, client, "background_removal", "gara-1.jpg", "gara-2.jpg")
    for photo in photos:
        await wait_job_status(sessions, photo["jobs"][0]["id"], {"completed"})

    for photo in photos:
        pid = photo["id"]
        answers = await asyncio.gather(
            *(
                api.post(f"/api/photos/{pid}/rework", headers=client, json={"notes": f"n{i}"})
                for i in range(20)
            )
        )
        codes = sorted(r.status_code for r in answers)
        assert codes == [200] + [409] * 19, codes
        refused = [r.json() for r in answers if r.status_code == 409]
        assert {(r["detail"], r["code"]) for r in refused} == {(ALREADY_ASKED, "rework_already_requested")}
        assert _reworks(pid) == 1
    assert credits_and_ledger(sessions, client_id) == (13, 13)  # two AI credits; the reworks are free

    # the database refuses a second rework row whatever the code path (partial unique index)
    pid = uuid.UUID(photos[0]["id"])
    with pytest.raises(IntegrityError, match="uq_jobs_one_rework_per_photo"), sessions.begin() as session:
        session.add(
            PhotoProcessingJob(
                photo_id=pid,
                user_id=client_id,
                job_type=JobType.background_removal_human.value,
                status="pending",
                priority=2,
                options={"rework": True, "cost": 0},
            )
        )
    assert _reworks(str(pid)) == 1


async def test_workflow_of_a_deleted_job_ends(stack: Stack) -> None:
    """The rework-vs-delete outcome, made deterministic: the job's rows are deleted before its
    workflow's first activity. Before, ``reserve_credits`` booked a reservation and ``set_job_status``
    then retried 'No row was found when one was required' for ever."""
    sessions = session_factory()
    user_id = new_user(sessions)
    _, job_id = new_photo_job(sessions, get_storage(), user_id)
    with sessions.begin() as session:
        job = session.get_one(PhotoProcessingJob, job_id)
        session.expunge(job)
        email = session.execute(select(Profile.email).where(Profile.id == user_id)).scalar_one()
    with sessions.begin() as session:
        session.execute(delete(Photo).where(Photo.id == job.photo_id))  # cascades to the job row
    assert count_rows(sessions, PhotoProcessingJob, id=job_id) == 0

    await start_job_workflow(stack.temporal, job, email=email, photo_name="eliminata.jpg")
    handle = stack.temporal.get_workflow_handle(workflow_id_for_job(str(job_id)))
    outcome = await asyncio.wait_for(handle.result(), timeout=90)
    assert outcome["status"] == "failed"
    assert (await handle.describe()).status == WorkflowExecutionStatus.COMPLETED
    history = await handle.fetch_history()
    failures = [
        e.activity_task_failed_event_attributes.failure.application_failure_info
        for e in history.events
        if e.HasField("activity_task_failed_event_attributes")
    ]
    markers = [e for e in history.events if e.HasField("marker_recorded_event_attributes")]
    assert markers  # the local activities' markers: reserve refused, release a no-op
    assert all(f.type == JOB_GONE_ERROR and f.non_retryable for f in failures)
    assert credits_and_ledger(sessions, user_id) == (15, 15)  # nothing held for a job that is gone
    await maybe_record(handle, "job-gone")


async def test_reconciler_terminates_workflows_without_their_job(stack: Stack) -> None:
    sessions = session_factory()
    user_id = new_user(sessions)
    kept_photo, kept = new_photo_job(
        sessions, get_storage(), user_id, job_type=JobType.background_removal_human
    )
    _, gone = new_photo_job(sessions, get_storage(), user_id, job_type=JobType.background_removal_human)
    for job_id in (kept, gone):
        with sessions() as session:
            await start_job_workflow(stack.temporal, session.get_one(PhotoProcessingJob, job_id))
        await wait_job_status(sessions, job_id, {"pending_human"})
    # rows removed outside the API (its deletion terminates the workflows itself): the workflow waits
    # for a designer and no activity of it runs, so nothing but the reconciler notices
    with sessions.begin() as session:
        session.execute(delete(PhotoProcessingJob).where(PhotoProcessingJob.id == gone))

    deadline = time.monotonic() + 30  # visibility lists a new workflow within moments
    ended: list[uuid.UUID] = []
    while gone not in ended:
        ended += await reconcile_orphan_workflows(stack.temporal, sessions)
        assert time.monotonic() < deadline, "the reconciler never saw the workflow"
        await asyncio.sleep(0.5)
    assert kept not in ended
    assert await _status(stack.temporal, gone) == WorkflowExecutionStatus.TERMINATED
    assert await _status(stack.temporal, kept) == WorkflowExecutionStatus.RUNNING
    assert count_rows(sessions, Photo, id=kept_photo) == 1


async def test_reworks_racing_deletions_leave_no_workflow_behind(
    stack: Stack, api: httpx.AsyncClient
) -> None:
    sessions = session_factory()
    client_id = new_user(sessions)
    client = await _login_id(api, client_id)
    names = [f"corsa-{uuid.uuid4().hex[:8]}-{i}.jpg" for i in range(3)]
    photos = await _upload(api, client, "background_removal", *names)
    for photo in photos:
        await wait_job_status(sessions, photo["jobs"][0]["id"], {"completed"})

    job_ids: set[str] = {p["jobs"][0]["id"] for p in photos}
    for photo in photos:
        pid = photo["id"]
        calls = []
        for _ in range(3):
            calls.append(api.post(f"/api/photos/{pid}/rework", headers=client, json={}))
            calls.append(api.delete(f"/api/photos/{pid}", headers=client))
        answers = await asyncio.gather(*calls)
        assert all(r.status_code in (200, 204, 404, 409) for r in answers), [r.status_code for r in answers]
        for r in answers:
            if r.status_code == 200:
                job_ids.update(j["id"] for j in r.json()["jobs"])
        deleted = any(r.status_code == 204 for r in answers)
        assert count_rows(sessions, Photo, id=uuid.UUID(pid)) == (0 if deleted else 1)
        assert _reworks(pid) <= 1

    # every workflow of these jobs either has its job row or has ended
    deadline = time.monotonic() + 60
    while True:
        orphans = []
        for job_id in job_ids:
            gone = count_rows(sessions, PhotoProcessingJob, id=uuid.UUID(job_id)) == 0
            if gone and await _status(stack.temporal, job_id) == WorkflowExecutionStatus.RUNNING:
                orphans.append(job_id)
        if not orphans:
            break
        assert time.monotonic() < deadline, f"workflows running without their job row: {orphans}"
        await asyncio.sleep(1)


async def test_released_credits_resume_waiting_jobs_in_upload_order(
    stack: Stack, api: httpx.AsyncClient
) -> None:
    sessions = session_factory()
    client_id = new_user(sessions, credits=6)
    designer_id = new_user(sessions, role=UserRole.graphic)
    client, designer = await _login_id(api, client_id), await _login_id(api, designer_id)
    cancelled, rejected = await _upload(
        api, client, "background_removal_human", "annullata.jpg", "rifiutata.jpg"
    )
    for photo in (cancelled, rejected):
        await wait_job_status(sessions, photo["jobs"][0]["id"], {"pending_human"})
    assert credits_and_ledger(sessions, client_id) == (0, 0)
    waiting = [
        p["jobs"][0]["id"]
        for p in await _upload(api, client, "background_removal", "a.jpg", "b.jpg", "c.jpg", "d.jpg")
    ]
    for job_id in waiting:
        await wait_job_status(sessions, job_id, {"waiting_for_credits"})

    # the seller cancels a queued designer job: its 3 credits go to the 3 oldest waiting uploads
    cancelled_handle = stack.temporal.get_workflow_handle(workflow_id_for_job(cancelled["jobs"][0]["id"]))
    resp = await api.delete(f"/api/photos/{cancelled['id']}", headers=client)
    assert resp.status_code == 204, resp.text
    for job_id in waiting[:3]:
        await wait_job_status(sessions, job_id, {"completed"})
    assert (
        await wait_job_status(sessions, waiting[3], {"waiting_for_credits"})
    ).status == "waiting_for_credits"
    assert credits_and_ledger(sessions, client_id) == (0, 0)
    await maybe_record(cancelled_handle, "human-cancelled-resumes-waiting")

    # a designer rejects the paid job: its credits let the last upload go on
    jid = rejected["jobs"][0]["id"]
    assert (await api.post(f"/api/designer/jobs/{jid}/assign-to-me", headers=designer)).status_code == 200
    assert (await api.post(f"/api/designer/jobs/{jid}/start", headers=designer)).status_code == 200
    resp = await api.post(
        f"/api/designer/jobs/{jid}/reject",
        headers=designer,
        json={"notes": "foto sfocata, serve un nuovo scatto"},
    )
    assert resp.status_code == 200, resp.text
    await wait_job_status(sessions, waiting[3], {"completed"})
    assert credits_and_ledger(sessions, client_id) == (2, 2)
    await maybe_record(
        stack.temporal.get_workflow_handle(workflow_id_for_job(jid)), "human-rejected-resumes-waiting"
    )
    await maybe_record(
        stack.temporal.get_workflow_handle(workflow_id_for_job(waiting[3])), "ai-resumed-after-release"
    )


async def test_a_failed_ai_job_resumes_waiting_jobs(stack: Stack) -> None:
    """The third release: an AI job that fails after its last attempt (here its original is gone
    from storage) gives its credit back, and the seller's next waiting upload goes on."""
    sessions = session_factory()
    storage = get_storage()
    user_id = new_user(sessions, credits=0)
    failing_photo, failing = new_photo_job(sessions, storage, user_id)
    _, waiting = new_photo_job(sessions, storage, user_id)
    with sessions() as session:
        storage.delete(BUCKET_UPLOADS, session.get_one(Photo, failing_photo).upload_path)
        for job_id in (failing, waiting):
            await start_job_workflow(stack.temporal, session.get_one(PhotoProcessingJob, job_id))
    for job_id in (failing, waiting):
        await wait_job_status(sessions, job_id, {"waiting_for_credits"})

    # one credit, booked without the API: resumed in upload order, the failing job takes it
    with sessions.begin() as session:
        ledger.grant(
            session, user_id=user_id, amount=1, idempotency_key=f"grant:test:{user_id}", expires_at=None
        )
    with sessions() as session:
        assert await resume_waiting_jobs(stack.temporal, session, user_id) == 1
    assert job_row(sessions, waiting).status == "waiting_for_credits"

    failed = await wait_job_status(sessions, failing, {"failed"}, timeout_s=120)
    assert "server error" in (failed.error_message or "")
    await wait_job_status(sessions, waiting, {"completed"}, timeout_s=120)
    assert credits_and_ledger(sessions, user_id) == (0, 0)
    await maybe_record(
        stack.temporal.get_workflow_handle(workflow_id_for_job(str(failing))), "ai-failed-resumes-waiting"
    )

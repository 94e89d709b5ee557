"""No job without its workflow.

An upload while Temporal is unreachable (the API's client points at a port where nothing listens)
still answers 201 and leaves its jobs ``pending`` with no workflow; once Temporal is back, the worker's
reconciler (``workflows.starter.reconcile_forever``) starts them and they end processed with credits
exact. Without the reconciler the upload would answer a bare 500 and the jobs stay pending forever.
"""

from __future__ import annotations

import asyncio
import time

import httpx
import pytest
from temporalio.client import Client
from temporalio.service import RPCError, RPCStatusCode

from activities.contracts import SA_JOB_STATUS, SA_PHOTO_NAME, SA_USER_EMAIL, workflow_id_for_job
from fotopronta.db import session_factory
from fotopronta.domain import JobStatus
from fotopronta.storage import get_storage
from infra.ports import free_port
from tests.utils.factories import login, make_user, product_photo_bytes
from tests.utils.histories import maybe_record
from tests.utils.jobs import (
    credits_and_ledger,
    job_row,
    ledger_kinds,
    new_photo_job,
    new_user,
    wait_job_status,
)
from tests.utils.stack import Stack
from workflows.starter import reconcile_forever, reconcile_pending_jobs

pytestmark = pytest.mark.stack


async def _no_workflow(client: Client, job_id: str) -> bool:
    try:
        await client.get_workflow_handle(workflow_id_for_job(job_id)).describe()
    except RPCError as err:
        return err.status == RPCStatusCode.NOT_FOUND
    return False


async def test_upload_while_temporal_is_unreachable_is_processed_once_it_is_back(stack: Stack) -> None:
    from api.main import create_app

    sessions = session_factory()
    # Temporal "down": the API's client points at a port where nothing listens
    unreachable = await Client.connect(f"127.0.0.1:{free_port()}", lazy=True)
    app = create_app(with_lifespan=False)
    app.state.temporal = unreachable
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://testserver", timeout=120) as api:
        email, password = make_user()
        headers = await login(api, email, password)
        began = time.monotonic()
        resp = await api.post(
            "/api/photos",
            headers=headers,
            files=[
                ("files", ("borsa.jpg", product_photo_bytes((200, 150)), "image/jpeg")),
                ("files", ("scarpa.jpg", product_photo_bytes((180, 140)), "image/jpeg")),
            ],
        )
        waited = time.monotonic() - began
        assert resp.status_code == 201, resp.text
        print(f"upload with Temporal unreachable: {resp.status_code} in {waited:.1f} s")
        photos = resp.json()
        job_ids = [p["jobs"][-1]["id"] for p in photos]
        assert [p["jobs"][-1]["status"] for p in photos] == ["pending", "pending"]
        user_id = photos[0]["user_id"]

    for job_id in job_ids:
        assert await _no_workflow(stack.temporal, job_id)
        assert job_row(sessions, job_id).status == JobStatus.pending

    # Temporal back: the worker's reconciler loop picks the jobs up
    stop = asyncio.Event()
    loop = asyncio.create_task(
        reconcile_forever(stack.temporal, sessions, interval_s=0.5, min_age_s=0, stop=stop)
    )
    try:
        for job_id in job_ids:
            await wait_job_status(sessions, job_id, {"completed", "failed"}, timeout_s=120)
    finally:
        stop.set()
        await loop

    import uuid

    uid = uuid.UUID(user_id)
    for job_id in job_ids:
        assert job_row(sessions, job_id).status == JobStatus.completed
        assert ledger_kinds(sessions, job_id) == ["reserve", "charge"]
    balance, ledger_sum = credits_and_ledger(sessions, uid)
    assert (balance, ledger_sum) == (13, 13)

    # the Temporal UI shows who and what
    handle = stack.temporal.get_workflow_handle(workflow_id_for_job(job_ids[0]))
    await maybe_record(handle, "ai-search-attributes")  # replay history with the patch's marker
    desc = await handle.describe()
    # the row turns `completed` inside the workflow task (a local activity) whose completion then carries the
    # `JobStatus` upsert: the attribute can trail the row by a moment
    deadline = time.monotonic() + 10
    while desc.typed_search_attributes.get(SA_JOB_STATUS) != "completed" and time.monotonic() < deadline:
        await asyncio.sleep(0.2)
        desc = await handle.describe()
    attrs = desc.typed_search_attributes
    assert attrs.get(SA_USER_EMAIL) == email
    assert attrs.get(SA_PHOTO_NAME) == "borsa.jpg"
    assert attrs.get(SA_JOB_STATUS) == "completed"
    assert "borsa.jpg" in (await desc.static_summary() or "")

    # and the queries of docs/operations.md find them (visibility is eventually consistent: poll briefly)
    query = (
        f"WorkflowType = 'PhotoJobWorkflow' AND UserEmail = '{email}' AND JobStatus = 'completed' "
        "AND JobType = 'background_removal' AND Preset = 'original'"
    )
    found: set[str] = set()
    for _ in range(40):
        found = {w.id async for w in stack.temporal.list_workflows(query)}
        if len(found) == 2:
            break
        await asyncio.sleep(0.25)
    assert found == {workflow_id_for_job(j) for j in job_ids}


async def test_reconciler_is_idempotent_and_waits_for_young_jobs(stack: Stack) -> None:
    sessions = session_factory()
    user_id = new_user(sessions)
    _, job_id = new_photo_job(sessions, get_storage(), user_id)

    # a job younger than the minimum age is the API's to start
    assert await reconcile_pending_jobs(stack.temporal, sessions, min_age_s=3600) == []
    assert await _no_workflow(stack.temporal, str(job_id))

    # two reconcilers at once (e.g. two photo-jobs workers) start one workflow, once
    first, second = await asyncio.gather(
        reconcile_pending_jobs(stack.temporal, sessions, min_age_s=0),
        reconcile_pending_jobs(stack.temporal, sessions, min_age_s=0),
    )
    assert job_id in first and job_id in second
    await wait_job_status(sessions, job_id, {"completed"}, timeout_s=120)
    assert ledger_kinds(sessions, job_id) == ["reserve", "charge"]
    assert credits_and_ledger(sessions, user_id) == (14, 14)
    runs = [
        w async for w in stack.temporal.list_workflows(f"WorkflowId = '{workflow_id_for_job(str(job_id))}'")
    ]
    assert len(runs) == 1

    # a pending job whose workflow has closed is not started again
    with sessions.begin() as session:
        from fotopronta.models import PhotoProcessingJob

        session.get_one(PhotoProcessingJob, job_id).status = "pending"
    await stack.temporal.get_workflow_handle(workflow_id_for_job(str(job_id))).terminate("test")
    assert job_id not in await reconcile_pending_jobs(stack.temporal, sessions, min_age_s=0)

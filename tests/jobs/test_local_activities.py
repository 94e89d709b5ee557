"""The database activities run as local activities (``workflow.patched("local-db-activities")``:
fewer history events per job) and keep their behaviour: a short balance still makes the job wait
for credits (a local activity's failure reaches the workflow unwrapped, not as ``ActivityError``), and
the ``resume`` update still reserves and lets it finish, with one reserve and one charge booked."""

from __future__ import annotations

import asyncio
import time

from temporalio.api.enums.v1 import EventType
from temporalio.client import WorkflowHandle, WorkflowHistory

from activities.contracts import TASK_QUEUE_JOBS, ResumeInput, workflow_id_for_job
from fotopronta import ledger
from fotopronta.domain import JobType
from tests.jobs.conftest import TimeSkipping
from tests.jobs.test_timers import _job_input
from tests.utils.histories import maybe_record
from tests.utils.jobs import credits_and_ledger, ledger_kinds, new_photo_job, new_user, wait_job_status
from workflows.photo_job import PhotoJobWorkflow


async def _history_with_markers(
    handle: WorkflowHandle, name: str, count: int, timeout_s: float = 30.0
) -> WorkflowHistory:
    """The workflow's history once it holds ``count`` markers called ``name``, or the last history
    fetched after ``timeout_s`` seconds (the caller's assertion then reports what it holds)."""
    deadline = time.monotonic() + timeout_s
    while True:
        history = await handle.fetch_history()
        found = sum(1 for e in history.events if e.marker_recorded_event_attributes.marker_name == name)
        if found >= count or time.monotonic() > deadline:
            return history
        await asyncio.sleep(0.2)


async def test_waits_for_credits_and_resumes_with_local_activities(time_skipping: TimeSkipping) -> None:
    ts = time_skipping
    client_id = new_user(ts.sessions, credits=0)
    photo_id, job_id = new_photo_job(ts.sessions, ts.storage, client_id)
    handle = await ts.env.client.start_workflow(
        PhotoJobWorkflow.run,
        _job_input(photo_id, job_id, client_id, JobType.background_removal, 1),
        id=workflow_id_for_job(str(job_id)),
        task_queue=TASK_QUEUE_JOBS,
    )
    job = await wait_job_status(ts.sessions, job_id, {"waiting_for_credits"})
    assert job.error_message == "Crediti terminati"

    with ts.sessions() as session, session.begin():
        ledger.grant(session, user_id=client_id, amount=1, idempotency_key=f"test:{job_id}", expires_at=None)
    assert await handle.execute_update(PhotoJobWorkflow.resume, ResumeInput()) is True
    await wait_job_status(ts.sessions, job_id, {"completed"})
    assert ledger_kinds(ts.sessions, job_id) == ["reserve", "charge"]
    assert credits_and_ledger(ts.sessions, client_id) == (0, 0)

    # the job row says "completed" as soon as the complete_job local activity has run, but its marker
    # enters the history only when that workflow task completes: wait for it (CI saw 2 of 4 markers)
    history = await _history_with_markers(handle, "core_local_activity", 4)
    scheduled = [
        e.activity_task_scheduled_event_attributes.activity_type.name
        for e in history.events
        if e.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED
    ]
    markers = [
        e.marker_recorded_event_attributes.marker_name
        for e in history.events
        if e.event_type == EventType.EVENT_TYPE_MARKER_RECORDED
    ]
    # the ledger and delivery activities no longer go through the queue; the status writes still do
    assert not {"reserve_credits", "charge_credits", "complete_job"} & set(scheduled)
    assert "retouch_photo" in scheduled and "set_job_status" in scheduled
    assert markers.count("core_local_activity") == 4  # reserve (short), reserve, charge, complete
    await maybe_record(handle, "ai-waited-for-credits-local")

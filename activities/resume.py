"""Resuming a seller's jobs that wait for credits, oldest upload first: the one function every credit
release or refund goes through (purchase, admin grant, and, from the job workflow's
``resume_waiting_jobs`` activity, a cancelled, failed or rejected paid job).

Client-side code (API and worker), never imported by workflow code: it talks to Temporal by workflow
id and update name, so it does not import the workflow class either.
"""

from __future__ import annotations

import asyncio
import logging
import uuid

from sqlalchemy import select
from sqlalchemy.orm import Session
from temporalio.client import Client, WorkflowUpdateFailedError
from temporalio.service import RPCError

from activities.contracts import UPDATE_RESUME, ResumeInput, workflow_id_for_job
from fotopronta.domain import JobStatus
from fotopronta.models import PhotoProcessingJob

log = logging.getLogger("fotopronta.jobs.resume")


async def resume_waiting_jobs(temporal: Client, session: Session, user_id: uuid.UUID) -> int:
    """Resume the user's jobs waiting for credits, oldest upload first.

    Call it after the user's balance rose (purchase completed, admin grant, credits released by a
    cancelled, failed or rejected job). Each job gets the ``resume`` update in turn, which retries its
    reservation before the next job is tried, so earlier uploads get the credits first; jobs that
    still find too few credits keep waiting. The query runs in a thread (``asyncio.to_thread``): the
    caller's event loop is never blocked by the database.

    Returns:
        How many jobs now hold their credits.
    """
    query = (
        select(PhotoProcessingJob.id)
        .where(
            PhotoProcessingJob.user_id == user_id,
            PhotoProcessingJob.status == JobStatus.waiting_for_credits.value,
        )
        .order_by(PhotoProcessingJob.created_at, PhotoProcessingJob.id)
    )
    jobs = await asyncio.to_thread(lambda: list(session.execute(query).scalars().all()))
    resumed = 0
    for job_id in jobs:
        handle = temporal.get_workflow_handle(workflow_id_for_job(str(job_id)))
        try:
            if await handle.execute_update(UPDATE_RESUME, ResumeInput(), result_type=bool):
                resumed += 1
        except (RPCError, WorkflowUpdateFailedError) as exc:  # closed or refused: nothing to resume
            log.warning("cannot resume %s: %s", job_id, exc)
    return resumed

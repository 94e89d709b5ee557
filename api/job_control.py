"""Starting and signalling photo-job workflows from the API (the API never changes a job's state
itself: it starts workflows and sends signals/updates; activities write the rows)."""

from __future__ import annotations

import logging
import uuid
from typing import Any

from fastapi.concurrency import run_in_threadpool
from sqlalchemy import select
from sqlalchemy.orm import Session
from temporalio.client import Client, WorkflowUpdateFailedError
from temporalio.service import RPCError, RPCStatusCode

from api.errors import ApiError
from fotopronta.domain import JobStatus
from fotopronta.models import PhotoProcessingJob
from workflows.photo_job import PhotoJobWorkflow
from workflows.shared import ResumeInput, workflow_id_for_job

log = logging.getLogger("fotopronta.api.jobs")


async def resume_waiting_jobs(temporal: Client, session: Session, user_id: uuid.UUID) -> int:
    """Resume the user's jobs waiting for credits, oldest upload first.

    Call it after the user's balance rose (purchase completed, admin grant). Each job gets the
    ``resume`` update in turn, which retries its reservation before the next job is tried, so
    earlier uploads get the credits first; jobs that still find too few credits keep waiting.

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
    jobs = await run_in_threadpool(lambda: list(session.execute(query).scalars().all()))
    resumed = 0
    for job_id in jobs:
        handle = temporal.get_workflow_handle_for(PhotoJobWorkflow.run, workflow_id_for_job(str(job_id)))
        try:
            if await handle.execute_update(PhotoJobWorkflow.resume, ResumeInput()):
                resumed += 1
        except (RPCError, WorkflowUpdateFailedError) as exc:  # closed or refused: nothing to resume
            log.warning("cannot resume %s: %s", job_id, exc)
    return resumed


async def resume_after_credit(temporal: Client | None, session: Session, user_id: uuid.UUID) -> None:
    """Resume the user's jobs waiting for credits, oldest upload first (:func:`resume_waiting_jobs`),
    after the commit that raised the balance (purchase completed, admin grant). Without a Temporal
    client (``None``: not connected) or on a Temporal error it only logs: the credits are booked
    already and the workflows' own timers retry."""
    if temporal is None:
        log.warning("Temporal not connected: waiting jobs of %s not resumed", user_id)
        return
    try:
        await resume_waiting_jobs(temporal, session, user_id)
    except Exception:
        log.exception("resuming waiting jobs of %s failed", user_id)


async def run_job_update(
    temporal: Client, job_id: uuid.UUID, update: Any, arg: object, *, title: str | None = None
) -> Any:
    """Send a workflow update (``assign``, ``start``, ``complete``, ``reject``, ``reprocess``) to the
    job's ``PhotoJobWorkflow`` and return its result.

    Raises:
        ApiError: 409 with the workflow's Italian message when the validator or handler refuses, or
            when the workflow is no longer running (code ``workflow_closed``).
    """
    handle = temporal.get_workflow_handle(workflow_id_for_job(str(job_id)))
    try:
        return await handle.execute_update(update, arg)
    except WorkflowUpdateFailedError as exc:
        cause = exc.cause
        message = getattr(cause, "message", None) or str(cause)
        code = getattr(cause, "type", None) or "update_refused"
        raise ApiError(409, message, code, title) from exc
    except RPCError as exc:
        if exc.status in (RPCStatusCode.NOT_FOUND, RPCStatusCode.FAILED_PRECONDITION):
            raise ApiError(409, "Il lavoro non è più attivo.", "workflow_closed", title) from exc
        raise

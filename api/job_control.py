"""Starting and signalling photo-job workflows from the API (the API never changes a job's state
itself: it starts workflows and sends signals/updates; activities write the rows)."""

from __future__ import annotations

import logging
import uuid
from typing import Any

from sqlalchemy.orm import Session
from temporalio.client import Client, WorkflowUpdateFailedError
from temporalio.service import RPCError, RPCStatusCode

from activities.contracts import workflow_id_for_job
from activities.resume import resume_waiting_jobs
from api.errors import ApiError

__all__ = ["resume_after_credit", "resume_waiting_jobs", "run_job_update"]

log = logging.getLogger("fotopronta.api.jobs")


async def resume_after_credit(temporal: Client | None, session: Session, user_id: uuid.UUID) -> None:
    """Resume the user's jobs waiting for credits, oldest upload first
    (:func:`activities.resume.resume_waiting_jobs`, the function the job workflows also use after
    releasing credits), after the commit that raised the balance (purchase completed, admin grant).
    Without a Temporal client (``None``: not connected) or on a Temporal error it only logs: the
    credits are booked already and the workflows' own timers retry."""
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

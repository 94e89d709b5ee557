"""Starting and signalling photo-job workflows from the API (the API never changes a job's state
itself: it starts workflows and sends signals/updates; activities write the rows)."""

from __future__ import annotations

import logging
import uuid

from sqlalchemy import select
from sqlalchemy.orm import Session
from temporalio.client import Client
from temporalio.service import RPCError

from fotopronta.models import JobStatus, PhotoProcessingJob
from workflows.photo_job import PhotoJobWorkflow
from workflows.shared import CreditsAddedSignal, workflow_id_for_job

log = logging.getLogger("fotopronta.api.jobs")


async def resume_waiting_jobs(temporal: Client, session: Session, user_id: uuid.UUID, *, balance: int = 0
                              ) -> int:
    """Send ``credits_added`` to every job of ``user_id`` waiting for credits, oldest upload first.

    Call it after the user's balance rose (purchase completed, admin grant). Each workflow then
    retries its reservation; jobs that still find too few credits keep waiting.

    Returns:
        How many workflows were signalled.
    """
    jobs = session.execute(
        select(PhotoProcessingJob.id)
        .where(PhotoProcessingJob.user_id == user_id,
               PhotoProcessingJob.status == JobStatus.waiting_for_credits.value)
        .order_by(PhotoProcessingJob.created_at, PhotoProcessingJob.id)
    ).scalars().all()
    signalled = 0
    for job_id in jobs:
        handle = temporal.get_workflow_handle_for(PhotoJobWorkflow.run, workflow_id_for_job(str(job_id)))
        try:
            await handle.signal(PhotoJobWorkflow.credits_added, CreditsAddedSignal(balance=balance))
            signalled += 1
        except RPCError as exc:  # workflow already closed: nothing to resume
            log.warning("cannot signal %s: %s", job_id, exc)
    return signalled

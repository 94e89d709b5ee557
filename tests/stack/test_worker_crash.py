"""Killing the retouch worker process in the middle of a retouch and starting a new one —
the job completes once and is charged once (real Temporal dev server, real worker processes)."""

from __future__ import annotations

import asyncio
import io
import os
import signal
import subprocess
import sys
import time
import uuid

import numpy as np
import pytest
from PIL import Image
from sqlalchemy import select
from temporalio.api.enums.v1 import PendingActivityState

from activities.contracts import TASK_QUEUE_JOBS, PhotoJobInput, workflow_id_for_job
from fotopronta.db import session_factory
from fotopronta.domain import JobType
from fotopronta.models import Notification
from fotopronta.storage import get_storage
from tests.utils.histories import maybe_record
from tests.utils.jobs import credits_and_ledger, ledger_kinds, new_photo_job, new_user, wait_job_status
from tests.utils.stack import Stack
from workflows.photo_job import PhotoJobWorkflow

pytestmark = pytest.mark.stack


def _large_photo() -> bytes:
    """A 4000×3000 product shot: big enough that one retouch takes seconds."""
    h, w = 3000, 4000
    rng = np.random.default_rng(3)
    img = np.full((h, w, 3), 170, np.uint8) + rng.integers(0, 25, (h, w, 1), dtype=np.uint8)
    img[700:2300, 1200:2800] = (30, 90, 160)
    buf = io.BytesIO()
    Image.fromarray(img).save(buf, "JPEG", quality=90)
    return buf.getvalue()


def _start_worker(stack: Stack, queue: str) -> subprocess.Popen[bytes]:
    env = {**os.environ, "FOTOPRONTA_TEMPORAL_ADDRESS": stack.temporal.service_client.config.target_host}
    return subprocess.Popen(
        [sys.executable, "-m", "workflows.worker", "--queues", "retouch", "--retouch-queue", queue],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )


async def test_worker_killed_mid_retouch_job_completes_and_is_charged_once(stack: Stack) -> None:
    sessions = session_factory()
    user_id = new_user(sessions)
    photo_id, job_id = new_photo_job(sessions, get_storage(), user_id, data=_large_photo())
    queue = f"retouch-crash-{uuid.uuid4().hex[:8]}"
    first = _start_worker(stack, queue)
    second: subprocess.Popen[bytes] | None = None
    try:
        handle = await stack.temporal.start_workflow(
            PhotoJobWorkflow.run,
            PhotoJobInput(
                job_id=str(job_id),
                photo_id=str(photo_id),
                user_id=str(user_id),
                job_type=JobType.background_removal.value,
                cost=1,
                retouch_task_queue=queue,
            ),
            id=workflow_id_for_job(str(job_id)),
            task_queue=TASK_QUEUE_JOBS,
        )
        # wait until the first worker has started the retouch attempt, then kill it outright
        deadline = time.monotonic() + 120
        while True:
            desc = await handle.describe()
            pending = list(desc.raw_description.pending_activities)
            if any(
                p.activity_type.name == "retouch_photo"
                and p.state == PendingActivityState.PENDING_ACTIVITY_STATE_STARTED
                for p in pending
            ):
                break
            assert time.monotonic() < deadline, "retouch never started"
            await asyncio.sleep(0.1)
        os.killpg(first.pid, signal.SIGKILL)
        first.wait(timeout=10)
        assert (await wait_job_status(sessions, job_id, {"processing", "completed"})).status == "processing"

        second = _start_worker(stack, queue)
        await wait_job_status(sessions, job_id, {"completed"}, timeout_s=180)
        desc = await handle.describe()
        assert desc.raw_description.pending_activities == []
        assert ledger_kinds(sessions, job_id) == ["reserve", "charge"]
        assert credits_and_ledger(sessions, user_id) == (14, 14)
        with sessions() as session:
            notes = (
                session.execute(select(Notification).where(Notification.related_job_id == job_id))
                .scalars()
                .all()
            )
            assert [n.type for n in notes] == ["success"]
        history = await handle.fetch_history()
        attempts = [
            e.activity_task_started_event_attributes.attempt
            for e in history.events
            if e.HasField("activity_task_started_event_attributes")
        ]
        assert max(attempts) >= 2  # the retouch ran again after the crash
        await maybe_record(handle, "ai-worker-crash")
    finally:
        for proc in (first, second):
            if proc is not None and proc.poll() is None:
                os.killpg(proc.pid, signal.SIGTERM)
                proc.wait(timeout=30)

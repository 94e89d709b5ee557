"""Retries and reprocess (SPEC §4), smart backgrounds at 2 credits, deleting a photo —
on the real stack. The retouch activity is replaced by name on a private task queue where a test
needs it to fail (STYLE.md: activities replaced by name)."""

from __future__ import annotations

import asyncio
import contextlib
import uuid
from collections.abc import AsyncIterator, Callable
from concurrent.futures import ThreadPoolExecutor

import httpx
import pytest
from sqlalchemy import select
from temporalio import activity
from temporalio.client import WorkflowUpdateFailedError
from temporalio.exceptions import ApplicationError
from temporalio.worker import Worker

from activities.contracts import (
    BAD_IMAGE_ERROR,
    TASK_QUEUE_JOBS,
    PhotoJobInput,
    ReprocessInput,
    RetouchInput,
    RetouchOutput,
)
from activities.retouch import RetouchActivities
from fotopronta.db import session_factory
from fotopronta.domain import RETRYABLE_ERROR_MARKERS, JobErrorCode, error_code_from_message
from fotopronta.models import Photo, Profile
from fotopronta.storage import BUCKET_PROCESSED, BUCKET_UPLOADS, get_storage
from tests.utils.factories import login, product_photo_bytes
from tests.utils.jobs import (
    credits_and_ledger,
    job_row,
    ledger_kinds,
    new_photo_job,
    new_user,
    wait_job_status,
)
from tests.utils.stack import Stack
from workflows.photo_job import PhotoJobWorkflow

pytestmark = pytest.mark.stack


class FlakyRetouch:
    """``retouch_photo`` that fails its first ``failures`` calls with an unexpected error, then runs
    the real pipeline."""

    def __init__(self, failures: int) -> None:
        self.failures = failures
        self.calls = 0
        self.real = RetouchActivities(session_factory(), get_storage(), "u2netp")

    @activity.defn(name="retouch_photo")
    def retouch_photo(self, inp: RetouchInput) -> RetouchOutput:
        self.calls += 1
        if self.calls <= self.failures:
            raise RuntimeError("onnxruntime: out of memory")
        return self.real.retouch_photo(inp)


REFUSAL_WITH_MARKER = "Immagine rifiutata dal controllo qualità (server error 0x2A nel file)"


@activity.defn(name="retouch_photo")
def refuse_with_marker(inp: RetouchInput) -> RetouchOutput:  # noqa: ARG001
    """``retouch_photo`` that refuses the image (``BadImageError``, not retried) with a message that
    happens to hold a SPEC §4 retryable marker: only the error code can tell it is not retryable."""
    raise ApplicationError(REFUSAL_WITH_MARKER, type=BAD_IMAGE_ERROR, non_retryable=True)


@contextlib.asynccontextmanager
async def flaky_job(
    stack: Stack,
    user_id: uuid.UUID,
    photo_id: uuid.UUID,
    job_id: uuid.UUID,
    *,
    failures: int = 0,
    retouch: Callable[[RetouchInput], RetouchOutput] | None = None,
) -> AsyncIterator[FlakyRetouch]:
    """Start the job's workflow with its retouch on a private queue served by :class:`FlakyRetouch`
    (or by ``retouch``, another ``retouch_photo`` activity); the worker runs while the block does."""
    queue = f"retouch-flaky-{uuid.uuid4().hex[:8]}"
    flaky = FlakyRetouch(failures=failures)
    async with Worker(
        stack.temporal,
        task_queue=queue,
        activities=[retouch or flaky.retouch_photo],
        activity_executor=ThreadPoolExecutor(2),
    ):
        await stack.temporal.start_workflow(
            PhotoJobWorkflow.run,
            PhotoJobInput(
                job_id=str(job_id),
                photo_id=str(photo_id),
                user_id=str(user_id),
                job_type="background_removal",
                cost=1,
                retouch_task_queue=queue,
            ),
            id=f"photo-job-{job_id}",
            task_queue=TASK_QUEUE_JOBS,
        )
        yield flaky


async def _login_id(api: httpx.AsyncClient, user_id: uuid.UUID) -> dict[str, str]:
    with session_factory()() as session:
        email = session.execute(select(Profile.email).where(Profile.id == user_id)).scalar_one()
    return await login(api, email, "segreto123")


async def test_three_failed_attempts_then_reprocess_succeeds(stack: Stack, api: httpx.AsyncClient) -> None:
    sessions = session_factory()
    user_id = new_user(sessions)
    photo_id, job_id = new_photo_job(sessions, get_storage(), user_id)
    async with flaky_job(stack, user_id, photo_id, job_id, failures=3) as flaky:
        job = await wait_job_status(sessions, job_id, {"failed"}, timeout_s=60)
        assert flaky.calls == 3  # 3 attempts in total
        assert job.error_message.startswith("Errore elaborazione dopo 3 tentativi (server error)")
        assert any(m in job.error_message.lower() for m in RETRYABLE_ERROR_MARKERS)
        assert job.error_code == JobErrorCode.processing_failed
        assert credits_and_ledger(sessions, user_id) == (15, 15)
        assert ledger_kinds(sessions, job_id) == ["reserve", "release"]

        owner = await _login_id(api, user_id)
        photos = (await api.get("/api/photos", headers=owner)).json()["items"]
        assert photos[0]["jobs"][0]["status"] == "failed"
        other = await _login_id(api, new_user(sessions))
        assert (await api.post(f"/api/photos/{photo_id}/reprocess", headers=other)).status_code == 404
        resp = await api.post(f"/api/photos/{photo_id}/reprocess", headers=owner)
        assert resp.status_code == 200, resp.text
        await wait_job_status(sessions, job_id, {"completed"}, timeout_s=120)
        assert flaky.calls == 4
        job = (await api.get("/api/photos", headers=owner)).json()["items"][0]["jobs"][0]
        assert job["error_message"] is None and job["progress_percentage"] == 100
        assert job_row(sessions, job_id).error_code is None
        assert ledger_kinds(sessions, job_id) == ["reserve", "release", "reserve", "charge"]
        assert credits_and_ledger(sessions, user_id) == (14, 14)
        # a completed job is not reprocessable
        assert (await api.post(f"/api/photos/{photo_id}/reprocess", headers=owner)).status_code == 409


async def test_reprocess_follows_the_error_code_not_the_message(stack: Stack, api: httpx.AsyncClient) -> None:
    """A refused image whose message holds a retryable marker: the job stores ``bad_image``, and both
    the API (``can_reprocess``, the POST route) and the workflow's ``reprocess`` update refuse it."""
    sessions = session_factory()
    user_id = new_user(sessions)
    photo_id, job_id = new_photo_job(sessions, get_storage(), user_id)
    assert error_code_from_message(REFUSAL_WITH_MARKER) is not None  # the message alone would allow it
    async with flaky_job(stack, user_id, photo_id, job_id, retouch=refuse_with_marker):
        job = await wait_job_status(sessions, job_id, {"failed"}, timeout_s=60)
        assert (job.error_message, job.error_code) == (REFUSAL_WITH_MARKER, JobErrorCode.bad_image)
        assert credits_and_ledger(sessions, user_id) == (15, 15)

        owner = await _login_id(api, user_id)
        photo = (await api.get("/api/photos", headers=owner)).json()["items"][0]
        assert photo["jobs"][0]["error_message"] == REFUSAL_WITH_MARKER  # the seller reads the message
        assert photo["can_reprocess"] is False
        resp = await api.post(f"/api/photos/{photo_id}/reprocess", headers=owner)
        assert resp.status_code == 409, resp.text
        assert resp.json()["code"] == "not_reprocessable"

        handle = stack.temporal.get_workflow_handle_for(PhotoJobWorkflow.run, f"photo-job-{job_id}")
        with pytest.raises(WorkflowUpdateFailedError) as refused:
            await handle.execute_update(PhotoJobWorkflow.reprocess, ReprocessInput(actor_id=str(user_id)))
        assert isinstance(refused.value.cause, ApplicationError)
        assert refused.value.cause.message == "Questa foto non può essere rielaborata."
        assert await handle.query(PhotoJobWorkflow.status) == "failed"
        job = job_row(sessions, job_id)
        assert (job.status, job.error_code) == ("failed", JobErrorCode.bad_image)
        assert ledger_kinds(sessions, job_id) == ["reserve", "release"]


async def test_reprocess_is_blocked_at_zero_credits(stack: Stack, api: httpx.AsyncClient) -> None:
    sessions = session_factory()
    user_id = new_user(sessions, credits=1)
    photo_id, job_id = new_photo_job(sessions, get_storage(), user_id)
    async with flaky_job(stack, user_id, photo_id, job_id, failures=3):
        await wait_job_status(sessions, job_id, {"failed"}, timeout_s=60)
    owner = await _login_id(api, user_id)
    # spend the last credit on another photo
    resp = await api.post(
        "/api/photos",
        headers=owner,
        files=[("files", ("b.jpg", product_photo_bytes((96, 72)), "image/jpeg"))],
    )
    other_job = resp.json()[0]["jobs"][0]["id"]
    await wait_job_status(sessions, other_job, {"completed"})
    resp = await api.post(f"/api/photos/{photo_id}/reprocess", headers=owner)
    assert resp.status_code == 400
    assert resp.json()["detail"] == "Crediti insufficienti"


async def test_smart_background_costs_two_credits(stack: Stack, api: httpx.AsyncClient) -> None:
    sessions = session_factory()
    user_id = new_user(sessions)
    owner = await _login_id(api, user_id)
    image = product_photo_bytes((160, 120))
    resp = await api.post(
        "/api/photos",
        headers=owner,
        data={"job_type": "smart_backgrounds", "background_category": "nebbia"},
        files=[("files", ("a.jpg", image, "image/jpeg"))],
    )
    assert resp.status_code == 400
    resp = await api.post(
        "/api/photos",
        headers=owner,
        data={"job_type": "smart_backgrounds", "background_category": "home_lifestyle"},
        files=[("files", ("a.jpg", image, "image/jpeg"))],
    )
    assert resp.status_code == 201, resp.text
    job = resp.json()[0]["jobs"][0]
    assert job["job_type"] == "smart_backgrounds" and job["background_category"] == {
        "category": "home_lifestyle"
    }
    await wait_job_status(sessions, job["id"], {"completed"})
    assert credits_and_ledger(sessions, user_id) == (13, 13)
    assert ledger_kinds(sessions, job["id"]) == ["reserve", "charge"]

    poor = new_user(sessions, credits=1)
    resp = await api.post(
        "/api/photos",
        headers=await _login_id(api, poor),
        data={"job_type": "smart_backgrounds", "background_category": "minimal_studio"},
        files=[("files", ("a.jpg", image, "image/jpeg"))],
    )
    assert resp.status_code == 400 and resp.json()["detail"] == "Crediti insufficienti"
    assert credits_and_ledger(sessions, poor) == (1, 1)


async def test_delete_photo_removes_files_and_rows(stack: Stack, api: httpx.AsyncClient) -> None:
    sessions = session_factory()
    user_id = new_user(sessions)
    owner = await _login_id(api, user_id)
    resp = await api.post(
        "/api/photos",
        headers=owner,
        files=[("files", ("a.jpg", product_photo_bytes((96, 72)), "image/jpeg"))],
    )
    photo = resp.json()[0]
    await wait_job_status(sessions, photo["jobs"][0]["id"], {"completed"})
    with sessions() as session:
        row = session.get_one(Photo, uuid.UUID(photo["id"]))
        keys = [(BUCKET_UPLOADS, row.upload_path), (BUCKET_PROCESSED, row.processed_path)]
    storage = get_storage()
    assert all(storage.exists(b, k) for b, k in keys)
    other = await _login_id(api, new_user(sessions))
    assert (await api.delete(f"/api/photos/{photo['id']}", headers=other)).status_code == 404
    assert (await api.delete(f"/api/photos/{photo['id']}", headers=owner)).status_code == 204
    assert not any(storage.exists(b, k) for b, k in keys)
    assert (await api.get("/api/photos", headers=owner)).json()["items"] == []
    await asyncio.sleep(0.5)
    with pytest.raises(Exception):  # noqa: B017  the retention workflow was terminated
        await stack.temporal.get_workflow_handle(f"photo-job-{photo['jobs'][0]['id']}").result()

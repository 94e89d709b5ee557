"""``PhotoJobWorkflow``: one durable workflow per photo job (DESIGN.md, Temporal design).

AI path: reserve credits → retouch activity on the ``retouch`` queue (3 attempts in total, back-off
1 s × attempt; ``BadImageError`` is not retried) → charge → mark completed and notify. On failure the
reservation is released and the job is marked failed with its message. When the reservation fails for
lack of credits, the job waits durably (``waiting_for_credits``) for a ``credits_added`` signal.
"""

from __future__ import annotations

from datetime import timedelta

from temporalio import workflow
from temporalio.common import RetryPolicy
from temporalio.exceptions import ActivityError, ApplicationError

with workflow.unsafe.imports_passed_through():
    from workflows.shared import (
        INSUFFICIENT_CREDITS_ERROR,
        SIGNAL_CREDITS_ADDED,
        TASK_QUEUE_RETOUCH,
        CompleteJobInput,
        CreditsAddedSignal,
        CreditsInput,
        FailJobInput,
        JobOutcome,
        JobStatusInput,
        PhotoJobInput,
        RetouchInput,
        RetouchOutput,
    )

DB_ACTIVITY_TIMEOUT = timedelta(seconds=30)
DB_RETRY = RetryPolicy(initial_interval=timedelta(seconds=1), maximum_interval=timedelta(seconds=30),
                       non_retryable_error_types=[INSUFFICIENT_CREDITS_ERROR])
RETOUCH_TIMEOUT = timedelta(minutes=10)
RETOUCH_RETRY = RetryPolicy(
    initial_interval=timedelta(seconds=1),  # 1 s after attempt 1, 2 s after attempt 2 (SPEC §9)
    backoff_coefficient=2.0,
    maximum_attempts=3,
    non_retryable_error_types=["BadImageError"],
)


def _failure_message(err: BaseException) -> str:
    """The innermost application error's message (what the seller sees), else the error's text."""
    cause: BaseException | None = err
    while isinstance(cause, ActivityError) and cause.cause is not None:
        cause = cause.cause
    return str(getattr(cause, "message", None) or cause or err)


def _error_type(err: BaseException) -> str | None:
    cause = err.cause if isinstance(err, ActivityError) else err
    return cause.type if isinstance(cause, ApplicationError) else None


@workflow.defn
class PhotoJobWorkflow:
    """Runs one photo job from reservation to delivery; see the module docstring."""

    def __init__(self) -> None:
        self._credits_signals = 0
        self._status = "pending"

    @workflow.signal(name=SIGNAL_CREDITS_ADDED)
    def credits_added(self, signal: CreditsAddedSignal) -> None:
        """The owner's balance rose: a job waiting for credits tries its reservation again."""
        self._credits_signals += 1

    @workflow.query
    def status(self) -> str:
        """The job status as the workflow sees it."""
        return self._status

    async def _set_status(self, inp: PhotoJobInput, status: str, *, progress: int | None = None,
                          error: str | None = None) -> None:
        self._status = status
        await workflow.execute_activity(
            "set_job_status", JobStatusInput(inp.job_id, status, progress, error),
            start_to_close_timeout=DB_ACTIVITY_TIMEOUT, retry_policy=DB_RETRY,
        )

    async def _credits(self, name: str, inp: PhotoJobInput, reservation_id: str) -> None:
        await workflow.execute_activity(
            name, CreditsInput(inp.user_id, inp.job_id, reservation_id, inp.cost),
            start_to_close_timeout=DB_ACTIVITY_TIMEOUT, retry_policy=DB_RETRY,
        )

    async def _reserve_or_wait(self, inp: PhotoJobInput, reservation_id: str) -> None:
        """Reserve the job's credits, waiting for ``credits_added`` signals while the balance is short."""
        while True:
            seen = self._credits_signals
            try:
                await self._credits("reserve_credits", inp, reservation_id)
                return
            except ActivityError as err:
                if _error_type(err) != INSUFFICIENT_CREDITS_ERROR:
                    raise
            if self._status != "waiting_for_credits":
                await self._set_status(inp, "waiting_for_credits", progress=0, error="Crediti terminati")
            await workflow.wait_condition(lambda: self._credits_signals > seen)

    @workflow.run
    async def run(self, inp: PhotoJobInput) -> JobOutcome:
        """Process the job; returns its final status (``completed`` or ``failed``)."""
        reservation_id = f"{inp.job_id}:{inp.run}"
        await self._reserve_or_wait(inp, reservation_id)
        await self._set_status(inp, "processing", progress=10)
        try:
            result = await workflow.execute_activity(
                "retouch_photo",
                RetouchInput(inp.job_id, inp.photo_id, inp.user_id, inp.preset, inp.background_category,
                             inp.shadow, inp.brand, inp.category),
                result_type=RetouchOutput,
                task_queue=TASK_QUEUE_RETOUCH,
                start_to_close_timeout=RETOUCH_TIMEOUT,
                retry_policy=RETOUCH_RETRY,
            )
        except ActivityError as err:
            message = _failure_message(err)
            await self._credits("release_credits", inp, reservation_id)
            await workflow.execute_activity(
                "fail_job", FailJobInput(inp.job_id, message),
                start_to_close_timeout=DB_ACTIVITY_TIMEOUT, retry_policy=DB_RETRY,
            )
            self._status = "failed"
            return JobOutcome("failed", message)
        await self._credits("charge_credits", inp, reservation_id)
        await workflow.execute_activity(
            "complete_job", CompleteJobInput(inp.job_id, result),
            start_to_close_timeout=DB_ACTIVITY_TIMEOUT, retry_policy=DB_RETRY,
        )
        self._status = "completed"
        await workflow.wait_condition(workflow.all_handlers_finished)
        return JobOutcome("completed")

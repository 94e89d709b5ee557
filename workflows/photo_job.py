"""``PhotoJobWorkflow``: one durable workflow per photo job (DESIGN.md, Temporal design; SPEC §4).

AI path (``background_removal`` 1 credit, ``smart_backgrounds`` 2): reserve credits → retouch
activity on the ``retouch`` queue (3 attempts in total, back-off 1 s × attempt; ``BadImageError`` is
not retried) → charge → job completed, photo processed, success notification. On failure the
reservation is released and the job is failed with its message.

Human path (``background_removal_human``, 3 credits): reserve → ``pending_human`` → update ``assign``
(72-hour deadline) → update ``start`` → update ``complete`` (charge) or ``reject`` (release). If the
deadline passes first, the job goes back to the pending pool marked overdue and admins are notified.

Until the designer starts it, the seller may withdraw a human job with the ``cancel`` update: the
reservation is released and the job fails with a non-retryable 'annullato dal cliente' message.

Insufficient credits: the job waits durably (``waiting_for_credits``) for a ``credits_added`` signal,
at most 30 days (``WAITING_FOR_CREDITS_DAYS``): then it ends ``failed`` (``waiting_expired``,
reprocessable) and the seller is e-mailed; nothing is charged. The seller may ``cancel`` a waiting job
(to delete its photo).
Every ending without a result carries an Italian message and a :class:`~fotopronta.domain.JobErrorCode`.
A failed job whose code is retryable (:func:`fotopronta.domain.can_reprocess`) can be run again with
the ``reprocess`` update while the workflow keeps it (30 days). 30 days after delivery (or after a
final failure or rejection) the original and processed files are deleted; the rows stay.

Every release of a paid job's credits (AI failure, rejection, cancellation) then resumes the seller's
jobs waiting for credits, in upload order (``resume_waiting_jobs`` activity). A job whose row is gone
(its photo was deleted) makes its activities fail with the non-retryable ``JobGoneError``: the
workflow gives back what it may hold and ends.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any, TypeVar

from temporalio import workflow
from temporalio.common import RetryPolicy
from temporalio.exceptions import ActivityError, ApplicationError
from temporalio.exceptions import TimeoutError as ActivityTimeoutError

with workflow.unsafe.imports_passed_through():
    from activities.contracts import (
        ACTION_REFUSED_ERROR,
        ASSIGNMENT_REFUSED_ERROR,
        BAD_IMAGE_ERROR,
        CANCELLED_BY_SELLER_MESSAGE,
        HUMAN_DEADLINE_HOURS,
        INSUFFICIENT_CREDITS_ERROR,
        JOB_GONE_ERROR,
        PATCH_SEARCH_ATTRIBUTES,
        PHOTO_BUSY_MESSAGE,
        RETENTION_DAYS,
        SA_JOB_STATUS,
        SIGNAL_CREDITS_ADDED,
        WAITING_EXPIRED_MESSAGE,
        WAITING_FOR_CREDITS_DAYS,
        AssignInput,
        AssignJobActivityInput,
        CancelInput,
        CompleteHumanInput,
        CompleteJobInput,
        CreditsAddedSignal,
        CreditsInput,
        FailJobInput,
        HumanJobActivityInput,
        JobOutcome,
        JobStatusInput,
        PhotoJobInput,
        RejectInput,
        ReprocessInput,
        ResumeInput,
        ResumeWaitingInput,
        RetentionInput,
        RetouchInput,
        StartInput,
    )
    from activities.credits import CreditActivities
    from activities.human_jobs import HumanJobActivities
    from activities.jobs import JobActivities
    from activities.retention import RetentionActivities
    from activities.retouch import RetouchActivities
    from fotopronta.domain import CANCELLABLE_STATUSES, JobErrorCode, JobStatus, JobType, can_reprocess

ArgT = TypeVar("ArgT")

PATCH_SELLER_CANCEL = "seller-cancel-before-start"
"""``workflow.patched`` id of the ``cancel`` update: histories that hold a
cancellation carry this marker."""
PATCH_LOCAL_DB_ACTIVITIES = "local-db-activities"
"""``workflow.patched`` id that cuts the orchestration overhead: the short database activities of
:class:`JobActivities` that write the ledger and deliver or fail the job run as local activities in the ``photo-jobs``
worker that runs the workflow, recorded as one marker each, instead of through the task queue
(scheduled/started/completed events and one more workflow task each). ``bench/system/costs.py`` measured 39
history events per AI job before. Histories recorded before the patch replay with regular activities."""
PATCH_RESUME_AFTER_RELEASE = "resume-waiting-after-release"
"""``workflow.patched`` id: after giving a paid job's credits back (AI failure, designer rejection,
seller cancellation) the workflow runs the ``resume_waiting_jobs`` activity, so the seller's jobs
waiting for credits go on in upload order. Histories recorded before it replay without it."""
PATCH_WAITING_ENDS = "waiting-for-credits-ends"
"""``workflow.patched`` id: a job waiting for credits waits at most ``WAITING_FOR_CREDITS_DAYS`` (a
timer), then ends ``failed`` (``waiting_expired``) with an e-mail to the seller. Histories recorded
before it waited without a timer and replay so."""
PATCHES = (
    PATCH_SEARCH_ATTRIBUTES,
    PATCH_SELLER_CANCEL,
    PATCH_LOCAL_DB_ACTIVITIES,
    PATCH_RESUME_AFTER_RELEASE,
    PATCH_WAITING_ENDS,
)
LOCAL_DB_ACTIVITIES: frozenset[Callable[..., None]] = frozenset(
    {
        JobActivities.reserve_credits,
        JobActivities.charge_credits,
        JobActivities.release_credits,
        JobActivities.complete_job,
        JobActivities.fail_job,
    }
)
"""The activities :meth:`PhotoJobWorkflow._activity` runs as local activities (after the patch).
``set_job_status`` stays a regular activity: its input (the status) is what the admin timeline
(``api/job_timeline.py``) shows, and a local activity's input is not kept in the history."""
"""Every ``workflow.patched()`` id this workflow calls. It names the folder its replay histories are
recorded into (``tests/jobs/histories/PhotoJobWorkflow/v<N>-<ids>``); ``tests/jobs/test_replay.py``
checks it against the code. Add a new patch id here (docs/workflows.md "Changing a workflow")."""
DB_ACTIVITY_TIMEOUT = timedelta(seconds=30)
DB_RETRY = RetryPolicy(
    initial_interval=timedelta(seconds=1),
    maximum_interval=timedelta(seconds=30),
    non_retryable_error_types=[INSUFFICIENT_CREDITS_ERROR, ASSIGNMENT_REFUSED_ERROR, ACTION_REFUSED_ERROR],
)
RESUME_TIMEOUT = timedelta(minutes=2)
"""One ``resume_waiting_jobs`` attempt: one ``resume`` update per waiting job, each a reservation."""
RESUME_RETRY = RetryPolicy(initial_interval=timedelta(seconds=1), maximum_attempts=3)
"""Resuming is best effort here: the jobs keep waiting (and the next credit event resumes them) rather
than holding this job's workflow."""
JOB_GONE_MESSAGE = "Lavoro eliminato insieme alla sua foto."
"""``JobOutcome.error_message`` of a workflow that ended because its job row was deleted."""
RETOUCH_TIMEOUT = timedelta(minutes=10)
RETOUCH_HEARTBEAT_TIMEOUT = timedelta(seconds=30)
"""A retouch worker that dies is noticed within this time and the attempt moves to another worker."""
RETOUCH_RETRY = RetryPolicy(
    initial_interval=timedelta(seconds=1),  # waits 1 s after attempt 1, 2 s after attempt 2 (SPEC §9)
    backoff_coefficient=2.0,
    maximum_attempts=3,
    non_retryable_error_types=[BAD_IMAGE_ERROR],
)


def _innermost(err: BaseException) -> BaseException:
    cause: BaseException = err
    while isinstance(cause, ActivityError) and cause.cause is not None:
        cause = cause.cause
    return cause


def _failure(err: BaseException) -> tuple[str, JobErrorCode]:
    """The message the seller sees for a failed retouch, and its code.

    A bad image keeps its Italian message (``bad_image``). A timeout (``timeout``) or any other error
    (``processing_failed``) after the last attempt gets an Italian message that also carries the SPEC
    §4 marker of its code ('processing timeout' / 'server error'); both codes may be reprocessed.
    """
    cause = _innermost(err)
    if isinstance(cause, ApplicationError) and cause.type == BAD_IMAGE_ERROR:
        return cause.message, JobErrorCode.bad_image
    if isinstance(cause, ActivityTimeoutError):
        return (
            "Elaborazione non completata in tempo (processing timeout): puoi riprovare.",
            JobErrorCode.timeout,
        )
    detail = getattr(cause, "message", None) or str(cause)
    return f"Errore elaborazione dopo 3 tentativi (server error): {detail}", JobErrorCode.processing_failed


def _error_type(err: BaseException) -> str | None:
    cause = _innermost(err)
    return cause.type if isinstance(cause, ApplicationError) else None


@workflow.defn
class PhotoJobWorkflow:
    """Runs one photo job from reservation to delivery and retention; see the module docstring."""

    def __init__(self) -> None:
        self._input: PhotoJobInput | None = None
        self._credits_signals = 0
        self._status = JobStatus.pending
        self._error: str | None = None
        self._error_code: JobErrorCode | None = None
        self._run = 1
        self._busy = False
        self._assigned_to: str | None = None
        self._deadline: datetime | None = None
        self._human_outcome: JobStatus | None = None
        self._reprocess_requested = False
        self._reserved = False
        self._cancel_waiting = False

    # -- queries and signals -------------------------------------------------------------------

    @workflow.query
    def status(self) -> str:
        """The job status as the workflow sees it."""
        return self._status

    @workflow.signal(name=SIGNAL_CREDITS_ADDED)
    def credits_added(self, signal: CreditsAddedSignal) -> None:  # noqa: ARG002
        """The owner's balance rose: a job waiting for credits tries its reservation again."""
        self._credits_signals += 1

    # -- helpers -------------------------------------------------------------------------------

    @property
    def _inp(self) -> PhotoJobInput:
        assert self._input is not None
        return self._input

    @property
    def _reservation_id(self) -> str:
        return f"{self._inp.job_id}:{self._run}"

    def _publish_status(self) -> None:
        """Show the current status in the Temporal UI: the ``JobStatus`` search attribute (a workflow
        command, behind ``workflow.patched`` so histories recorded before it replay; only when the
        workflow was started with it, i.e. the namespace has it registered) and the workflow's
        current details."""
        registered = workflow.info().typed_search_attributes.get(SA_JOB_STATUS) is not None
        if workflow.patched(PATCH_SEARCH_ATTRIBUTES) and registered:
            workflow.upsert_search_attributes([SA_JOB_STATUS.value_set(self._status)])
        details = f"Stato: {self._status}"
        if self._error:
            details += f"\n\nErrore: {self._error}"
        workflow.set_current_details(details)

    async def _activity(self, method: Callable[[Any, ArgT], None], arg: ArgT) -> None:
        """Run a database activity of the ``photo-jobs`` queue (its method, so its registered name).

        :class:`JobActivities` methods (a few idempotent row writes: Temporal's docs suit local
        activities to short, idempotent work, and a re-run after a worker crash books nothing twice,
        by the ledger's idempotency keys) run as local activities behind
        ``workflow.patched(PATCH_LOCAL_DB_ACTIVITIES)``; the others as regular activities."""
        if method in LOCAL_DB_ACTIVITIES and workflow.patched(PATCH_LOCAL_DB_ACTIVITIES):
            await workflow.execute_local_activity_method(
                method, arg, start_to_close_timeout=DB_ACTIVITY_TIMEOUT, retry_policy=DB_RETRY
            )
            return
        await workflow.execute_activity_method(
            method, arg, start_to_close_timeout=DB_ACTIVITY_TIMEOUT, retry_policy=DB_RETRY
        )

    async def _set_status(
        self, status: JobStatus, *, progress: int | None = None, error: str | None = None
    ) -> None:
        self._status = status
        self._error, self._error_code = error, None
        self._publish_status()
        await self._activity(
            JobActivities.set_job_status, JobStatusInput(self._inp.job_id, status, progress, error)
        )

    async def _credits(self, method: Callable[[Any, CreditsInput], None]) -> None:
        inp = self._inp
        await self._activity(method, CreditsInput(inp.user_id, inp.job_id, self._reservation_id, inp.cost))

    async def _resume_waiting(self) -> None:
        """After a paid job gave its credits back (AI failure, designer rejection, seller
        cancellation): let the seller's jobs waiting for credits go on, oldest upload first, through
        the ``resume_waiting_jobs`` activity (behind ``workflow.patched(PATCH_RESUME_AFTER_RELEASE)``).
        A failed resume is logged only: those jobs keep waiting for the next credit event."""
        if self._inp.cost <= 0 or not workflow.patched(PATCH_RESUME_AFTER_RELEASE):
            return
        try:
            await workflow.execute_activity_method(
                CreditActivities.resume_waiting_jobs,
                ResumeWaitingInput(self._inp.user_id),
                start_to_close_timeout=RESUME_TIMEOUT,
                retry_policy=RESUME_RETRY,
            )
        except ActivityError as err:
            workflow.logger.warning("waiting jobs of %s not resumed: %s", self._inp.user_id, err)

    async def _reserve_or_wait(self) -> bool:
        """Reserve the job's credits, waiting while the balance is short until a ``credits_added``
        signal (then retry) or a ``resume`` update (which reserves itself) arrives. ``True`` once the
        credits are held; ``False`` when the wait ended without them (the job is then ``failed``): the
        seller cancelled it (``cancel`` update, to delete the photo) or, after
        ``WAITING_FOR_CREDITS_DAYS`` (behind ``workflow.patched(PATCH_WAITING_ENDS)``), it expired."""
        self._reserved = False
        deadline: datetime | None = None
        while True:
            seen = self._credits_signals
            try:
                await self._credits(JobActivities.reserve_credits)
                return True
            except (ActivityError, ApplicationError) as err:  # a local activity's failure is not wrapped
                if _error_type(err) != INSUFFICIENT_CREDITS_ERROR:
                    raise
            if self._status != JobStatus.waiting_for_credits:
                await self._set_status(JobStatus.waiting_for_credits, progress=0, error="Crediti terminati")
            if deadline is None and workflow.patched(PATCH_WAITING_ENDS):
                deadline = workflow.now() + timedelta(days=WAITING_FOR_CREDITS_DAYS)
            timeout = None if deadline is None else max(deadline - workflow.now(), timedelta(seconds=1))
            try:
                await workflow.wait_condition(
                    lambda seen=seen: (  # type: ignore[misc]
                        self._reserved or self._credits_signals > seen or self._cancel_waiting
                    ),
                    timeout=timeout,
                )
            except TimeoutError:  # wait_condition's timeout (asyncio.TimeoutError is TimeoutError)
                await workflow.wait_condition(lambda: not self._busy)  # a resume update finishing
                if self._reserved:
                    return True
                await self._activity(
                    JobActivities.end_waiting_for_credits,
                    JobStatusInput(self._inp.job_id, JobStatus.failed, None, WAITING_EXPIRED_MESSAGE),
                )
                self._status, self._error = JobStatus.failed, WAITING_EXPIRED_MESSAGE
                self._error_code = JobErrorCode.waiting_expired
                self._publish_status()
                return False
            if self._reserved:
                return True
            if self._cancel_waiting:
                await self._activity(
                    HumanJobActivities.cancel_human_job, HumanJobActivityInput(self._inp.job_id)
                )
                self._status, self._error = JobStatus.failed, CANCELLED_BY_SELLER_MESSAGE
                self._error_code = JobErrorCode.cancelled_by_client
                self._publish_status()
                return False

    @workflow.update
    async def resume(self, inp: ResumeInput) -> bool:  # noqa: ARG002
        """Retry the reservation of a job waiting for credits, now; ``True`` when the job holds its
        credits (or was not waiting), ``False`` when the balance is still short. The API calls it job
        after job in upload order, so earlier uploads get the credits first."""
        if self._status != JobStatus.waiting_for_credits or self._reserved:
            return True
        if self._busy:
            return False
        self._busy = True
        try:
            try:
                await self._credits(JobActivities.reserve_credits)
            except (ActivityError, ApplicationError) as err:  # a local activity's failure is not wrapped
                if _error_type(err) != INSUFFICIENT_CREDITS_ERROR:
                    raise
                return False
            self._reserved = True
            return True
        finally:
            self._busy = False

    async def _exclusive(self) -> None:
        """Mark an update handler as running; refuse a second one at the same time."""
        if self._busy:
            raise ApplicationError(
                "Un'altra operazione su questo lavoro è in corso, riprova.", type=ACTION_REFUSED_ERROR
            )
        self._busy = True

    # -- AI path -------------------------------------------------------------------------------

    def _unpaid_outcome(self) -> JobOutcome:
        """The outcome of a job whose wait for credits ended without them (cancelled or expired)."""
        return JobOutcome(JobStatus.failed, self._error, self._error_code)

    async def _ai_path(self) -> JobOutcome:
        inp = self._inp
        if not await self._reserve_or_wait():
            return self._unpaid_outcome()
        await self._set_status(JobStatus.processing, progress=10)
        try:
            result = await workflow.execute_activity_method(
                RetouchActivities.retouch_photo,
                RetouchInput(
                    inp.job_id,
                    inp.photo_id,
                    inp.user_id,
                    inp.preset,
                    inp.background_category,
                    inp.shadow,
                    inp.brand,
                    inp.category,
                    cutout=inp.cutout,
                ),
                task_queue=inp.retouch_task_queue,
                start_to_close_timeout=RETOUCH_TIMEOUT,
                heartbeat_timeout=RETOUCH_HEARTBEAT_TIMEOUT,
                retry_policy=RETOUCH_RETRY,
            )
        except ActivityError as err:
            if _error_type(err) == JOB_GONE_ERROR:
                raise  # the photo was deleted: run() ends the workflow
            message, code = _failure(err)
            await self._credits(JobActivities.release_credits)
            await self._activity(
                JobActivities.fail_job,
                FailJobInput(job_id=inp.job_id, error_message=message, error_code=code),
            )
            self._status, self._error, self._error_code = JobStatus.failed, message, code
            self._publish_status()
            await self._resume_waiting()
            return JobOutcome(JobStatus.failed, message, code)
        await self._credits(JobActivities.charge_credits)
        await self._activity(JobActivities.complete_job, CompleteJobInput(inp.job_id, result))
        self._status, self._error, self._error_code = JobStatus.completed, None, None
        self._publish_status()
        return JobOutcome(JobStatus.completed)

    # -- human path ----------------------------------------------------------------------------

    async def _human_path(self) -> JobOutcome:
        if not await self._reserve_or_wait():
            return self._unpaid_outcome()
        await self._set_status(JobStatus.pending_human, progress=0)
        while True:
            await workflow.wait_condition(
                lambda: self._assigned_to is not None or self._human_outcome is not None
            )
            if self._human_outcome is not None:  # cancelled by the seller while in the pool
                break
            assert self._deadline is not None
            remaining = max(self._deadline - workflow.now(), timedelta(seconds=1))
            try:
                await workflow.wait_condition(lambda: self._human_outcome is not None, timeout=remaining)
                break
            except TimeoutError:  # wait_condition's timeout (asyncio.TimeoutError is TimeoutError)
                await workflow.wait_condition(lambda: not self._busy)
                if self._human_outcome is not None:
                    break
                await self._activity(
                    HumanJobActivities.escalate_overdue_job, HumanJobActivityInput(self._inp.job_id)
                )
                self._assigned_to, self._deadline, self._status = None, None, JobStatus.pending_human
                self._publish_status()
        assert self._human_outcome is not None
        return JobOutcome(self._human_outcome, self._error, self._error_code)

    @workflow.update
    async def assign(self, inp: AssignInput) -> str:
        """Assign a ``pending_human`` job to a designer with free capacity; returns the deadline (ISO).

        Raises:
            ApplicationError: ``AssignmentRefusedError`` (designer inactive, not a designer, or at
                ``max_concurrent_jobs``) or ``ActionRefusedError`` (job not pending), message in Italian.
        """
        self._validate_assign(inp)
        await self._exclusive()
        try:
            deadline = workflow.now() + timedelta(hours=HUMAN_DEADLINE_HOURS)
            try:
                await self._activity(
                    HumanJobActivities.assign_job,
                    AssignJobActivityInput(self._inp.job_id, inp.designer_id, deadline.isoformat()),
                )
            except ActivityError as err:
                cause = _innermost(err)
                raise ApplicationError(
                    getattr(cause, "message", str(cause)), type=ASSIGNMENT_REFUSED_ERROR
                ) from None
            self._assigned_to, self._deadline = inp.designer_id, deadline
            self._status = JobStatus.assigned_to_graphic
            self._publish_status()
            return deadline.isoformat()
        finally:
            self._busy = False

    @assign.validator
    def _validate_assign(self, inp: AssignInput) -> None:  # noqa: ARG002
        if self._status != JobStatus.pending_human or self._assigned_to is not None:
            raise ApplicationError("Il lavoro non è in attesa di assegnazione.", type=ACTION_REFUSED_ERROR)

    @workflow.update
    async def start(self, inp: StartInput) -> None:
        """The assigned designer starts the job (``in_progress_human``, ``started_at``)."""
        self._validate_start(inp)
        await self._exclusive()
        try:
            await self._activity(HumanJobActivities.start_human_job, HumanJobActivityInput(self._inp.job_id))
            self._status = JobStatus.in_progress_human
            self._publish_status()
        finally:
            self._busy = False

    @start.validator
    def _validate_start(self, inp: StartInput) -> None:
        if self._status != JobStatus.assigned_to_graphic:
            raise ApplicationError("Il lavoro non è assegnato.", type=ACTION_REFUSED_ERROR)
        if inp.actor_id != self._assigned_to:
            raise ApplicationError("Il lavoro è assegnato a un altro grafico.", type=ACTION_REFUSED_ERROR)

    def _validate_in_progress(self, actor_id: str) -> None:
        if self._status != JobStatus.in_progress_human:
            raise ApplicationError("Il lavoro non è in lavorazione.", type=ACTION_REFUSED_ERROR)
        if actor_id != self._assigned_to:
            raise ApplicationError("Il lavoro è assegnato a un altro grafico.", type=ACTION_REFUSED_ERROR)

    @workflow.update
    async def complete(self, inp: CompleteHumanInput) -> None:
        """The designer delivers the result: charge the credits, job ``completed_human``, photo
        processed, success notification."""
        self._validate_complete(inp)
        await self._exclusive()
        try:
            await self._credits(JobActivities.charge_credits)
            await self._activity(
                HumanJobActivities.complete_human_job,
                HumanJobActivityInput(self._inp.job_id, inp.result_key, inp.notes),
            )
            self._status, self._error, self._error_code = JobStatus.completed_human, None, None
            self._human_outcome = JobStatus.completed_human
            self._publish_status()
        finally:
            self._busy = False

    @complete.validator
    def _validate_complete(self, inp: CompleteHumanInput) -> None:
        self._validate_in_progress(inp.actor_id)

    @workflow.update
    async def reject(self, inp: RejectInput) -> None:
        """The designer rejects the job with a reason: credits released, job ``rejected_human``,
        warning notification with the reason."""
        self._validate_reject(inp)
        await self._exclusive()
        try:
            await self._credits(JobActivities.release_credits)
            await self._activity(
                HumanJobActivities.reject_human_job, HumanJobActivityInput(self._inp.job_id, notes=inp.notes)
            )
            self._status, self._error = JobStatus.rejected_human, inp.notes
            self._error_code = JobErrorCode.rejected
            self._human_outcome = JobStatus.rejected_human
            self._publish_status()
            await self._resume_waiting()
        finally:
            self._busy = False

    @reject.validator
    def _validate_reject(self, inp: RejectInput) -> None:
        self._validate_in_progress(inp.actor_id)

    @workflow.update
    async def cancel(self, inp: CancelInput) -> None:
        """The seller cancels a job queued for designers before a designer starts it: the reserved
        credits are released (ledger ``release``) and the job ends ``failed`` with
        :data:`CANCELLED_BY_SELLER_MESSAGE`, so the photo can be deleted. A job of any type waiting
        for credits is cancelled the same way, with nothing to release (:meth:`_cancel_while_waiting`).

        Raises:
            ApplicationError: ``ActionRefusedError`` with the SPEC's 'La foto è in lavorazione'
                message once a designer has started the job (or when it is not a queued human job).
        """
        self._validate_cancel(inp)
        if self._status == JobStatus.waiting_for_credits:
            await self._cancel_while_waiting()
            return
        await self._exclusive()
        try:
            # Marks the histories that hold a cancellation; histories recorded before the update existed
            # never received this update, so their replay is unchanged (tests/jobs/test_replay.py).
            workflow.patched(PATCH_SELLER_CANCEL)
            await self._credits(JobActivities.release_credits)
            await self._activity(HumanJobActivities.cancel_human_job, HumanJobActivityInput(self._inp.job_id))
            self._status, self._error = JobStatus.failed, CANCELLED_BY_SELLER_MESSAGE
            self._error_code = JobErrorCode.cancelled_by_client
            self._assigned_to, self._deadline = None, None
            self._human_outcome = JobStatus.failed
            await self._resume_waiting()
        finally:
            self._busy = False

    async def _cancel_while_waiting(self) -> None:
        """The seller cancels a job waiting for credits (any type; nothing is reserved, nothing is
        charged): the wait in :meth:`_reserve_or_wait` ends the job ``failed``
        (``cancelled_by_client``), and this returns once it has. Refused when a ``resume`` is
        reserving right now, or when the credits arrived first (the job then runs)."""
        if self._busy:
            raise ApplicationError(
                "Un'altra operazione su questo lavoro è in corso, riprova.", type=ACTION_REFUSED_ERROR
            )
        self._cancel_waiting = True
        await workflow.wait_condition(lambda: self._status != JobStatus.waiting_for_credits)
        if self._error_code != JobErrorCode.cancelled_by_client:
            raise ApplicationError(PHOTO_BUSY_MESSAGE, type=ACTION_REFUSED_ERROR)

    @cancel.validator
    def _validate_cancel(self, inp: CancelInput) -> None:  # noqa: ARG002
        if self._status == JobStatus.waiting_for_credits and not self._reserved:
            return
        if (
            self._inp.job_type != JobType.background_removal_human
            or self._status not in CANCELLABLE_STATUSES
            or self._human_outcome is not None
        ):
            raise ApplicationError(PHOTO_BUSY_MESSAGE, type=ACTION_REFUSED_ERROR)

    # -- reprocess -----------------------------------------------------------------------------

    @workflow.update
    async def reprocess(self, inp: ReprocessInput) -> None:
        """Run a failed job again (SPEC §4): status back to ``pending`` with error, code and times
        cleared; the new run reserves credits again and is charged only on success. Refused (validator)
        unless :func:`fotopronta.domain.can_reprocess` allows the job's status and error code."""
        self._validate_reprocess(inp)
        await self._exclusive()
        try:
            self._run += 1
            await self._set_status(JobStatus.pending, progress=0)
            self._reprocess_requested = True
        finally:
            self._busy = False

    @reprocess.validator
    def _validate_reprocess(self, inp: ReprocessInput) -> None:  # noqa: ARG002
        if not can_reprocess(self._status, self._error_code, self._error):
            raise ApplicationError("Questa foto non può essere rielaborata.", type=ACTION_REFUSED_ERROR)

    # -- run -----------------------------------------------------------------------------------

    @workflow.run
    async def run(self, inp: PhotoJobInput) -> JobOutcome:
        """Process the job, keep a failed one open for reprocessing, then apply retention.

        Returns the final :class:`JobOutcome` (``completed``, ``completed_human``, ``failed`` or
        ``rejected_human``).
        """
        self._input = inp
        self._run = inp.run
        try:
            return await self._run_job(inp)
        except (ActivityError, ApplicationError) as err:  # a local activity's failure is not wrapped
            if _error_type(err) != JOB_GONE_ERROR:
                raise
        # the photo was deleted under the job (its rows are gone): give back what this run may hold
        # (a no-op when nothing is) and end, instead of failing on every later step
        workflow.logger.warning("job %s: row gone, workflow ends", inp.job_id)
        self._status, self._error, self._error_code = (
            JobStatus.failed,
            JOB_GONE_MESSAGE,
            JobErrorCode.photo_deleted,
        )
        self._publish_status()
        try:
            await self._credits(JobActivities.release_credits)
        except (ActivityError, ApplicationError) as err:  # the owner's row is gone too
            workflow.logger.warning("job %s: nothing released: %s", inp.job_id, err)
        else:
            await self._resume_waiting()
        await workflow.wait_condition(lambda: not self._busy)
        return JobOutcome(JobStatus.failed, JOB_GONE_MESSAGE, JobErrorCode.photo_deleted)

    async def _run_job(self, inp: PhotoJobInput) -> JobOutcome:
        """:meth:`run`'s body: the job's path, the reprocess wait, then retention."""
        retention = timedelta(days=RETENTION_DAYS)
        while True:
            human = inp.job_type == JobType.background_removal_human
            outcome = await (self._human_path() if human else self._ai_path())
            if not can_reprocess(outcome.status, outcome.error_code, outcome.error_message):
                await workflow.sleep(retention)
                break
            try:
                await workflow.wait_condition(lambda: self._reprocess_requested, timeout=retention)
            except TimeoutError:  # wait_condition's timeout (asyncio.TimeoutError is TimeoutError)
                break
            self._reprocess_requested = False
        await workflow.wait_condition(lambda: not self._busy)
        await self._activity(RetentionActivities.delete_photo_files, RetentionInput(inp.job_id))
        await workflow.wait_condition(workflow.all_handlers_finished)
        return outcome

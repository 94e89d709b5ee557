"""``WebhookDeliveryWorkflow``: one event to one endpoint, retried for about three days; and the
dispatcher that starts one per delivery.

Each delivery (``webhook_deliveries`` row, inserted by :func:`activities.webhooks.emit_job_event` in
the transaction that changed the job) gets its own workflow, id ``webhook-delivery-{id}``
(:func:`activities.contracts.workflow_id_for_delivery`), so its attempts and timers stay out of the
photo's ``PhotoJobWorkflow`` history, and the workflow survives worker restarts and Temporal pauses.
The workflow runs the ``deliver_webhook`` activity, then sleeps the schedule's next wait
(:data:`activities.contracts.WEBHOOK_RETRY_SCHEDULE_S`, or the receiver's longer ``Retry-After``) and
tries again, until an attempt succeeds, is refused for good, or the schedule runs out. The signal
``retry_now`` ('Reinvia' in the app or ``POST /v1/webhook-deliveries/{id}/retry``) cuts the wait short.

:func:`workflows.webhook_dispatch.dispatch_forever` (run by the ``photo-jobs`` worker beside the job reconciler) starts the
workflow of every delivery not yet dispatched, at once when this process committed one and every few
seconds in any case; the deterministic id makes a second start (another worker, a retry after a crash
between the start and the mark) a no-op.
"""

from __future__ import annotations

import asyncio
import contextlib
from datetime import timedelta

from temporalio import workflow
from temporalio.common import RetryPolicy

with workflow.unsafe.imports_passed_through():
    from activities.contracts import (
        SIGNAL_WEBHOOK_RETRY_NOW,
        WEBHOOK_RETRY_SCHEDULE_S,
        DeliverWebhookInput,
        DeliverWebhookOutput,
        WebhookDeliveryInput,
    )

PATCHES: tuple[str, ...] = ()
"""Every ``workflow.patched()`` id this workflow calls (none yet)."""
DELIVER_TIMEOUT = timedelta(seconds=60)
"""The activity's start-to-close timeout: the 15 s request plus the database writes around it."""


@workflow.defn
class WebhookDeliveryWorkflow:
    """Delivers one webhook delivery; see the module docstring."""

    def __init__(self) -> None:
        self._retry_now = False

    @workflow.signal(name=SIGNAL_WEBHOOK_RETRY_NOW)
    def retry_now(self) -> None:
        """Attempt now instead of at the next scheduled time."""
        self._retry_now = True

    @workflow.run
    async def run(self, inp: WebhookDeliveryInput) -> str:
        """Attempt on the schedule; returns the last outcome (``succeeded``, ``stop``, or ``retry`` when
        the schedule ran out). A ``manual`` run makes one attempt."""
        schedule = (0,) if inp.manual else WEBHOOK_RETRY_SCHEDULE_S
        wait = 0
        outcome = "retry"
        for index in range(len(schedule)):
            if wait > 0:
                with contextlib.suppress(asyncio.TimeoutError):
                    await workflow.wait_condition(lambda: self._retry_now, timeout=timedelta(seconds=wait))
            self._retry_now = False
            next_wait = schedule[index + 1] if index + 1 < len(schedule) else None
            out = await workflow.execute_activity(
                "deliver_webhook",
                DeliverWebhookInput(
                    delivery_id=inp.delivery_id, attempt=index + 1, next_wait_s=next_wait, manual=inp.manual
                ),
                result_type=DeliverWebhookOutput,
                start_to_close_timeout=DELIVER_TIMEOUT,
                retry_policy=RetryPolicy(
                    initial_interval=timedelta(seconds=2), maximum_interval=timedelta(minutes=1)
                ),
            )
            outcome = out.outcome
            if outcome != "retry" or out.retry_after_s is None:
                break
            wait = out.retry_after_s
        return outcome

"""``CreditExpiryWorkflow``: credits expire 365 days after their grant (SPEC §1 terms, §9).

One long-lived workflow (id ``credit-expiry``, started by the worker) books ledger ``expire``
entries for every grant whose ``expires_at`` has passed, then sleeps on a durable timer until the next
grant expires. Every grant is valid at least 365 days, so sleeping until ``min(next expiry, now +
365 days)`` never misses a grant made while asleep. It continues as new every
``ITERATIONS_PER_RUN`` wake-ups to keep its history short.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from temporalio import workflow
from temporalio.common import RetryPolicy

with workflow.unsafe.imports_passed_through():
    from activities.contracts import CREDIT_VALIDITY_DAYS, ExpireCreditsInput
    from activities.retention import RetentionActivities

CREDIT_EXPIRY_WORKFLOW_ID = "credit-expiry"
ITERATIONS_PER_RUN = 100
PATCHES: tuple[str, ...] = ()
"""Every ``workflow.patched()`` id this workflow calls (none yet); names the folder of its replay
histories (``tests/jobs/histories/CreditExpiryWorkflow/v<N>-<ids>``, docs/workflows.md "Changing a workflow")."""


@dataclass
class CreditExpiryInput:
    """Input of :class:`CreditExpiryWorkflow` (no fields yet; kept for compatible additions)."""


@workflow.defn
class CreditExpiryWorkflow:
    """Expires credits at their grant's expiry; see the module docstring."""

    @workflow.run
    async def run(self, inp: CreditExpiryInput) -> None:
        """Loop: expire what is due, sleep until the next expiry; continue as new periodically."""
        for _ in range(ITERATIONS_PER_RUN):
            out = await workflow.execute_activity_method(
                RetentionActivities.expire_credits,
                ExpireCreditsInput(as_of=workflow.now().isoformat()),
                start_to_close_timeout=timedelta(minutes=5),
                retry_policy=RetryPolicy(
                    initial_interval=timedelta(seconds=5), maximum_interval=timedelta(minutes=5)
                ),
            )
            now = workflow.now()
            wake = now + timedelta(days=CREDIT_VALIDITY_DAYS)
            if out.next_expiry:
                wake = min(wake, datetime.fromisoformat(out.next_expiry))
            await workflow.sleep(max(wake - now, timedelta(seconds=1)))
        workflow.continue_as_new(inp)

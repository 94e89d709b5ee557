"""The dispatcher of webhook deliveries: starts one ``WebhookDeliveryWorkflow`` per delivery
(:mod:`workflows.webhook_delivery`)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from datetime import UTC, datetime

from sqlalchemy import select, update
from sqlalchemy.orm import Session, sessionmaker
from temporalio.client import Client
from temporalio.common import WorkflowIDReusePolicy
from temporalio.exceptions import WorkflowAlreadyStartedError

from activities.contracts import TASK_QUEUE_JOBS, WebhookDeliveryInput, workflow_id_for_delivery
from fotopronta import webhooks
from fotopronta.models import WebhookDelivery
from workflows.webhook_delivery import WebhookDeliveryWorkflow

log = logging.getLogger("fotopronta.webhooks")


async def dispatch_pending(temporal: Client, sessions: sessionmaker[Session], *, limit: int = 200) -> int:
    """Start the workflow of every delivery not dispatched yet (oldest first, at most ``limit``) and
    mark them dispatched; returns how many were marked. A start that finds the workflow already there
    counts as started."""

    def pending() -> list[str]:
        with sessions() as session:
            rows = session.execute(
                select(WebhookDelivery.id)
                .where(WebhookDelivery.dispatched_at.is_(None))
                .order_by(WebhookDelivery.created_at)
                .limit(limit)
            ).scalars()
            return [str(r) for r in rows]

    ids = await asyncio.to_thread(pending)
    started: list[str] = []
    for delivery_id in ids:
        with contextlib.suppress(WorkflowAlreadyStartedError):
            await temporal.start_workflow(
                WebhookDeliveryWorkflow.run,
                WebhookDeliveryInput(delivery_id=delivery_id),
                id=workflow_id_for_delivery(delivery_id),
                task_queue=TASK_QUEUE_JOBS,
                id_reuse_policy=WorkflowIDReusePolicy.REJECT_DUPLICATE,
            )
        started.append(delivery_id)

    def mark() -> None:
        with sessions.begin() as session:
            session.execute(
                update(WebhookDelivery)
                .where(WebhookDelivery.id.in_(started))
                .values(dispatched_at=datetime.now(UTC))
            )

    if started:
        await asyncio.to_thread(mark)
    return len(started)


async def dispatch_forever(
    temporal: Client, sessions: sessionmaker[Session], *, stop: asyncio.Event, interval_s: float = 2.0
) -> None:
    """Run :func:`dispatch_pending` whenever this process commits new deliveries
    (:func:`fotopronta.webhooks.notify_dispatcher`) and every ``interval_s`` seconds, until ``stop``
    is set; a pass that fails (Temporal or the database down) is logged and retried."""
    loop = asyncio.get_running_loop()
    woken = asyncio.Event()

    def wake() -> None:
        loop.call_soon_threadsafe(woken.set)

    remove = webhooks.add_dispatcher_waker(wake)
    try:
        while not stop.is_set():
            woken.clear()
            try:
                count = await dispatch_pending(temporal, sessions)
                if count:
                    log.info("webhooks: %d delivery workflow(s) started", count)
            except Exception as exc:
                log.warning("webhook dispatch failed: %s: %s", exc.__class__.__name__, exc)
            stopper = asyncio.ensure_future(stop.wait())
            waker = asyncio.ensure_future(woken.wait())
            _, still = await asyncio.wait(
                {stopper, waker}, timeout=interval_s, return_when=asyncio.FIRST_COMPLETED
            )
            for task in still:
                task.cancel()
    finally:
        remove()

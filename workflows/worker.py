"""The Temporal worker: ``python -m workflows.worker [--queues photo-jobs,retouch]``.

By default one process serves both task queues. In production, scale image work by starting more
workers with ``--queues retouch`` on their own machines.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import signal
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from sqlalchemy.orm import Session, sessionmaker
from temporalio.client import Client
from temporalio.runtime import PrometheusConfig, Runtime, TelemetryConfig
from temporalio.worker import Worker

from activities.contracts import TASK_QUEUE_JOBS, TASK_QUEUE_RETOUCH
from fotopronta.db import session_factory
from fotopronta.logs import configure_logging
from fotopronta.settings import Settings, get_settings
from fotopronta.storage import ObjectStorage, get_storage
from workflows.credit_expiry import CREDIT_EXPIRY_WORKFLOW_ID, CreditExpiryInput, CreditExpiryWorkflow
from workflows.photo_job import PhotoJobWorkflow
from workflows.webhook_delivery import WebhookDeliveryWorkflow

log = logging.getLogger("fotopronta.worker")


def build_workers(
    client: Client,
    settings: Settings,
    queues: set[str],
    *,
    retouch_queue: str = TASK_QUEUE_RETOUCH,
    sessions: sessionmaker[Session] | None = None,
    storage: ObjectStorage | None = None,
) -> list[Worker]:
    """Create the workers for ``queues`` (``photo-jobs`` and/or ``retouch``).

    The jobs worker runs the workflows and the database activities; the retouch worker (on
    ``retouch_queue``) runs at most 2 image activities at once in a thread pool (2-core machines;
    onnxruntime uses the cores itself).
    """
    from activities.credits import CreditActivities
    from activities.human_jobs import HumanJobActivities
    from activities.jobs import JobActivities
    from activities.retention import RetentionActivities
    from activities.webhooks import WebhookActivities

    sessions = sessions or session_factory()
    storage = storage or get_storage(settings)
    workers: list[Worker] = []
    if TASK_QUEUE_JOBS in queues:
        jobs = JobActivities(sessions)
        human = HumanJobActivities(sessions)
        retention = RetentionActivities(sessions, storage)
        credits = CreditActivities(sessions)
        hooks = WebhookActivities(sessions)
        workers.append(
            Worker(
                client,
                task_queue=TASK_QUEUE_JOBS,
                workflows=[PhotoJobWorkflow, CreditExpiryWorkflow, WebhookDeliveryWorkflow],
                activities=[
                    jobs.reserve_credits,
                    jobs.charge_credits,
                    jobs.release_credits,
                    jobs.set_job_status,
                    jobs.complete_job,
                    jobs.fail_job,
                    jobs.end_waiting_for_credits,
                    human.assign_job,
                    human.start_human_job,
                    human.complete_human_job,
                    human.reject_human_job,
                    human.cancel_human_job,
                    human.escalate_overdue_job,
                    retention.delete_photo_files,
                    retention.expire_credits,
                    credits.resume_waiting_jobs,
                    hooks.deliver_webhook,
                ],
                activity_executor=ThreadPoolExecutor(max_workers=8, thread_name_prefix="jobs-activity"),
                max_concurrent_activities=8,
            )
        )
    if TASK_QUEUE_RETOUCH in queues:
        from activities.retouch import RetouchActivities
        from retouch.runtime import RUNTIME, tune_malloc

        tune_malloc(RUNTIME)  # before the activity threads allocate

        # the model directory is passed down; rembg's own U2NET_HOME, when set, still wins
        models_dir = Path(RUNTIME.models_dir) if RUNTIME.models_dir else settings.u2net_home
        retouch = RetouchActivities(sessions, storage, settings.rembg_model, models_dir)
        # one photo in flight per network slot (one core each): the pipeline's best throughput
        # (bench/pipeline/speed.py); more workers on more machines scale it further
        workers.append(
            Worker(
                client,
                task_queue=retouch_queue,
                activities=[retouch.retouch_photo],
                activity_executor=ThreadPoolExecutor(
                    max_workers=RUNTIME.network_slots, thread_name_prefix="retouch-activity"
                ),
                max_concurrent_activities=RUNTIME.network_slots,
            )
        )
    return workers


async def ensure_credit_expiry(client: Client) -> None:
    """Start the single ``credit-expiry`` workflow unless it is already running."""
    from temporalio.common import WorkflowIDConflictPolicy

    await client.start_workflow(
        CreditExpiryWorkflow.run,
        CreditExpiryInput(),
        id=CREDIT_EXPIRY_WORKFLOW_ID,
        task_queue=TASK_QUEUE_JOBS,
        id_conflict_policy=WorkflowIDConflictPolicy.USE_EXISTING,
    )


def sdk_runtime(settings: Settings) -> Runtime | None:
    """A Temporal SDK runtime exporting Prometheus metrics on ``worker_metrics_bind`` (e.g.
    ``0.0.0.0:9464``: task-queue polls, schedule-to-start latency, activity and workflow task
    counts); ``None`` (the default runtime, no metrics) when the setting is empty."""
    if not settings.worker_metrics_bind:
        return None
    return Runtime(
        telemetry=TelemetryConfig(metrics=PrometheusConfig(bind_address=settings.worker_metrics_bind))
    )


async def run_worker(queues: set[str] | None = None, *, retouch_queue: str = TASK_QUEUE_RETOUCH) -> None:
    """Connect to Temporal and run the workers until SIGINT/SIGTERM; the ``photo-jobs`` worker also
    reconciles pending jobs without a workflow, at start-up and every ``reconcile_interval_s``, and
    starts the workflow of each new webhook delivery (:mod:`workflows.webhook_dispatch`)."""
    settings = get_settings()
    client = await Client.connect(
        settings.temporal_address, namespace=settings.temporal_namespace, runtime=sdk_runtime(settings)
    )
    queues = queues or {TASK_QUEUE_JOBS, TASK_QUEUE_RETOUCH}
    workers = build_workers(client, settings, queues, retouch_queue=retouch_queue)
    if TASK_QUEUE_JOBS in queues:
        await ensure_credit_expiry(client)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    log.info("worker on %s, queues %s", settings.temporal_address, sorted(w.task_queue for w in workers))
    async with _all(workers):
        if TASK_QUEUE_JOBS in queues:
            from workflows.starter import reconcile_forever
            from workflows.webhook_dispatch import dispatch_forever

            dispatcher = asyncio.create_task(dispatch_forever(client, session_factory(), stop=stop))
            await reconcile_forever(
                client,
                session_factory(),
                interval_s=settings.reconcile_interval_s,
                min_age_s=settings.reconcile_min_age_s,
                orphans_interval_s=settings.reconcile_orphans_interval_s,
                stop=stop,
            )
            await dispatcher
        await stop.wait()


class _all:
    """Run several workers as one async context manager."""

    def __init__(self, workers: list[Worker]) -> None:
        self.workers = workers

    async def __aenter__(self) -> None:
        self.tasks = [asyncio.create_task(w.run()) for w in self.workers]

    async def __aexit__(self, *exc: object) -> None:
        await asyncio.gather(*(w.shutdown() for w in self.workers), return_exceptions=True)
        await asyncio.gather(*self.tasks, return_exceptions=True)


def main() -> None:
    """Command-line entry point."""
    parser = argparse.ArgumentParser(description="FotoPronta Temporal worker")
    parser.add_argument("--queues", default=None, help="comma-separated: photo-jobs, retouch (default: both)")
    parser.add_argument(
        "--retouch-queue",
        default=TASK_QUEUE_RETOUCH,
        help="task-queue name the retouch worker polls (default: retouch)",
    )
    args = parser.parse_args()
    configure_logging(get_settings().log_format)
    queues = set(args.queues.split(",")) if args.queues else None
    asyncio.run(run_worker(queues, retouch_queue=args.retouch_queue))


if __name__ == "__main__":
    main()

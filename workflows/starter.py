"""Starting a job's ``PhotoJobWorkflow`` from its row, and the reconciler that starts missing ones.

No job without its workflow: the API commits the photo and job rows, then starts the
workflow. If Temporal is unreachable at that moment the upload still answers 201 and the job stays
``pending``; :func:`reconcile_pending_jobs` (run by the ``photo-jobs`` worker at start-up and every
``reconcile_interval_s`` seconds) starts the workflow of every ``pending`` job older than
``reconcile_min_age_s`` seconds that never had one. Starts are idempotent on the workflow id
``photo-job-{job_id}``: a running workflow is kept (``USE_EXISTING``), and the reconciler never starts
a second run after a closed one (``REJECT_DUPLICATE``).

No workflow without its job either: :func:`reconcile_orphan_workflows` (same loop, every
``reconcile_orphans_interval_s`` seconds) terminates a running workflow whose job row is gone.

Client-side code (API and worker), never imported by workflow code.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
import uuid
import weakref
from datetime import UTC, datetime, timedelta

from sqlalchemy import select
from sqlalchemy.orm import Session, object_session, sessionmaker
from temporalio.api.operatorservice.v1 import ListSearchAttributesRequest
from temporalio.client import Client
from temporalio.common import (
    SearchAttributePair,
    TypedSearchAttributes,
    WorkflowIDConflictPolicy,
    WorkflowIDReusePolicy,
)
from temporalio.exceptions import WorkflowAlreadyStartedError
from temporalio.service import RPCError, RPCStatusCode

from activities.contracts import (
    JOB_SEARCH_ATTRIBUTES,
    SA_JOB_STATUS,
    SA_JOB_TYPE,
    SA_PHOTO_NAME,
    SA_PRESET,
    SA_USER_EMAIL,
    TASK_QUEUE_JOBS,
    PhotoJobInput,
    workflow_id_for_job,
)
from fotopronta.domain import JOB_COSTS, JobStatus, JobType
from fotopronta.models import Photo, PhotoProcessingJob, Profile
from retouch.presets import DEFAULT_PRESET
from workflows.photo_job import PhotoJobWorkflow

log = logging.getLogger("fotopronta.starter")


JOB_TYPE_LABELS = {
    JobType.background_removal: "Rimozione sfondo AI",
    JobType.smart_backgrounds: "Sfondo intelligente",
    JobType.background_removal_human: "Grafico",
}

START_RPC_TIMEOUT = timedelta(seconds=10)
"""How long one start call waits for Temporal before the caller leaves the job to the reconciler."""

TEMPORAL_UNAVAILABLE = (RPCError, RuntimeError, asyncio.TimeoutError)
"""What the SDK raises when the server cannot be reached (connection refused, deadline exceeded)."""


def _search_attributes(job: PhotoProcessingJob, email: str, photo_name: str) -> TypedSearchAttributes:
    options = job.options or {}
    return TypedSearchAttributes(
        [
            SearchAttributePair(SA_USER_EMAIL, email),
            SearchAttributePair(SA_JOB_TYPE, job.job_type),
            SearchAttributePair(SA_JOB_STATUS, job.status),
            SearchAttributePair(SA_PRESET, str(options.get("preset", DEFAULT_PRESET))),
            SearchAttributePair(SA_PHOTO_NAME, photo_name[:255]),
        ]
    )


def _summary(job: PhotoProcessingJob, email: str, photo_name: str) -> str:
    kind = JobType(job.job_type)
    preset = (job.options or {}).get("preset", DEFAULT_PRESET)
    return f"{photo_name} · {JOB_TYPE_LABELS[kind]} · {preset} · {email}"[:200]


async def start_job_workflow(
    temporal: Client,
    job: PhotoProcessingJob,
    *,
    run: int = 1,
    email: str | None = None,
    photo_name: str | None = None,
    id_reuse_policy: WorkflowIDReusePolicy = WorkflowIDReusePolicy.ALLOW_DUPLICATE,
    rpc_timeout: timedelta | None = START_RPC_TIMEOUT,
) -> None:
    """Start the job's ``PhotoJobWorkflow`` (id ``photo-job-{job_id}``) with the options stored on the
    job row (``options``, ``background_category``); ``run`` numbers the credit reservation.

    The workflow carries the search attributes ``UserEmail``, ``JobType``, ``JobStatus``, ``Preset``,
    ``PhotoName`` (when the namespace has them, see :func:`namespace_has_search_attributes`), a
    readable static summary and a memo for the Temporal UI. ``email`` and ``photo_name`` are
    read through the job's session when not given. A workflow already running under that id is kept
    (``USE_EXISTING``), so the API and the reconciler may race safely.

    Raises:
        WorkflowAlreadyStartedError: a closed run exists and ``id_reuse_policy`` forbids a new one.
        RPCError, RuntimeError: Temporal unreachable (see :data:`TEMPORAL_UNAVAILABLE`).
    """
    if email is None or photo_name is None:
        session = object_session(job)
        assert session is not None, "pass email and photo_name for a detached job"
        if email is None:
            email = session.execute(select(Profile.email).where(Profile.id == job.user_id)).scalar_one()
        if photo_name is None:
            photo_name = session.execute(
                select(Photo.original_filename).where(Photo.id == job.photo_id)
            ).scalar_one()
    options = job.options or {}
    kind = JobType(job.job_type)
    search_attributes = (
        _search_attributes(job, email, photo_name)
        if await namespace_has_search_attributes(temporal)
        else None
    )
    await temporal.start_workflow(
        PhotoJobWorkflow.run,
        PhotoJobInput(
            job_id=str(job.id),
            photo_id=str(job.photo_id),
            user_id=str(job.user_id),
            job_type=kind.value,
            cost=int(options.get("cost", JOB_COSTS[kind])),
            preset=options.get("preset", DEFAULT_PRESET),
            background_category=(job.background_category or {}).get("category"),
            shadow=bool(options.get("shadow", True)),
            brand=options.get("brand"),
            category=options.get("category"),
            run=run,
            cutout=bool(options.get("cutout", False)),
        ),
        id=workflow_id_for_job(str(job.id)),
        task_queue=TASK_QUEUE_JOBS,
        id_reuse_policy=id_reuse_policy,
        id_conflict_policy=WorkflowIDConflictPolicy.USE_EXISTING,
        search_attributes=search_attributes,
        static_summary=_summary(job, email, photo_name),
        memo={"job_id": str(job.id), "photo_id": str(job.photo_id), "user_email": email},
        rpc_timeout=rpc_timeout,
    )


_SEARCH_ATTRIBUTES_SEEN: weakref.WeakKeyDictionary[Client, tuple[bool, float]] = weakref.WeakKeyDictionary()
SEARCH_ATTRIBUTES_RECHECK_S = 300
"""How long a client remembers that its namespace lacked the search attributes before asking again."""


async def namespace_has_search_attributes(temporal: Client) -> bool:
    """Whether the client's namespace has every job search attribute registered (asked once per client,
    again every :data:`SEARCH_ATTRIBUTES_RECHECK_S` while they are missing).

    A namespace without them (set-up job skipped; the time-skipping test server, which cannot register
    them) still runs jobs, without the attributes, and the error is logged. Starting with unregistered
    attributes would be refused, and the test server would even keep a broken run under that id.

    Raises:
        RPCError, RuntimeError: Temporal unreachable.
    """
    seen = _SEARCH_ATTRIBUTES_SEEN.get(temporal)
    if seen is not None and (seen[0] or time.monotonic() - seen[1] < SEARCH_ATTRIBUTES_RECHECK_S):
        return seen[0]
    try:
        resp = await temporal.operator_service.list_search_attributes(
            ListSearchAttributesRequest(namespace=temporal.namespace), timeout=START_RPC_TIMEOUT
        )
        missing = [k.name for k in JOB_SEARCH_ATTRIBUTES if k.name not in resp.custom_attributes]
    except RPCError as err:
        if err.status in (
            RPCStatusCode.UNAVAILABLE,
            RPCStatusCode.DEADLINE_EXCEEDED,
            RPCStatusCode.CANCELLED,
        ):
            raise
        missing = [f"(cannot list: {err.message})"]
    if missing:
        log.error(
            "Temporal namespace %s lacks the job search attributes %s: jobs start without them "
            "(run the temporal-namespace set-up job, or make dev registers them)",
            temporal.namespace,
            ", ".join(missing),
        )
    _SEARCH_ATTRIBUTES_SEEN[temporal] = (not missing, time.monotonic())
    return not missing


async def start_job_workflows_or_defer(
    temporal: Client,
    jobs: list[PhotoProcessingJob],
    *,
    email: str | None = None,
    photo_names: dict[uuid.UUID, str] | None = None,
) -> int:
    """Start the workflow of each committed job; when Temporal cannot be reached, log and leave the
    rest ``pending`` for :func:`reconcile_pending_jobs`. Returns how many were started. With ``email``
    and ``photo_names`` (by job id) given, no database query is made (the API calls this on its event
    loop)."""
    names = photo_names or {}
    for started, job in enumerate(jobs):
        try:
            await start_job_workflow(temporal, job, email=email, photo_name=names.get(job.id))
        except TEMPORAL_UNAVAILABLE as exc:
            log.warning(
                "Temporal unreachable (%s): %d job(s) left pending for the reconciler",
                exc.__class__.__name__,
                len(jobs) - started,
                extra={"job_id": str(job.id)},
            )
            return started
    return len(jobs)


async def reconcile_pending_jobs(
    temporal: Client,
    sessions: sessionmaker[Session],
    *,
    min_age_s: float = 30,
    limit: int = 200,
    now: datetime | None = None,
) -> list[uuid.UUID]:
    """Start the missing workflow of every ``pending`` job created more than ``min_age_s`` seconds
    ago (oldest first, at most ``limit`` per call); returns the ids of the jobs whose start call
    succeeded (a workflow that was already running counts too: the call is idempotent).

    A job whose workflow has already closed is left alone (``REJECT_DUPLICATE``) and logged.

    Raises:
        RPCError, RuntimeError: Temporal unreachable (the caller retries on its next pass).
    """
    cutoff = (now or datetime.now(UTC)) - timedelta(seconds=min_age_s)
    with sessions() as session:
        rows = session.execute(
            select(PhotoProcessingJob, Profile.email, Photo.original_filename)
            .join(Profile, Profile.id == PhotoProcessingJob.user_id)
            .join(Photo, Photo.id == PhotoProcessingJob.photo_id)
            .where(
                PhotoProcessingJob.status == JobStatus.pending.value,
                PhotoProcessingJob.created_at <= cutoff,
            )
            .order_by(PhotoProcessingJob.created_at)
            .limit(limit)
        ).all()
        started: list[uuid.UUID] = []
        for job, email, photo_name in rows:
            try:
                await start_job_workflow(
                    temporal,
                    job,
                    email=email,
                    photo_name=photo_name,
                    id_reuse_policy=WorkflowIDReusePolicy.REJECT_DUPLICATE,
                )
            except WorkflowAlreadyStartedError:
                log.warning(
                    "pending job whose workflow has closed: left alone", extra={"job_id": str(job.id)}
                )
                continue
            started.append(job.id)
    return started


RUNNING_JOB_WORKFLOWS = "WorkflowType = 'PhotoJobWorkflow' AND ExecutionStatus = 'Running'"
"""Visibility query of every running job workflow (:func:`reconcile_orphan_workflows`)."""
ORPHAN_BATCH = 500
"""Workflow ids checked against the database per query."""
ORPHAN_REASON = "riga del lavoro assente: foto eliminata"
"""Termination reason of a job workflow whose job row is gone (shown in the Temporal UI)."""


def _job_id_of(workflow_id: str) -> uuid.UUID | None:
    prefix = workflow_id_for_job("")
    if not workflow_id.startswith(prefix):
        return None
    try:
        return uuid.UUID(workflow_id.removeprefix(prefix))
    except ValueError:
        return None


async def _end_orphans(
    temporal: Client, sessions: sessionmaker[Session], candidates: dict[uuid.UUID, str]
) -> list[uuid.UUID]:
    """Terminate the workflows in ``candidates`` (job id → workflow id) whose job row is gone."""

    def existing() -> set[uuid.UUID]:
        with sessions() as session:
            return set(
                session.execute(
                    select(PhotoProcessingJob.id).where(PhotoProcessingJob.id.in_(list(candidates)))
                ).scalars()
            )

    present = await asyncio.to_thread(existing)
    ended: list[uuid.UUID] = []
    for job_id, workflow_id in candidates.items():
        if job_id in present:
            continue
        try:
            await temporal.get_workflow_handle(workflow_id).terminate(reason=ORPHAN_REASON)
        except RPCError as exc:
            if exc.status != RPCStatusCode.NOT_FOUND:  # not found: it has just ended by itself
                raise
            continue
        log.warning("reconciler: workflow of a deleted job terminated", extra={"job_id": str(job_id)})
        ended.append(job_id)
    return ended


async def reconcile_orphan_workflows(temporal: Client, sessions: sessionmaker[Session]) -> list[uuid.UUID]:
    """Terminate every running ``PhotoJobWorkflow`` whose ``photo_processing_jobs`` row is gone (its
    photo was deleted while Temporal could not be reached, or the rows were removed outside the API);
    returns the ids of the jobs whose workflow it ended.

    The running workflows come from Temporal's visibility (:data:`RUNNING_JOB_WORKFLOWS`), checked
    against the database :data:`ORPHAN_BATCH` ids per query. The rows are read after the listing and a
    job's row is always committed before its workflow starts, so a workflow listed here with no row
    has truly lost it.

    Raises:
        RPCError, RuntimeError: Temporal unreachable (the caller retries on its next pass).
    """
    ended: list[uuid.UUID] = []
    batch: dict[uuid.UUID, str] = {}
    async for execution in temporal.list_workflows(RUNNING_JOB_WORKFLOWS):
        job_id = _job_id_of(execution.id)
        if job_id is None:
            continue
        batch[job_id] = execution.id
        if len(batch) >= ORPHAN_BATCH:
            ended += await _end_orphans(temporal, sessions, batch)
            batch = {}
    if batch:
        ended += await _end_orphans(temporal, sessions, batch)
    return ended


async def reconcile_forever(
    temporal: Client,
    sessions: sessionmaker[Session],
    *,
    interval_s: float,
    min_age_s: float,
    stop: asyncio.Event,
    orphans_interval_s: float = 300,
) -> None:
    """Run :func:`reconcile_pending_jobs` now and every ``interval_s`` seconds until ``stop`` is set,
    and :func:`reconcile_orphan_workflows` now and every ``orphans_interval_s`` seconds (it lists every
    running job workflow, so less often); a pass that fails (Temporal or the database down) is logged
    and retried on the next one."""
    orphans_due = 0.0
    while not stop.is_set():
        try:
            jobs = await reconcile_pending_jobs(temporal, sessions, min_age_s=min_age_s)
            if jobs:
                log.info("reconciler: start requested for %d pending job(s)", len(jobs))
            if time.monotonic() >= orphans_due:
                ended = await reconcile_orphan_workflows(temporal, sessions)
                orphans_due = time.monotonic() + orphans_interval_s
                if ended:
                    log.info("reconciler: %d workflow(s) of deleted jobs terminated", len(ended))
        except Exception as exc:
            log.warning("reconciler pass failed: %s: %s", exc.__class__.__name__, exc)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), timeout=interval_s)

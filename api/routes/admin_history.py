"""Admins read a job's workflow history: ``GET /api/admin/jobs/{job_id}/history`` (DESIGN.md, Temporal
design: "Admins read a job's workflow history through the API; ops use the Temporal Web UI").

The history is that of the latest run of workflow ``photo-job-{job_id}`` (a reprocess may start a
new run with the same id), flattened to what the admin dashboard shows; see :class:`HistoryEvent`.
"""

from __future__ import annotations

import logging
import uuid
from datetime import UTC, datetime
from typing import Any
from urllib.parse import quote

from fastapi import APIRouter
from fastapi.concurrency import run_in_threadpool
from pydantic import BaseModel
from temporalio.api.enums.v1 import EventType
from temporalio.api.history.v1 import HistoryEvent as HistoryEventProto
from temporalio.client import Client, WorkflowExecutionStatus
from temporalio.service import RPCError, RPCStatusCode

from activities.contracts import workflow_id_for_job
from api.deps import AdminUser, SessionDep, TemporalDep
from api.errors import ApiError
from api.job_timeline import PendingAttempt, TimelineStep, build_timeline, designer_ids, local_activity
from api.services import admin_jobs as service
from fotopronta.domain import JobStatus
from fotopronta.settings import get_settings

router = APIRouter(prefix="/api/admin/jobs", tags=["admin"])
log = logging.getLogger("fotopronta.api.admin_history")


class HistoryEvent(BaseModel):
    """One event of a workflow history, in order.

    ``type`` is Temporal's event type without the ``EVENT_TYPE_`` prefix (``WORKFLOW_EXECUTION_STARTED``,
    ``ACTIVITY_TASK_SCHEDULED``, ``ACTIVITY_TASK_FAILED``, ``WORKFLOW_EXECUTION_UPDATE_COMPLETED`` …);
    ``time`` is when the server recorded it (UTC). ``activity_type`` is set on every activity event
    (started, completed, failed, timed out and cancelled events resolve it through their scheduled
    event); ``update_name`` on update events, ``signal_name`` on signals; ``failure_message`` on failed
    or timed-out activities, workflow tasks, updates and workflows (for activities: the message the
    seller sees, e.g. "Impossibile leggere l'immagine…"); ``attempt`` (1-based) on workflow-started,
    workflow-task-scheduled and activity started/completed/failed/timed-out events. A local activity
    (``workflow.patched("local-db-activities")``: the ledger and delivery activities) is one
    ``MARKER_RECORDED`` event carrying its ``activity_type``, ``attempt`` and ``failure_message``.
    """

    event_id: int
    type: str
    time: datetime
    activity_type: str | None = None
    update_name: str | None = None
    signal_name: str | None = None
    failure_message: str | None = None
    attempt: int | None = None


def _type_name(event: HistoryEventProto) -> str:
    return EventType.Name(event.event_type).removeprefix("EVENT_TYPE_")


def flatten_history(events: list[HistoryEventProto]) -> list[HistoryEvent]:  # noqa: C901
    """Turn Temporal ``HistoryEvent`` protos into :class:`HistoryEvent` rows, in order.

    Activity names and attempts of later events are looked up through ``scheduled_event_id`` and
    ``started_event_id``; update names of completed updates through ``accepted_event_id``.
    """
    activity_names: dict[int, str] = {}  # scheduled event id -> activity type
    attempts: dict[int, int] = {}  # activity started event id -> attempt
    update_names: dict[int, str] = {}  # accepted event id -> update name
    rows: list[HistoryEvent] = []
    for ev in events:
        row: dict[str, Any] = {
            "event_id": ev.event_id,
            "type": _type_name(ev),
            "time": ev.event_time.ToDatetime(tzinfo=UTC),
        }
        kind = ev.WhichOneof("attributes")
        attrs: Any = getattr(ev, kind) if kind else None
        if kind in (
            "workflow_execution_started_event_attributes",
            "workflow_task_scheduled_event_attributes",
        ):
            row["attempt"] = attrs.attempt
        elif kind in ("workflow_task_failed_event_attributes", "workflow_execution_failed_event_attributes"):
            row["failure_message"] = attrs.failure.message or None
        elif kind == "activity_task_scheduled_event_attributes":
            activity_names[ev.event_id] = attrs.activity_type.name
            row["activity_type"] = attrs.activity_type.name
        elif kind == "activity_task_started_event_attributes":
            attempts[ev.event_id] = attrs.attempt
            row["activity_type"] = activity_names.get(attrs.scheduled_event_id)
            row["attempt"] = attrs.attempt
        elif kind in (
            "activity_task_completed_event_attributes",
            "activity_task_failed_event_attributes",
            "activity_task_timed_out_event_attributes",
            "activity_task_canceled_event_attributes",
        ):
            row["activity_type"] = activity_names.get(attrs.scheduled_event_id)
            row["attempt"] = attempts.get(attrs.started_event_id)
            if kind in ("activity_task_failed_event_attributes", "activity_task_timed_out_event_attributes"):
                row["failure_message"] = attrs.failure.message or None
        elif kind == "marker_recorded_event_attributes":
            local = local_activity(attrs, row["time"])  # a local activity: the database activities
            if local is not None:
                row["activity_type"], row["attempt"] = local.name, local.attempt
                row["failure_message"] = local.failure
        elif kind == "workflow_execution_update_admitted_event_attributes":
            row["update_name"] = attrs.request.input.name or None
        elif kind == "workflow_execution_update_accepted_event_attributes":
            update_names[ev.event_id] = attrs.accepted_request.input.name
            row["update_name"] = attrs.accepted_request.input.name or None
        elif kind == "workflow_execution_update_rejected_event_attributes":
            row["update_name"] = attrs.rejected_request.input.name or None
            row["failure_message"] = attrs.failure.message or None
        elif kind == "workflow_execution_update_completed_event_attributes":
            row["update_name"] = update_names.get(attrs.accepted_event_id)
            if attrs.outcome.HasField("failure"):
                row["failure_message"] = attrs.outcome.failure.message or None
        elif kind == "workflow_execution_signaled_event_attributes":
            row["signal_name"] = attrs.signal_name
        rows.append(HistoryEvent(**row))
    return rows


async def _fetch(
    temporal: Client, job_id: uuid.UUID
) -> tuple[str, str | None, str | None, list[HistoryEventProto], dict[str, PendingAttempt]]:
    """Workflow id, run id, status name, history events and running activities (by activity id) of
    the job's latest run.

    Raises:
        ApiError: 404 ``history_not_found``; 503 when Temporal does not answer.
    """
    wid = workflow_id_for_job(str(job_id))
    handle = temporal.get_workflow_handle(wid)
    try:
        description = await handle.describe()
        history = await handle.fetch_history()
    except RPCError as exc:
        if exc.status == RPCStatusCode.NOT_FOUND:
            raise ApiError(404, "Storico del lavoro non disponibile", "history_not_found") from exc
        log.warning("fetching history of job %s failed: %s", job_id, exc)
        raise ApiError(
            503, "Servizio di elaborazione non disponibile, riprova tra poco.", "temporal_unavailable"
        ) from exc
    status = description.status.name if isinstance(description.status, WorkflowExecutionStatus) else None
    pending = {
        p.activity_id: PendingAttempt(attempt=p.attempt, last_failure=p.last_failure.message or None)
        for p in description.raw_description.pending_activities
    }
    return wid, description.run_id, status, list(history.events), pending


@router.get("/{job_id}/history", response_model=list[HistoryEvent], operation_id="admin-job-history")
async def job_history(
    job_id: uuid.UUID, _: AdminUser, session: SessionDep, temporal: TemporalDep
) -> list[HistoryEvent]:
    """The job's workflow history (latest run), oldest event first.

    Raises:
        ApiError: 401 anonymous; 403 not an active admin; 404 'Lavoro non trovato' (``job_not_found``)
            when no such job exists, or ``history_not_found`` when Temporal holds no workflow for it
            (never started, or past the namespace's retention); 503 when Temporal does not answer.
    """
    retention = await run_in_threadpool(service.job_retention, session, job_id)
    if retention is None:
        raise ApiError(404, "Lavoro non trovato", "job_not_found")
    job_status, kept_until = retention
    events = (await _fetch(temporal, job_id))[3]
    return flatten_history(events)


class JobTimeline(BaseModel):
    """``GET /api/admin/jobs/{id}/timeline``: the job's Italian timeline.

    ``workflow_status`` is Temporal's (``RUNNING``, ``COMPLETED``, ``TERMINATED`` …); ``retries`` counts
    failed attempts that were retried, ``failures`` the steps that failed; ``temporal_url`` opens the
    same run in the Temporal Web UI (base URL from ``FOTOPRONTA_TEMPORAL_UI_URL``).
    """

    job_id: uuid.UUID
    workflow_id: str
    run_id: str | None
    workflow_status: str | None
    job_status: JobStatus
    files_kept_until: datetime | None
    """Once the job ended delivered (or rejected) and its workflow only waits to delete the files:
    until when they are kept (the end + 30 days); else null."""
    temporal_url: str
    retries: int
    failures: int
    steps: list[TimelineStep]


def temporal_ui_url(workflow_id: str, run_id: str | None) -> str:
    """The Temporal Web UI page of one workflow run (or of the workflow's latest run)."""
    settings = get_settings()
    ns = quote(settings.temporal_namespace, safe="")
    url = f"{settings.temporal_ui_base}/namespaces/{ns}/workflows/{quote(workflow_id, safe='')}"
    return f"{url}/{quote(run_id, safe='')}/history" if run_id else url


@router.get("/{job_id}/timeline", response_model=JobTimeline, operation_id="admin-job-timeline")
async def job_timeline(
    job_id: uuid.UUID, _: AdminUser, session: SessionDep, temporal: TemporalDep
) -> JobTimeline:
    """The Italian timeline of the job's latest workflow run, steps in order of start.

    Raises:
        ApiError: 401, 403, 404 (``job_not_found``, ``history_not_found``) and 503 as for the history.
    """
    retention = await run_in_threadpool(service.job_retention, session, job_id)
    if retention is None:
        raise ApiError(404, "Lavoro non trovato", "job_not_found")
    job_status, kept_until = retention
    wid, run_id, status, events, pending = await _fetch(temporal, job_id)
    ids = designer_ids(events)
    names = await run_in_threadpool(service.designer_names, session, ids) if ids else {}
    steps = build_timeline(events, names, pending)
    return JobTimeline(
        job_id=job_id,
        workflow_id=wid,
        run_id=run_id,
        workflow_status=status,
        job_status=job_status,
        files_kept_until=kept_until if status == "RUNNING" else None,
        temporal_url=temporal_ui_url(wid, run_id),
        retries=sum(1 for s in steps if s.outcome == "retry"),
        failures=sum(1 for s in steps if s.outcome == "failed"),
        steps=steps,
    )

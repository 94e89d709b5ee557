"""An Italian timeline of a photo job, built from its workflow history.

The admin dashboard shows, for every job (AI or human, running or finished), the steps of its
``PhotoJobWorkflow`` run: reservation of the credits, each AI retouch attempt with its outcome and
reason, delivery, assignment to a designer with the deadline, the overdue reminder, the deletion of
the files 30 days after delivery …, each with start, duration and outcome.

Temporal writes one ``ACTIVITY_TASK_STARTED`` event per activity, for its *last* attempt, with
``last_failure`` carrying the failure of the attempt before it; earlier failed attempts are therefore
rebuilt from that attempt number (only the latest reason is known). :func:`build_timeline` is pure
(history protos in, steps out) so it is tested on recorded histories too.
"""

from __future__ import annotations

import contextlib
import json
import uuid
from collections.abc import Mapping
from datetime import UTC, datetime, timedelta
from typing import Any, Literal
from zoneinfo import ZoneInfo

from pydantic import BaseModel
from temporalio.api.common.v1 import Payloads
from temporalio.api.history.v1 import HistoryEvent as HistoryEventProto

from fotopronta.domain import JobStatus

DEADLINE_LABEL = "Scadenza dell'assegnazione (72 ore)"
Outcome = Literal["ok", "failed", "retry", "running", "waiting", "scheduled", "cancelled"]

ACTIVITY_LABELS = {
    "reserve_credits": "Prenotazione crediti",
    "charge_credits": "Addebito crediti",
    "release_credits": "Rilascio crediti",
    "retouch_photo": "Ritocco AI",
    "complete_job": "Consegna",
    "complete_human_job": "Consegna del grafico",
    "fail_job": "Lavoro non riuscito",
    "assign_job": "Assegnazione",
    "start_human_job": "Inizio lavorazione del grafico",
    "reject_human_job": "Rifiuto del grafico",
    "escalate_overdue_job": "Sollecito per ritardo",
    "delete_photo_files": "Cancellazione file dopo 30 giorni",
    "expire_credits": "Scadenza crediti",
}
"""Italian names of the activities of ``PhotoJobWorkflow`` (``set_job_status`` is described by its
target status instead, see :data:`STATUS_LABELS`)."""

STATUS_LABELS: dict[str, str] = {
    JobStatus.waiting_for_credits: "In attesa di crediti",
    JobStatus.processing: "Inizio elaborazione",
    JobStatus.pending_human: "In coda per i grafici",
    JobStatus.pending: "Rielaborazione richiesta",
}
UPDATE_LABELS = {
    "assign": "Richiesta di assegnazione",
    "start": "Richiesta di inizio lavorazione",
    "complete": "Consegna del risultato",
    "reject": "Rifiuto",
    "reprocess": "Rielaborazione",
    "resume": "Ripresa dopo l'acquisto di crediti",
}
WORKFLOW_END = {
    "workflow_execution_completed_event_attributes": ("Flusso concluso", "ok"),
    "workflow_execution_failed_event_attributes": ("Flusso fallito", "failed"),
    "workflow_execution_terminated_event_attributes": ("Flusso terminato", "failed"),
    "workflow_execution_canceled_event_attributes": ("Flusso annullato", "cancelled"),
    "workflow_execution_timed_out_event_attributes": ("Flusso scaduto", "failed"),
    "workflow_execution_continued_as_new_event_attributes": (
        "Flusso proseguito in una nuova esecuzione",
        "ok",
    ),
}
RETENTION_TIMER_MIN = timedelta(days=7)
"""Timers at least this long are the retention wait (30 days); shorter ones the designer's 72 hours."""


class TimelineStep(BaseModel):
    """One step of a job's timeline, in order of start.

    ``kind`` is the activity, update or event behind it (``retouch_photo``, ``assign``, ``timer`` …);
    ``label`` and ``detail`` are Italian (e.g. "Ritocco AI", "tentativo 2/3 fallito: …");
    ``outcome``: ``ok``, ``failed``, ``retry`` (a failed attempt that was retried), ``running``,
    ``waiting`` (a timer or condition still pending), ``scheduled`` (not started yet) or
    ``cancelled``. ``ended_at``/``duration_ms`` are null while the step runs or when unknown.
    """

    kind: str
    label: str
    detail: str | None = None
    outcome: Outcome
    started_at: datetime
    ended_at: datetime | None = None
    duration_ms: int | None = None
    attempt: int | None = None
    max_attempts: int | None = None


def _time(ev: HistoryEventProto) -> datetime:
    return ev.event_time.ToDatetime(tzinfo=UTC)


def _payload(payloads: Payloads) -> Any:
    """The first JSON payload of ``payloads`` decoded, or None."""
    if not payloads.payloads:
        return None
    try:
        return json.loads(payloads.payloads[0].data)
    except (ValueError, UnicodeDecodeError):
        return None


def _proto_time(value: Any) -> datetime | None:
    """``{"seconds": s, "nanos": n}`` (a protobuf ``Timestamp`` as JSON) as an aware UTC datetime."""
    if not isinstance(value, dict) or "seconds" not in value:
        return None
    return datetime.fromtimestamp(int(value["seconds"]) + int(value.get("nanos") or 0) / 1e9, UTC)


def _failure_of(activity: _Activity, failure: Any) -> None:
    """Mark ``activity`` failed with the innermost message and application error type of ``failure``."""
    cause = failure
    while cause.HasField("cause") and not cause.message:
        cause = cause.cause
    activity.failure = cause.message or None
    if cause.HasField("application_failure_info"):
        activity.error_type = cause.application_failure_info.type or None


LOCAL_ACTIVITY_MARKER = "core_local_activity"
"""Marker name of a local activity's result in a history (Temporal's Core SDK); its ``data`` detail is
JSON with ``activity_type``, ``attempt``, ``original_schedule_time`` and ``complete_time``."""


def local_activity(attrs: Any, at: datetime) -> _Activity | None:
    """The :class:`_Activity` of a local activity's marker (``workflow.patched("local-db-activities")``:
    the database activities), or None for another marker. A local activity's input is not in the
    history, so its step is labelled by its name only."""
    if attrs.marker_name != LOCAL_ACTIVITY_MARKER or "data" not in attrs.details:
        return None
    meta = _payload(attrs.details["data"])
    if not isinstance(meta, dict) or not meta.get("activity_type"):
        return None
    scheduled = _proto_time(meta.get("original_schedule_time")) or at
    act = _Activity(str(meta["activity_type"]), scheduled, None, None)
    act.activity_id = str(meta.get("activity_id") or "")
    act.started, act.attempt = scheduled, int(meta.get("attempt") or 1)
    act.ended, act.outcome = _proto_time(meta.get("complete_time")) or at, "ok"
    if attrs.HasField("failure"):
        act.outcome = "failed"
        _failure_of(act, attrs.failure)
    return act


ITALY = ZoneInfo("Europe/Rome")


_MONTHS_SHORT = ("gen", "feb", "mar", "apr", "mag", "giu", "lug", "ago", "set", "ott", "nov", "dic")
"""Italian short month names, as the web app's dates write them (``it-IT``, ``month: 'short'``)."""


def format_it(dt: datetime) -> str:
    """``26 nov 2026, 15:04``, Italian time (Europe/Rome, the service's users are in Italy): the same
    format and zone as every date the web app shows (``formatDateTime`` in web/src/lib/format.ts)."""
    local = dt.astimezone(ITALY)
    return f"{local.day} {_MONTHS_SHORT[local.month - 1]} {local.year}, {local:%H:%M}"


def _duration(start: datetime, end: datetime | None) -> int | None:
    return None if end is None else max(0, int((end - start).total_seconds() * 1000))


def _attempt(n: int, total: int | None) -> str:
    return f"tentativo {n}/{total}" if total else f"tentativo {n}"


class PendingAttempt(BaseModel):
    """A running activity as ``DescribeWorkflowExecution`` reports it (the history records an
    activity's attempts only when it ends): its current attempt and the last failure's message."""

    attempt: int
    last_failure: str | None = None


class _Activity:
    """What the history says about one scheduled activity."""

    def __init__(self, name: str, scheduled: datetime, arg: Any, max_attempts: int | None) -> None:
        self.activity_id = ""
        self.name = name
        self.scheduled = scheduled
        self.arg = arg if isinstance(arg, dict) else {}
        self.max_attempts = max_attempts
        self.started: datetime | None = None
        self.attempt = 1
        self.last_failure: str | None = None
        self.ended: datetime | None = None
        self.outcome: Outcome = "scheduled"
        self.failure: str | None = None
        self.error_type: str | None = None


def _label(act: _Activity, names: Mapping[str, str]) -> tuple[str, str | None]:
    """Italian label and detail of an activity step (without the attempt part)."""
    if act.name == "set_job_status":
        status = str(act.arg.get("status", ""))
        return STATUS_LABELS.get(status, f"Stato: {status}"), None
    label = ACTIVITY_LABELS.get(act.name, act.name)
    if act.name == "assign_job":
        designer = str(act.arg.get("designer_id", ""))
        who = names.get(designer, "un grafico")
        detail = f"a {who}"
        if act.arg.get("deadline"):
            with contextlib.suppress(ValueError):
                detail += f", scadenza {format_it(datetime.fromisoformat(str(act.arg['deadline'])))}"
        return f"Assegnazione a {who}", detail
    if act.name == "reject_human_job" and act.arg.get("notes"):
        return label, f"motivo: {act.arg['notes']}"
    return label, None


def designer_ids(events: list[HistoryEventProto]) -> set[uuid.UUID]:
    """Ids of the designers named by ``assign_job`` activities in ``events``."""
    found: set[uuid.UUID] = set()
    for ev in events:
        if ev.WhichOneof("attributes") != "activity_task_scheduled_event_attributes":
            continue
        attrs = ev.activity_task_scheduled_event_attributes
        arg = _payload(attrs.input) if attrs.activity_type.name == "assign_job" else None
        if isinstance(arg, dict) and arg.get("designer_id"):
            with contextlib.suppress(ValueError):
                found.add(uuid.UUID(str(arg["designer_id"])))
    return found


def build_timeline(  # noqa: C901
    events: list[HistoryEventProto],
    designer_names: Mapping[str, str] | None = None,
    pending: Mapping[str, PendingAttempt] | None = None,
) -> list[TimelineStep]:
    """The Italian steps of one workflow run, ordered by start.

    Args:
        events: the run's history events, oldest first.
        designer_names: designer id → display name, for "Assegnazione a Marco Rossi".
        pending: activity id → current attempt of activities still running (from the workflow's
            description), so a retry in progress shows its failed attempts before the history has them.
    """
    names = designer_names or {}
    pending = pending or {}
    activities: dict[int, _Activity] = {}
    order: list[tuple[datetime, int, TimelineStep | _Activity]] = []
    timers: dict[int, TimelineStep] = {}
    accepted: dict[int, tuple[str, datetime]] = {}  # accepted update event id -> (name, time)
    started_at: datetime | None = None
    for ev in events:
        kind = ev.WhichOneof("attributes")
        attrs: Any = getattr(ev, kind) if kind else None
        at = _time(ev)
        if kind == "workflow_execution_started_event_attributes":
            started_at = at
            order.append(
                (
                    at,
                    ev.event_id,
                    TimelineStep(kind="started", label="Avvio del flusso", outcome="ok", started_at=at),
                )
            )
        elif kind == "activity_task_scheduled_event_attributes":
            max_attempts = attrs.retry_policy.maximum_attempts or None
            act = _Activity(attrs.activity_type.name, at, _payload(attrs.input), max_attempts)
            act.activity_id = attrs.activity_id
            info = pending.get(attrs.activity_id)
            if info is not None:
                act.outcome, act.attempt, act.last_failure = (
                    "running",
                    max(1, info.attempt),
                    info.last_failure,
                )
            activities[ev.event_id] = act
            order.append((at, ev.event_id, act))
        elif kind == "activity_task_started_event_attributes":
            act = activities[attrs.scheduled_event_id]
            act.started, act.attempt, act.outcome = at, attrs.attempt or 1, "running"
            if attrs.HasField("last_failure"):
                act.last_failure = attrs.last_failure.message or None
        elif kind == "activity_task_completed_event_attributes":
            act = activities[attrs.scheduled_event_id]
            act.ended, act.outcome = at, "ok"
        elif kind in ("activity_task_failed_event_attributes", "activity_task_timed_out_event_attributes"):
            act = activities[attrs.scheduled_event_id]
            act.ended, act.outcome = at, "failed"
            _failure_of(act, attrs.failure)
            if kind == "activity_task_timed_out_event_attributes" and not act.failure:
                act.failure = "tempo scaduto"
        elif kind == "marker_recorded_event_attributes":
            local = local_activity(attrs, at)
            if local is not None:
                order.append((local.scheduled, ev.event_id, local))
        elif kind == "activity_task_canceled_event_attributes":
            act = activities[attrs.scheduled_event_id]
            act.ended, act.outcome = at, "cancelled"
        elif kind == "timer_started_event_attributes":
            fire = attrs.start_to_fire_timeout.ToTimedelta()
            retention = fire >= RETENTION_TIMER_MIN
            step = TimelineStep(
                kind="timer",
                label="Attesa prima della cancellazione dei file" if retention else DEADLINE_LABEL,
                detail=f"prevista il {format_it(at + fire)}",
                outcome="waiting",
                started_at=at,
            )
            timers[ev.event_id] = step
            order.append((at, ev.event_id, step))
        elif kind == "timer_fired_event_attributes":
            step = timers.get(attrs.started_event_id) or TimelineStep(
                kind="timer", label="Timer", outcome="ok", started_at=at
            )
            step.ended_at, step.outcome = at, "ok"
            if step.label == DEADLINE_LABEL:
                step.detail = f"scaduta il {format_it(at)}"
                step.outcome = "failed"
            step.duration_ms = _duration(step.started_at, at)
        elif kind == "timer_canceled_event_attributes":
            timer = timers.get(attrs.started_event_id)
            if timer is not None:
                timer.ended_at, timer.outcome = at, "cancelled"
                timer.detail = "lavoro concluso in tempo" if timer.label == DEADLINE_LABEL else timer.detail
                timer.duration_ms = _duration(timer.started_at, at)
        elif kind == "workflow_execution_signaled_event_attributes":
            label = (
                "Crediti aggiunti" if attrs.signal_name == "credits_added" else f"Segnale {attrs.signal_name}"
            )
            order.append(
                (at, ev.event_id, TimelineStep(kind="signal", label=label, outcome="ok", started_at=at))
            )
        elif kind == "workflow_execution_update_accepted_event_attributes":
            accepted[ev.event_id] = (attrs.accepted_request.input.name, at)
        elif kind == "workflow_execution_update_completed_event_attributes":
            # a successful update shows through its activities; a refused one gets its own step
            if attrs.outcome.HasField("failure"):
                name, since = accepted.get(attrs.accepted_event_id, ("update", at))
                step = TimelineStep(
                    kind=name,
                    label=UPDATE_LABELS.get(name, name),
                    detail=f"rifiutata: {attrs.outcome.failure.message}",
                    outcome="failed",
                    started_at=since,
                    ended_at=at,
                    duration_ms=_duration(since, at),
                )
                order.append((since, attrs.accepted_event_id, step))
        elif kind in WORKFLOW_END:
            label, outcome = WORKFLOW_END[kind]
            step = TimelineStep(kind="ended", label=label, outcome=outcome, started_at=at, ended_at=at)  # type: ignore[arg-type]
            if kind == "workflow_execution_failed_event_attributes" and attrs.failure.message:
                step.detail = attrs.failure.message
            if started_at is not None:
                step.duration_ms = _duration(started_at, at)
            order.append((at, ev.event_id, step))
    order.sort(key=lambda x: (x[0], x[1]))
    steps: list[TimelineStep] = []
    for _, _, item in order:
        if isinstance(item, TimelineStep):
            steps.append(item)
        else:
            steps.extend(_activity_steps(item, names))
    return steps


def _activity_steps(act: _Activity, names: Mapping[str, str]) -> list[TimelineStep]:
    """One step per activity, preceded by one ``retry`` step per earlier failed attempt."""
    if act.name == "set_job_status" and str(act.arg.get("status")) not in STATUS_LABELS:
        return []  # bookkeeping of statuses already shown by their own steps
    label, detail = _label(act, names)
    if act.name == "reserve_credits" and act.error_type == "InsufficientCreditsError":
        act.outcome, act.failure, act.attempt = "waiting", None, 1
        detail = "crediti insufficienti: il lavoro attende un acquisto o un accredito"
    steps: list[TimelineStep] = []
    for n in range(1, act.attempt):
        reason = act.last_failure if n == act.attempt - 1 else None
        steps.append(
            TimelineStep(
                kind=act.name,
                label=label,
                detail=f"{_attempt(n, act.max_attempts)} fallito" + (f": {reason}" if reason else ""),
                outcome="retry",
                started_at=act.scheduled,
                attempt=n,
                max_attempts=act.max_attempts,
            )
        )
    start = act.started or act.scheduled
    parts = [detail] if detail else []
    retried = act.attempt > 1 or (
        act.max_attempts is not None and act.max_attempts > 1 and act.name == "retouch_photo"
    )
    if act.outcome == "failed":
        parts.append(
            f"{_attempt(act.attempt, act.max_attempts)} fallito" + (f": {act.failure}" if act.failure else "")
        )
    elif act.outcome == "ok" and retried:
        parts.append(f"{_attempt(act.attempt, act.max_attempts)} riuscito")
    elif act.outcome == "running" and retried:
        parts.append(f"{_attempt(act.attempt, act.max_attempts)} in corso")
    steps.append(
        TimelineStep(
            kind=act.name,
            label=label,
            detail="; ".join(parts) or None,
            outcome=act.outcome,
            started_at=start,
            ended_at=act.ended,
            duration_ms=_duration(start, act.ended),
            attempt=act.attempt,
            max_attempts=act.max_attempts,
        )
    )
    return steps

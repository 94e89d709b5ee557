"""The Italian job timeline (``api/job_timeline.py``) built from recorded workflow
histories of real runs (``tests/jobs/histories``, :func:`tests.utils.histories.history_path`): AI success, AI retry after a crashed worker, AI
failure, human assignment with its deadline and the overdue reminder."""

from __future__ import annotations

from temporalio.api.enums.v1 import EventType
from temporalio.client import WorkflowHistory

from api.job_timeline import PendingAttempt, TimelineStep, build_timeline, designer_ids
from tests.utils.histories import history_path


def timeline(name: str, names: dict[str, str] | None = None) -> list[TimelineStep]:
    history = WorkflowHistory.from_json(name, history_path(name).read_text())
    return build_timeline(list(history.events), names)


def labels(steps: list[TimelineStep]) -> list[str]:
    return [s.label for s in steps]


def test_ai_success_then_retention() -> None:
    steps = timeline("ai-completed-retention")
    assert labels(steps) == [
        "Avvio del flusso",
        "Prenotazione crediti",
        "Inizio elaborazione",
        "Ritocco AI",
        "Addebito crediti",
        "Consegna",
        "Attesa prima della cancellazione dei file",
        "Cancellazione file dopo 30 giorni",
        "Flusso concluso",
    ]
    retouch = steps[3]
    assert retouch.outcome == "ok" and retouch.detail == "tentativo 1/3 riuscito"
    assert retouch.attempt == 1 and retouch.max_attempts == 3
    assert retouch.duration_ms is not None and retouch.duration_ms > 0
    assert retouch.ended_at is not None and retouch.ended_at >= retouch.started_at
    wait = steps[6]
    assert wait.outcome == "ok" and wait.duration_ms == 30 * 24 * 3600 * 1000
    assert all(s.outcome == "ok" for s in steps)
    starts = [s.started_at for s in steps]
    assert starts == sorted(starts)


def test_ai_retry_after_a_failed_attempt_is_visible() -> None:
    steps = timeline("ai-worker-crash")
    retouch = [s for s in steps if s.kind == "retouch_photo"]
    assert [(s.outcome, s.detail) for s in retouch] == [
        ("retry", "tentativo 1/3 fallito: activity Heartbeat timeout"),
        ("ok", "tentativo 2/3 riuscito"),
    ]
    assert labels(steps)[-1] == "Attesa prima della cancellazione dei file"
    assert steps[-1].outcome == "waiting" and steps[-1].detail and steps[-1].detail.startswith("prevista il ")


def test_ai_failure_shows_the_reason_and_the_release() -> None:
    steps = timeline("ai-bad-image")
    failed = [s for s in steps if s.outcome == "failed"]
    assert len(failed) == 1 and failed[0].label == "Ritocco AI"
    assert failed[0].detail == (
        "tentativo 1/3 fallito: Impossibile leggere l'immagine: formato non supportato o file danneggiato"
    )
    assert labels(steps)[4:6] == ["Rilascio crediti", "Lavoro non riuscito"]
    assert "Addebito crediti" not in labels(steps)


def test_human_assignment_deadline_and_overdue_reminder() -> None:
    history = WorkflowHistory.from_json("h", history_path("human-deadline-escalation").read_text())
    ids = designer_ids(list(history.events))
    assert len(ids) == 1
    names = {str(next(iter(ids))): "Marco Rossi"}
    steps = timeline("human-deadline-escalation", names)
    assert labels(steps) == [
        "Avvio del flusso",
        "Prenotazione crediti",
        "In coda per i grafici",
        "Assegnazione a Marco Rossi",
        "Scadenza dell'assegnazione (72 ore)",
        "Inizio lavorazione del grafico",
        "Sollecito per ritardo",
        "Assegnazione a Marco Rossi",
        "Scadenza dell'assegnazione (72 ore)",
    ]
    assign = steps[3]
    assert assign.outcome == "ok" and assign.detail and assign.detail.startswith("a Marco Rossi, scadenza ")
    expired = steps[4]
    assert expired.outcome == "failed" and expired.detail and expired.detail.startswith("scaduta il ")
    assert abs((expired.duration_ms or 0) - 72 * 3600 * 1000) < 1000
    assert steps[-1].outcome == "waiting"


def test_human_delivery_cancels_the_deadline() -> None:
    steps = timeline("human-completed", {})
    deadline = next(s for s in steps if s.label == "Scadenza dell'assegnazione (72 ore)")
    assert deadline.outcome == "cancelled" and deadline.detail == "lavoro concluso in tempo"
    assert "Assegnazione a un grafico" in labels(steps)
    assert "Consegna del grafico" in labels(steps)


def test_waiting_for_credits_is_not_a_failure() -> None:
    steps = timeline("ai-waited-for-credits")
    assert not [s for s in steps if s.outcome == "failed"]
    waits = [s for s in steps if s.kind == "reserve_credits" and s.outcome == "waiting"]
    assert waits and waits[0].detail == "crediti insufficienti: il lavoro attende un acquisto o un accredito"


def test_a_retry_in_progress_shows_the_failed_attempt() -> None:
    """While the retouch is still retrying, the history ends at its scheduled event; the workflow's
    description (pending activities) supplies the current attempt and the last failure."""
    history = WorkflowHistory.from_json("c", history_path("ai-worker-crash").read_text())
    events = list(history.events)
    cut = next(
        i
        for i, e in enumerate(events)
        if e.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_STARTED and i > 16
    )
    running = events[:cut]  # up to the retouch's scheduled event
    activity_id = running[-1].activity_task_scheduled_event_attributes.activity_id
    steps = build_timeline(
        running, {}, {activity_id: PendingAttempt(attempt=2, last_failure="activity Heartbeat timeout")}
    )
    retouch = [(s.outcome, s.detail) for s in steps if s.kind == "retouch_photo"]
    assert retouch == [
        ("retry", "tentativo 1/3 fallito: activity Heartbeat timeout"),
        ("running", "tentativo 2/3 in corso"),
    ]

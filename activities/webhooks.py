"""Webhook events of a seller's jobs, and the delivery activity (task queue ``photo-jobs``).

:func:`emit_job_event` is called by the job activities (:mod:`activities.jobs`,
:mod:`activities.human_jobs`) in the same transaction that changes the job: it freezes the event's
payload (the job as ``GET /v1/jobs/{id}`` shows it, and links; never image bytes) and inserts one
``webhook_deliveries`` row per enabled endpoint of the owner that subscribed to the event. Committed
with the job's change, so an event is never lost nor sent for a change that rolled back; the
dispatcher (:func:`workflows.webhook_delivery.dispatch_forever`) then starts one
``WebhookDeliveryWorkflow`` per delivery, so retries live in their own short histories and never in the
photo's. A retried activity emits once (``dedupe_key`` from the activity's identity).

:meth:`WebhookActivities.deliver_webhook` is one HTTP attempt: signed (:mod:`fotopronta.webhooks`),
sent by :func:`fotopronta.safe_fetch.request` (the URL and every redirect checked as ``image_url``),
15 s, recorded in ``webhook_attempts``; 410 disables the endpoint.
"""

from __future__ import annotations

import asyncio
import json
import time
import uuid
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import event, func, select
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.orm import Session, sessionmaker
from temporalio import activity

from activities.contracts import WEBHOOK_MAX_RETRY_AFTER_S, DeliverWebhookInput, DeliverWebhookOutput
from fotopronta import mailer, webhooks
from fotopronta.mailer import public_link
from fotopronta.models import (
    EmailOutbox,
    Notification,
    Order,
    PhotoProcessingJob,
    Profile,
    WebhookAttempt,
    WebhookDelivery,
    WebhookEndpoint,
    WebhookEvent,
)
from fotopronta.safe_fetch import FetchError, request
from fotopronta.settings import get_settings

TERMINAL_EVENTS = frozenset({"job.completed", "job.failed", "job.rework_rejected"})
"""Events after which the job's batch may have finished (``batch.completed``)."""


def _dedupe_key(subject: str, event_type: str) -> str:
    """The same key for every retry of the emitting activity (its workflow run and activity id), a
    fresh one outside an activity."""
    try:
        info = activity.info()
    except RuntimeError:
        return f"{subject}:{event_type}:{uuid.uuid4()}"
    return f"{info.workflow_id}:{info.workflow_run_id}:{info.activity_id}:{subject}:{event_type}"


def _subscribers(session: Session, user_id: uuid.UUID, livemode: bool, event_type: str) -> list[uuid.UUID]:
    endpoints = session.execute(
        select(WebhookEndpoint.id, WebhookEndpoint.events).where(
            WebhookEndpoint.user_id == user_id,
            WebhookEndpoint.livemode.is_(livemode),
            WebhookEndpoint.deleted_at.is_(None),
            WebhookEndpoint.disabled_at.is_(None),
        )
    ).all()
    return [endpoint_id for endpoint_id, events in endpoints if event_type in (events or [])]


def _store(
    session: Session,
    *,
    user_id: uuid.UUID,
    job_id: uuid.UUID | None,
    event_type: str,
    dedupe_key: str,
    payload: dict[str, Any],
    endpoint_ids: list[uuid.UUID],
) -> None:
    event_id = session.execute(
        insert(WebhookEvent)
        .values(
            id=uuid.uuid4(),
            user_id=user_id,
            type=event_type,
            job_id=job_id,
            dedupe_key=dedupe_key,
            payload=payload,
        )
        .on_conflict_do_nothing(index_elements=["dedupe_key"])
        .returning(WebhookEvent.id)
    ).scalar_one_or_none()
    if event_id is None:
        return  # a retry of the activity that already emitted it
    for endpoint_id in endpoint_ids:
        session.add(WebhookDelivery(event_id=event_id, endpoint_id=endpoint_id, status="pending", attempts=0))
    session.flush()
    event.listen(session, "after_commit", lambda _s: webhooks.notify_dispatcher(), once=True)


def _payload(event_type: str, data: dict[str, Any], links: dict[str, str | None]) -> dict[str, Any]:
    return {
        "type": event_type,
        "timestamp": datetime.now(UTC).isoformat().replace("+00:00", "Z"),
        "data": data,
        "links": links,
    }


def emit_job_event(session: Session, job: PhotoProcessingJob, event_type: str) -> None:
    """Record ``event_type`` about ``job`` for every enabled endpoint of its owner (same mode) that
    subscribed to it, in the caller's transaction; nothing at all when none did. A terminal event that
    finished the job's batch also emits ``batch.completed``. Call it after the job's row is changed
    (the payload is the job as it is then).

    Raises:
        KeyError: ``event_type`` is not one of :data:`fotopronta.webhooks.EVENT_TYPES`.
    """
    if event_type not in webhooks.EVENT_TYPES:
        raise KeyError(event_type)
    endpoint_ids = _subscribers(session, job.user_id, job.livemode, event_type)
    if endpoint_ids:
        from api.services.public_jobs import job_views

        session.flush()
        view = job_views(session, [job])[0].model_dump(mode="json")
        links = {
            "job": public_link(f"/v1/jobs/{job.id}"),
            "result": public_link(f"/v1/jobs/{job.id}/result") if view["links"]["result"] else None,
            "app": public_link("/photos"),
        }
        _store(
            session,
            user_id=job.user_id,
            job_id=job.id,
            event_type=event_type,
            dedupe_key=_dedupe_key(str(job.id), event_type),
            payload=_payload(event_type, view, links),
            endpoint_ids=endpoint_ids,
        )
    if event_type in TERMINAL_EVENTS:
        _emit_batch_completed(session, job)


def emit_credits_low(session: Session, user_id: uuid.UUID, before: int, after: int) -> None:
    """``credits.low`` when the balance went from at least ``settings.webhook_credits_low_threshold``
    to below it (once per crossing), in the caller's transaction; ``data`` is
    ``{"object": "account", "credits_remaining", "threshold"}``."""
    threshold = get_settings().webhook_credits_low_threshold
    if not before >= threshold > after:
        return
    endpoint_ids = _subscribers(session, user_id, True, "credits.low")
    if not endpoint_ids:
        return
    data = {"object": "account", "credits_remaining": after, "threshold": threshold}
    links: dict[str, str | None] = {"account": public_link("/v1/account"), "buy": public_link("/credits")}
    _store(
        session,
        user_id=user_id,
        job_id=None,
        event_type="credits.low",
        dedupe_key=_dedupe_key(str(user_id), "credits.low"),
        payload=_payload("credits.low", data, links),
        endpoint_ids=endpoint_ids,
    )


def _emit_batch_completed(session: Session, job: PhotoProcessingJob) -> None:
    """``batch.completed`` once per batch (order), when its last job has finished."""
    order_id = job.photo.order_id if job.photo is not None else None
    if order_id is None:
        return
    order = session.get(Order, order_id)
    if order is None or order.status != "completed":
        return
    endpoint_ids = _subscribers(session, job.user_id, job.livemode, "batch.completed")
    if not endpoint_ids:
        return
    from api.services.api_keys import KeyCaller
    from api.services.public_jobs import batch_view

    caller = KeyCaller(
        key_id=uuid.UUID(int=0),
        user_id=job.user_id,
        mode="live" if job.livemode else "test",
        scopes=frozenset(),
        monthly_credit_cap=None,
    )
    view = batch_view(session, caller, order_id).model_dump(mode="json")
    links: dict[str, str | None] = {
        "batch": public_link(f"/v1/batches/{order_id}"),
        "app": public_link("/orders"),
    }
    _store(
        session,
        user_id=job.user_id,
        job_id=None,
        event_type="batch.completed",
        dedupe_key=f"batch:{order_id}:batch.completed",
        payload=_payload("batch.completed", view, links),
        endpoint_ids=endpoint_ids,
    )


FAILING_DAYS = 3
"""An endpoint whose delivery ran out of attempts and that answered no 2xx for this many days is
disabled (``disabled_reason`` ``failing``) and its owner e-mailed."""


def _tell_seller(session: Session, endpoint: WebhookEndpoint, why: str) -> None:
    session.add(
        Notification(
            user_id=endpoint.user_id,
            type="warning",
            title="Endpoint webhook disattivato",
            message=f"L'endpoint webhook {endpoint.url} {why}: l'abbiamo disattivato e non riceverà nuovi eventi.",
        )
    )


def _disable_if_failing(session: Session, endpoint_id: uuid.UUID) -> mailer.Email | None:
    """Disable the endpoint when it answered no 2xx for :data:`FAILING_DAYS` days; the e-mail to its
    owner is stored in the outbox in this transaction and returned for delivery after the commit."""
    endpoint = session.get_one(WebhookEndpoint, endpoint_id, with_for_update=True)
    if endpoint.disabled_at is not None or endpoint.deleted_at is not None:
        return None
    since = datetime.now(UTC) - timedelta(days=FAILING_DAYS)
    answered = session.execute(
        select(func.count())
        .select_from(WebhookAttempt)
        .join(WebhookDelivery, WebhookDelivery.id == WebhookAttempt.delivery_id)
        .where(
            WebhookDelivery.endpoint_id == endpoint.id,
            WebhookAttempt.started_at >= since,
            WebhookAttempt.status_code >= 200,
            WebhookAttempt.status_code < 300,
        )
    ).scalar_one()
    if answered:
        return None
    endpoint.disabled_at = datetime.now(UTC)
    endpoint.disabled_reason = "failing"
    _tell_seller(session, endpoint, f"non risponde correttamente da {FAILING_DAYS} giorni")
    owner = session.get_one(Profile, endpoint.user_id)
    email = mailer.webhook_disabled_email(
        to=owner.email, first_name=owner.first_name, url=endpoint.url, link=mailer.public_link("/developers")
    )
    session.add(EmailOutbox(to_address=email.to, subject=email.subject, text=email.text, links=email.links))
    return email


@dataclass
class _Prepared:
    """What one attempt sends: the endpoint's URL, the secrets that sign, and the body."""

    url: str
    secrets: list[str]
    body: str


class WebhookActivities:
    """The delivery activity; holds the session factory."""

    def __init__(self, sessions: sessionmaker[Session]) -> None:
        self.sessions = sessions

    def _prepare(self, inp: DeliverWebhookInput) -> _Prepared | DeliverWebhookOutput:
        """The request to send, or the outcome without sending: the delivery already succeeded (a
        retried activity), or its endpoint was disabled or deleted (the delivery fails)."""
        with self.sessions.begin() as session:
            delivery = session.get(WebhookDelivery, uuid.UUID(inp.delivery_id), with_for_update=True)
            if delivery is None:
                return DeliverWebhookOutput(outcome="stop")
            if delivery.status == "succeeded" and not inp.manual:
                return DeliverWebhookOutput(outcome="succeeded", status_code=delivery.last_status_code)
            endpoint = session.get_one(WebhookEndpoint, delivery.endpoint_id)
            if endpoint.deleted_at is not None or endpoint.disabled_at is not None:
                delivery.status = "failed"
                delivery.last_error = (
                    "endpoint eliminato" if endpoint.deleted_at is not None else "endpoint disattivato"
                )
                delivery.next_attempt_at = None
                delivery.completed_at = delivery.completed_at or datetime.now(UTC)
                return DeliverWebhookOutput(outcome="stop")
            now = datetime.now(UTC)
            signing = [endpoint.secret]
            if endpoint.previous_secret and (endpoint.previous_secret_expires_at or now) > now:
                signing.append(endpoint.previous_secret)
            payload = session.get_one(WebhookEvent, delivery.event_id).payload
            return _Prepared(
                url=endpoint.url,
                secrets=signing,
                body=json.dumps(payload, ensure_ascii=False, separators=(",", ":")),
            )

    def _record(
        self,
        inp: DeliverWebhookInput,
        started: datetime,
        status: int | None,
        elapsed_ms: int,
        error: str | None,
        judged: webhooks.Outcome,
        wait_s: int | None,
    ) -> None:
        """Write the attempt and the delivery's state; ``gone`` disables the endpoint, and so does a
        schedule that ran out without a 2xx from the endpoint for :data:`FAILING_DAYS` days (the seller
        is e-mailed)."""
        email: mailer.Email | None = None
        with self.sessions.begin() as session:
            delivery = session.get_one(WebhookDelivery, uuid.UUID(inp.delivery_id), with_for_update=True)
            session.add(
                WebhookAttempt(
                    delivery_id=delivery.id,
                    number=delivery.attempts + 1,
                    started_at=started,
                    status_code=status,
                    response_ms=elapsed_ms,
                    error=error[:300] if error else None,
                    manual=inp.manual,
                )
            )
            delivery.attempts += 1
            delivery.last_status_code = status
            delivery.last_error = error[:300] if error else None
            finished = judged != "retry" or wait_s is None
            if judged == "succeeded":
                delivery.status = "succeeded"
            elif finished and not (inp.manual and delivery.status == "succeeded"):
                delivery.status = "failed"
            else:
                delivery.status = delivery.status if inp.manual else "pending"
            delivery.next_attempt_at = (
                None if finished else datetime.now(UTC) + timedelta(seconds=wait_s or 0)
            )
            if finished:
                delivery.completed_at = datetime.now(UTC)
            if judged == "gone":
                endpoint = session.get_one(WebhookEndpoint, delivery.endpoint_id, with_for_update=True)
                if endpoint.disabled_at is None:
                    endpoint.disabled_at = datetime.now(UTC)
                    endpoint.disabled_reason = "gone"
                    _tell_seller(session, endpoint, "ha risposto 410 (Gone)")
            elif judged == "retry" and finished and not inp.manual:
                email = _disable_if_failing(session, delivery.endpoint_id)
        if email is not None:
            try:
                mailer.deliver_stored(email)
            except mailer.MailDeliveryError:
                activity.logger.exception("e-mail about a disabled webhook endpoint not delivered")

    @activity.defn(name="deliver_webhook")
    async def deliver_webhook(self, inp: DeliverWebhookInput) -> DeliverWebhookOutput:
        """One attempt of a delivery: ``POST`` the signed event to the endpoint (15 s), record it, and
        say what comes next. ``inp.next_wait_s`` is the schedule's wait before the next attempt
        (``None``: this is the last one); a longer ``Retry-After`` replaces it (at most a day).

        Raises:
            Exception: only a database error (Temporal retries the activity; nothing was recorded).
        """
        prepared = await asyncio.to_thread(self._prepare, inp)
        if isinstance(prepared, DeliverWebhookOutput):
            return prepared
        started = datetime.now(UTC)
        headers = webhooks.signed_headers(prepared.secrets, inp.delivery_id, started, prepared.body)
        clock = time.monotonic()
        status: int | None = None
        error: str | None = None
        retry_after: int | None = None
        try:
            answer = await request(
                "POST",
                prepared.url,
                content=prepared.body.encode(),
                headers=headers,
                max_bytes=webhooks.MAX_ANSWER_BYTES,
                timeout_s=webhooks.TIMEOUT_S,
                prefix="webhook_url",
            )
            status = answer.status
            retry_after = webhooks.retry_after_seconds(answer.headers.get("retry-after"))
            judged = webhooks.judge_answer(status)
        except FetchError as exc:
            error = f"{exc.code}: {exc.message}"
            judged = "retry"
        elapsed_ms = int((time.monotonic() - clock) * 1000)
        wait_s: int | None = None
        if judged == "retry" and inp.next_wait_s is not None:
            wait_s = max(inp.next_wait_s, min(retry_after or 0, WEBHOOK_MAX_RETRY_AFTER_S))
        await asyncio.to_thread(self._record, inp, started, status, elapsed_ms, error, judged, wait_s)
        if judged == "retry":  # wait_s None: that was the last attempt of the schedule
            return DeliverWebhookOutput(outcome="retry", status_code=status, retry_after_s=wait_s)
        return DeliverWebhookOutput(
            outcome="succeeded" if judged == "succeeded" else "stop", status_code=status
        )

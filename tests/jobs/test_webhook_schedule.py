"""The webhook retry schedule on the time-skipping server, with the real ``deliver_webhook`` activity
on PostgreSQL and a receiver on loopback that always answers 503: ten attempts over about three days
(immediately, 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 14 h, 20 h, 24 h), a ``Retry-After`` longer than the
next wait honoured, the delivery failed at the end with every attempt in its log, and a history of a
few dozen events (the photo's workflow carries none of it); three days without a 2xx disable the
endpoint, and its owner is told in the app and by e-mail."""

from __future__ import annotations

import threading
import uuid
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from sqlalchemy import select
from temporalio.api.enums.v1 import EventType

from activities.contracts import (
    TASK_QUEUE_JOBS,
    WEBHOOK_RETRY_SCHEDULE_S,
    WebhookDeliveryInput,
    workflow_id_for_delivery,
)
from fotopronta import webhooks
from fotopronta.models import (
    EmailOutbox,
    Notification,
    Profile,
    WebhookAttempt,
    WebhookDelivery,
    WebhookEndpoint,
    WebhookEvent,
)
from tests.jobs.conftest import TimeSkipping
from tests.utils.factories import settings_env
from tests.utils.histories import maybe_record
from tests.utils.jobs import new_user
from workflows.webhook_delivery import WebhookDeliveryWorkflow

RETRY_AFTER_ON_SECOND = 600
"""The second answer asks for 10 minutes: longer than the schedule's 5 min before the third attempt."""


@pytest.fixture
def failing_receiver() -> Iterator[tuple[str, list[str]]]:
    """A receiver on loopback answering 503 to everything (``Retry-After: 600`` on the second
    request); yields its URL and the ``webhook-id`` of each request."""
    seen: list[str] = []

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: object) -> None:
            pass

        def do_POST(self) -> None:  # noqa: N802  http.server's naming
            self.rfile.read(int(self.headers.get("content-length", "0")))
            seen.append(self.headers["webhook-id"])
            self.send_response(503)
            if len(seen) == 2:
                self.send_header("Retry-After", str(RETRY_AFTER_ON_SECOND))
            self.send_header("Content-Length", "0")
            self.end_headers()

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/hook", seen
    finally:
        server.shutdown()
        server.server_close()


async def test_three_days_of_retries(
    time_skipping: TimeSkipping, failing_receiver: tuple[str, list[str]]
) -> None:
    ts = time_skipping
    url, seen = failing_receiver
    user_id = new_user(ts.sessions)
    with ts.sessions.begin() as session:
        endpoint = WebhookEndpoint(
            user_id=user_id, url=url, events=["job.completed"], secret=webhooks.new_secret()
        )
        session.add(endpoint)
        session.flush()
        event = WebhookEvent(
            user_id=user_id,
            type="job.completed",
            dedupe_key=f"test:{uuid.uuid4()}",
            payload={"type": "job.completed", "timestamp": "2026-11-28T12:00:00Z", "data": {}},
        )
        session.add(event)
        session.flush()
        delivery = WebhookDelivery(event_id=event.id, endpoint_id=endpoint.id, status="pending", attempts=0)
        session.add(delivery)
        session.flush()
        delivery_id = str(delivery.id)

    with settings_env(fetch_allow_loopback="true"):
        handle = await ts.env.client.start_workflow(
            WebhookDeliveryWorkflow.run,
            WebhookDeliveryInput(delivery_id=delivery_id),
            id=workflow_id_for_delivery(delivery_id),
            task_queue=TASK_QUEUE_JOBS,
        )
        assert await handle.result() == "retry"  # the schedule ran out
    await maybe_record(handle, "webhook-three-days")

    history = await handle.fetch_history()
    scheduled = [
        e.event_time.ToDatetime()
        for e in history.events
        if e.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED
    ]
    gaps = [round((b - a).total_seconds()) for a, b in zip(scheduled, scheduled[1:], strict=False)]
    expected = list(WEBHOOK_RETRY_SCHEDULE_S[1:])
    expected[1] = RETRY_AFTER_ON_SECOND  # Retry-After: 600 beat the 5 min
    print("attempt gaps (s):", gaps)
    assert len(scheduled) == len(WEBHOOK_RETRY_SCHEDULE_S) == 10
    assert all(abs(g - e) <= 2 for g, e in zip(gaps, expected, strict=True)), (gaps, expected)
    span_days = (scheduled[-1] - scheduled[0]).total_seconds() / 86400
    assert 3.1 < span_days < 3.2, span_days  # 272,405 s: about three days
    assert len(history.events) < 120  # ten attempts and ten timers: its own short history

    assert seen == [delivery_id] * 10  # the same webhook-id on every attempt
    with ts.sessions() as session:
        row = session.get_one(WebhookDelivery, uuid.UUID(delivery_id))
        assert row.status == "failed" and row.attempts == 10 and row.next_attempt_at is None
        assert row.completed_at is not None and row.last_status_code == 503
        attempts = (
            session.execute(
                select(WebhookAttempt)
                .where(WebhookAttempt.delivery_id == row.id)
                .order_by(WebhookAttempt.number)
            )
            .scalars()
            .all()
        )
        assert [a.number for a in attempts] == list(range(1, 11))
        assert all(a.status_code == 503 and a.response_ms is not None for a in attempts)
        # three days without a 2xx: the endpoint is disabled and the seller told, in the app and by e-mail
        hook = session.get_one(WebhookEndpoint, row.endpoint_id)
        assert hook.disabled_at is not None and hook.disabled_reason == "failing"
        owner = session.get_one(Profile, user_id)
        (mail,) = session.execute(select(EmailOutbox).where(EmailOutbox.to_address == owner.email)).scalars()
        assert mail.subject == "Endpoint webhook disattivato" and url in mail.text
        assert session.execute(
            select(Notification).where(
                Notification.user_id == user_id, Notification.title == "Endpoint webhook disattivato"
            )
        ).scalar_one()

"""Webhooks to sellers' servers, signed by the Standard Webhooks specification
(https://www.standardwebhooks.com/, the ``standardwebhooks`` package).

Every delivery is a ``POST`` of JSON ``{"type", "timestamp", "data"}`` with the headers
``webhook-id`` (the delivery's id, the same on every attempt, so a receiver recognises a replay),
``webhook-timestamp`` (Unix seconds of this attempt) and ``webhook-signature``: ``v1,`` and the base64
HMAC-SHA256 of ``{id}.{timestamp}.{body}`` with the endpoint's secret; during a rotation a second
``v1,`` signature with the previous secret follows, space separated. Secrets are ``whsec_`` + base64
of 32 random bytes.

What an answer means (:func:`judge_answer`): a 2xx is delivered; 408, 429, 5xx, a timeout or no
connection are retried on the schedule of :data:`activities.contracts.WEBHOOK_RETRY_SCHEDULE_S`
(``Retry-After`` honoured); any other 4xx stops the delivery, and 410 also disables the endpoint.
"""

from __future__ import annotations

import base64
import secrets
from collections.abc import Callable
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from typing import Literal

from standardwebhooks.webhooks import Webhook

EVENT_TYPES: tuple[str, ...] = (
    "job.completed",
    "job.failed",
    "job.needs_review",
    "job.waiting_for_credits",
    "job.assigned_to_designer",
    "job.rework_rejected",
    "batch.completed",
    "credits.low",
)
"""Every event an endpoint may subscribe to."""
SECRET_PREFIX = "whsec_"
SECRET_BYTES = 32
TIMEOUT_S = 15.0
"""Seconds a receiver has to answer one attempt (connection, redirects and body)."""
MAX_ANSWER_BYTES = 64 * 1024
"""The most of an answer's body read (and dropped): receivers answer small."""
ROTATION_OVERLAP_S = 24 * 3600
"""How long the previous secret keeps signing after a rotation."""
USER_AGENT = "FotoPronta-Webhooks/1.0 (+https://fotopronta.it)"

Outcome = Literal["succeeded", "retry", "stop", "gone"]


def new_secret() -> str:
    """A fresh signing secret: ``whsec_`` + base64 of :data:`SECRET_BYTES` random bytes."""
    return SECRET_PREFIX + base64.b64encode(secrets.token_bytes(SECRET_BYTES)).decode()


def signature_header(signing_secrets: list[str], msg_id: str, timestamp: datetime, body: str) -> str:
    """The ``webhook-signature`` value: one ``v1,<base64>`` per secret (the current one first),
    space separated.

    Args:
        signing_secrets: ``whsec_…`` secrets, at least one.
        msg_id: the ``webhook-id``.
        timestamp: the ``webhook-timestamp`` (aware datetime; sent as whole Unix seconds).
        body: the exact JSON text sent.
    """
    return " ".join(Webhook(s).sign(msg_id, timestamp, body) for s in signing_secrets)


def signed_headers(signing_secrets: list[str], msg_id: str, timestamp: datetime, body: str) -> dict[str, str]:
    """The request headers of one attempt: the three Standard Webhooks headers and the JSON type."""
    return {
        "content-type": "application/json",
        "user-agent": USER_AGENT,
        "webhook-id": msg_id,
        "webhook-timestamp": str(int(timestamp.timestamp())),
        "webhook-signature": signature_header(signing_secrets, msg_id, timestamp, body),
    }


def retry_after_seconds(value: str | None, now: datetime | None = None) -> int | None:
    """Seconds a ``Retry-After`` header asks to wait (delta seconds or an HTTP date), ``None`` when
    absent or unreadable; never negative."""
    if not value:
        return None
    value = value.strip()
    if value.isdigit():
        return int(value)
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max(0, int((when - (now or datetime.now(UTC))).total_seconds()))


def judge_answer(status: int) -> Outcome:
    """What an HTTP status means for a delivery: ``succeeded`` (2xx), ``gone`` (410: disable the
    endpoint), ``retry`` (408, 429, 5xx, and any 1xx/3xx left after redirects) or ``stop`` (any other
    4xx: the receiver refuses this event, sending it again would not help)."""
    if 200 <= status < 300:
        return "succeeded"
    if status == 410:
        return "gone"
    if 400 <= status < 500 and status not in (408, 429):
        return "stop"
    return "retry"


_dispatcher_wakers: list[Callable[[], None]] = []


def add_dispatcher_waker(wake: Callable[[], None]) -> Callable[[], None]:
    """Register ``wake`` (thread-safe, e.g. an event loop's ``call_soon_threadsafe(event.set)``) to be
    called when new deliveries were committed in this process; returns the function that removes it."""
    _dispatcher_wakers.append(wake)
    return lambda: _dispatcher_wakers.remove(wake) if wake in _dispatcher_wakers else None


def notify_dispatcher() -> None:
    """Tell this process's delivery dispatchers that new deliveries were committed (they also look
    every few seconds, so one in another process is found too)."""
    for wake in list(_dispatcher_wakers):
        wake()

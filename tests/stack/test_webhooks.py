"""Webhooks on the real stack (PostgreSQL, Temporal, the retouch worker) with a receiver on loopback:
endpoints registered through ``/v1/webhook-endpoints`` (secret shown once), every event of AI and
designer jobs delivered and signed so that ``standardwebhooks`` verifies it, first attempts failed
(503, 429 with ``Retry-After``) and retried on the schedule, 'Reinvia' cutting a wait short, a 4xx not
retried, a 410 disabling its endpoint, the log showing every attempt; URLs checked as ``image_url``
at registration and at every delivery and redirect; another account's endpoint or log → 404."""

from __future__ import annotations

import asyncio
import json
import threading
import time
import uuid
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import httpx
import pytest
from sqlalchemy import select
from standardwebhooks.webhooks import Webhook, WebhookVerificationError

from fotopronta.db import session_factory
from fotopronta.domain import UserRole
from fotopronta.models import WebhookAttempt, WebhookDelivery, WebhookEvent
from tests.stack.test_public_jobs import _problem, new_key
from tests.utils.factories import login, make_user, product_photo_bytes, settings_env
from tests.utils.jobs import wait_job_status

pytestmark = pytest.mark.stack


@dataclass
class Received:
    """What the receiver got: every request (path, headers, body) and what it answered."""

    requests: list[tuple[str, dict[str, str], bytes, int]] = field(default_factory=list)
    seen: Counter[str] = field(default_factory=Counter)
    lock: threading.Lock = field(default_factory=threading.Lock)


@pytest.fixture
def receiver() -> Iterator[tuple[str, Received]]:
    """A webhook receiver on loopback. ``/ok``: answers 503 to the first attempt of each
    ``job.completed``, 429 (``Retry-After: 1``) to the first of each ``job.assigned_to_designer``, 503 to
    the first two of each ``job.failed``, else 200. ``/gone``: 410. ``/refuse``: 400. ``/redirect``: 307
    to 10.0.0.1. ``/slow``: answers the first attempt of each delivery after 16 s, then 200."""
    got = Received()

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: object) -> None:
            pass

        def do_POST(self) -> None:  # noqa: N802  http.server's naming
            body = self.rfile.read(int(self.headers.get("content-length", "0")))
            headers = {k.lower(): v for k, v in self.headers.items()}
            extra: dict[str, str] = {}
            if self.path == "/gone":
                code = 410
            elif self.path == "/refuse":
                code = 400
            elif self.path == "/redirect":
                code, extra = 307, {"Location": "http://10.0.0.1/hook"}
            elif self.path == "/slow":
                with got.lock:
                    got.seen[headers["webhook-id"]] += 1
                    first = got.seen[headers["webhook-id"]] == 1
                if first:
                    time.sleep(16)  # past the 15 s a receiver has
                code = 200
            else:
                kind = json.loads(body)["type"]
                with got.lock:
                    got.seen[headers["webhook-id"]] += 1
                    n = got.seen[headers["webhook-id"]]
                code = 200
                if kind == "job.completed" and n == 1:
                    code = 503
                elif kind == "job.assigned_to_designer" and n == 1:
                    code, extra = 429, {"Retry-After": "1"}
                elif kind == "job.failed" and n <= 2:
                    code = 503
            with got.lock:
                got.requests.append((self.path, headers, body, code))
            self.send_response(code)
            for name, value in extra.items():
                self.send_header(name, value)
            self.send_header("Content-Length", "2")
            self.end_headers()
            self.wfile.write(b"ok")

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", got
    finally:
        server.shutdown()
        server.server_close()


ALL_EVENTS = [
    "job.completed",
    "job.failed",
    "job.needs_review",
    "job.waiting_for_credits",
    "job.assigned_to_designer",
    "job.rework_rejected",
    "batch.completed",
]


async def _register(api: httpx.AsyncClient, key: dict[str, str], url: str, events: list[str]) -> dict:
    resp = await api.post("/v1/webhook-endpoints", headers=key, json={"url": url, "events": events})
    assert resp.status_code == 201, resp.text
    created = resp.json()
    assert created["secret"].startswith("whsec_") and created["status"] == "enabled"
    return dict(created)


def _deliveries(endpoint_id: str) -> list[tuple[WebhookDelivery, str]]:
    with session_factory()() as session:
        rows = session.execute(
            select(WebhookDelivery, WebhookEvent.type)
            .join(WebhookEvent, WebhookEvent.id == WebhookDelivery.event_id)
            .where(WebhookDelivery.endpoint_id == uuid.UUID(endpoint_id))
        ).all()
        return [(d, t) for d, t in rows]


async def _wait(check, timeout_s: float = 120, what: str = "") -> None:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout_s
    while not check():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        await asyncio.sleep(0.5)


async def _designer_takes(api: httpx.AsyncClient, designer: dict[str, str], job_id: str) -> None:
    await wait_job_status(session_factory(), job_id, {"pending_human"})
    resp = await api.post(f"/api/designer/jobs/{job_id}/assign-to-me", headers=designer)
    assert resp.status_code == 200, resp.text
    await wait_job_status(session_factory(), job_id, {"assigned_to_graphic"})
    resp = await api.post(f"/api/designer/jobs/{job_id}/start", headers=designer)
    assert resp.status_code == 200, resp.text
    await wait_job_status(session_factory(), job_id, {"in_progress_human"})


async def test_every_event_is_delivered_signed_and_retried(
    api: httpx.AsyncClient, receiver: tuple[str, Received]
) -> None:
    base, got = receiver
    sessions = session_factory()
    _, key, _ = await new_key(api)
    designer = await login(api, *make_user(role=UserRole.graphic))
    photo = {"image_file": ("borsa.jpg", product_photo_bytes((160, 120)), "image/jpeg")}
    with settings_env(fetch_allow_loopback="true"):
        ok = await _register(api, key, f"{base}/ok", ALL_EVENTS)
        gone = await _register(api, key, f"{base}/gone", ["job.completed"])
        refuse = await _register(api, key, f"{base}/refuse", ["job.rework_rejected"])
        listed = (await api.get("/v1/webhook-endpoints", headers=key)).json()["data"]
        assert {e["id"] for e in listed} == {ok["id"], gone["id"], refuse["id"]}
        assert all("secret" not in e for e in listed)

        # two AI jobs; the second is reworked and the rework rejected; a designer job rejected
        first = (await api.post("/v1/jobs", headers=key, files=photo)).json()
        await wait_job_status(sessions, first["id"], {"completed"})

        # the 410 endpoint is disabled by its first delivery and gets nothing more
        await _wait(lambda: any(d.attempts for d, _ in _deliveries(gone["id"])), what="the 410")
        endpoint = (await api.get(f"/v1/webhook-endpoints/{gone['id']}", headers=key)).json()
        assert endpoint["status"] == "disabled" and endpoint["disabled_reason"] == "gone"

        second = (await api.post("/v1/jobs", headers=key, files=photo)).json()
        await wait_job_status(sessions, second["id"], {"completed"})
        rework = await api.post(f"/v1/jobs/{second['id']}/rework", headers=key, json={"reason": "più luce"})
        assert rework.status_code == 202, rework.text
        designer_job = await api.post("/v1/jobs", headers=key, files=photo, data={"service": "designer"})
        assert designer_job.status_code == 202, designer_job.text
        for job_id in (rework.json()["id"], designer_job.json()["id"]):
            await _designer_takes(api, designer, job_id)
            resp = await api.post(
                f"/api/designer/jobs/{job_id}/reject", headers=designer, json={"notes": "foto sfocata"}
            )
            assert resp.status_code == 200, resp.text
            await wait_job_status(sessions, job_id, {"rejected_human"})

        assert len(_deliveries(gone["id"])) == 1
        assert [c for p, _, _, c in got.requests if p == "/gone"] == [410]

        # the 400 is not retried
        await _wait(lambda: all(d.status == "failed" for d, _ in _deliveries(refuse["id"])), what="the 400")
        ((refused, kind),) = _deliveries(refuse["id"])
        assert kind == "job.rework_rejected" and refused.attempts == 1 and refused.last_status_code == 400

        # the job.failed delivery waits 5 minutes after its second 503: 'Reinvia' sends it now
        def failed_twice() -> bool:
            return any(t == "job.failed" and d.attempts == 2 for d, t in _deliveries(ok["id"]))

        await _wait(failed_twice, what="the second attempt of job.failed")
        failed_delivery = next(d for d, t in _deliveries(ok["id"]) if t == "job.failed")
        assert failed_delivery.status == "pending" and failed_delivery.next_attempt_at is not None
        resp = await api.post(f"/v1/webhook-deliveries/{failed_delivery.id}/retry", headers=key)
        assert resp.status_code == 202, resp.text

        await _wait(
            lambda: all(d.status == "succeeded" for d, _ in _deliveries(ok["id"])), what="every delivery"
        )

    kinds = Counter(t for _, t in _deliveries(ok["id"]))
    assert kinds["job.completed"] == 2 and kinds["job.assigned_to_designer"] == 2
    assert kinds["job.rework_rejected"] == 1 and kinds["job.failed"] == 1
    assert kinds["batch.completed"] >= 2

    # every request verifies with the endpoint's secret, and a forged one does not
    hook = Webhook(ok["secret"])
    delivered: dict[str, dict] = {}
    for path, headers, body, code in got.requests:
        if path != "/ok":
            continue
        payload = hook.verify(body, headers)
        if code == 200:
            delivered[headers["webhook-id"]] = payload
    with pytest.raises(WebhookVerificationError):
        _, headers, body, _ = next(r for r in got.requests if r[0] == "/ok")
        Webhook(gone["secret"]).verify(body, headers)
    assert set(delivered) == {str(d.id) for d, _ in _deliveries(ok["id"])}

    # the payload: the job as GET /v1/jobs/{id} shows it, with links, never image bytes
    done = next(
        p for p in delivered.values() if p["type"] == "job.completed" and p["data"]["id"] == first["id"]
    )
    now = (await api.get(f"/v1/jobs/{first['id']}", headers=key)).json()
    assert done["data"] == now
    assert done["links"]["job"].endswith(f"/v1/jobs/{first['id']}")
    assert done["links"]["result"].endswith(f"/v1/jobs/{first['id']}/result")
    assert len(json.dumps(done)) < 4000
    rejected = next(p for p in delivered.values() if p["type"] == "job.rework_rejected")
    assert rejected["data"]["status"] == "rejected" and rejected["data"]["rework_of"] == second["id"]

    # the log: each attempt with its status code and response time; the retries waited their schedule
    log = (
        await api.get(f"/v1/webhook-endpoints/{ok['id']}/deliveries", headers=key, params={"limit": 100})
    ).json()
    by_type: dict[str, list[dict]] = {}
    for item in log["data"]:
        by_type.setdefault(item["event_type"], []).append(item)
    for item in by_type["job.completed"]:
        assert [a["status_code"] for a in item["attempts"]] == [503, 200]
        gap = _seconds(item["attempts"][1]["started_at"]) - _seconds(item["attempts"][0]["started_at"])
        assert gap >= 4.5, gap  # the schedule's 5 s
        assert all(a["response_ms"] is not None for a in item["attempts"])
    for item in by_type["job.assigned_to_designer"]:
        assert [a["status_code"] for a in item["attempts"]] == [429, 200]
    (failed_item,) = by_type["job.failed"]
    assert [a["status_code"] for a in failed_item["attempts"]] == [503, 503, 200]
    assert failed_item["status"] == "succeeded" and failed_item["next_attempt_at"] is None
    assert got.seen[failed_item["id"]] == 3  # one webhook-id for every attempt: a replay is recognisable


def _seconds(iso: str) -> float:
    from datetime import datetime

    return datetime.fromisoformat(iso).timestamp()


async def test_urls_are_checked_and_endpoints_are_the_accounts_own(
    api: httpx.AsyncClient, receiver: tuple[str, Received]
) -> None:
    base, got = receiver
    _, key, _ = await new_key(api)
    _, other, _ = await new_key(api)
    # loopback only under the make-dev setting; private and metadata addresses never
    for url in (f"{base}/ok", "http://127.0.0.1/hook", "http://[::1]/hook"):
        _problem(
            await api.post(
                "/v1/webhook-endpoints", headers=key, json={"url": url, "events": ["job.completed"]}
            ),
            400,
            "webhook_url_forbidden",
        )
    with settings_env(fetch_allow_loopback="true"):
        for url in (
            "http://169.254.169.254/latest/meta-data/",
            "http://10.0.0.1/hook",
            "http://192.168.1.5/",
        ):
            _problem(
                await api.post(
                    "/v1/webhook-endpoints", headers=key, json={"url": url, "events": ["job.failed"]}
                ),
                400,
                "webhook_url_forbidden",
            )
        for url in ("ftp://example.com/hook", "http://user:pw@example.com/hook"):
            _problem(
                await api.post(
                    "/v1/webhook-endpoints", headers=key, json={"url": url, "events": ["job.failed"]}
                ),
                400,
                "webhook_url_invalid",
            )
        resp = await api.post(
            "/v1/webhook-endpoints", headers=key, json={"url": f"{base}/ok", "events": ["nope"]}
        )
        _problem(resp, 422, "validation_error")

        # a redirect to a private address is refused at delivery time, and retried
        redirect = await _register(api, key, f"{base}/redirect", ["job.completed"])
        photo = {"image_file": ("vaso.jpg", product_photo_bytes((96, 72)), "image/jpeg")}
        job = (await api.post("/v1/jobs", headers=key, files=photo)).json()
        await wait_job_status(session_factory(), job["id"], {"completed"})
        await _wait(lambda: any(d.attempts for d, _ in _deliveries(redirect["id"])), what="the redirect")
    ((delivery, _),) = _deliveries(redirect["id"])
    assert delivery.status == "pending" and "webhook_url_forbidden" in (delivery.last_error or "")
    with session_factory()() as session:
        attempts = (
            session.execute(select(WebhookAttempt).where(WebhookAttempt.delivery_id == delivery.id))
            .scalars()
            .all()
        )
        assert attempts and all(a.status_code is None and "10.0.0.1" in (a.error or "") for a in attempts)
    assert {p for p, *_ in got.requests} == {"/redirect"}  # nothing ever reached 10.0.0.1

    # another account sees none of it
    for resp in (
        await api.get(f"/v1/webhook-endpoints/{redirect['id']}", headers=other),
        await api.get(f"/v1/webhook-endpoints/{redirect['id']}/deliveries", headers=other),
        await api.delete(f"/v1/webhook-endpoints/{redirect['id']}", headers=other),
    ):
        _problem(resp, 404, "webhook_endpoint_not_found")
    _problem(
        await api.post(f"/v1/webhook-deliveries/{delivery.id}/retry", headers=other),
        404,
        "webhook_delivery_not_found",
    )
    assert (await api.get("/v1/webhook-endpoints", headers=other)).json()["data"] == []

    # a key without the scope is refused; deleting stops the pending delivery
    _, narrow, _ = await new_key(api, scopes=["jobs:read"])
    _problem(await api.get("/v1/webhook-endpoints", headers=narrow), 403, "insufficient_scope")
    assert (await api.delete(f"/v1/webhook-endpoints/{redirect['id']}", headers=key)).status_code == 204
    _problem(
        await api.get(f"/v1/webhook-endpoints/{redirect['id']}", headers=key),
        404,
        "webhook_endpoint_not_found",
    )
    resp = await api.post(f"/v1/webhook-deliveries/{delivery.id}/retry", headers=key)
    _problem(resp, 404, "webhook_delivery_not_found")


async def test_a_rotated_secret_signs_beside_the_old_one(
    api: httpx.AsyncClient, receiver: tuple[str, Received]
) -> None:
    base, got = receiver
    _, key, _ = await new_key(api)
    _, other, _ = await new_key(api)
    with settings_env(fetch_allow_loopback="true"):
        endpoint = await _register(api, key, f"{base}/ok", ["batch.completed"])
        _problem(
            await api.post(f"/v1/webhook-endpoints/{endpoint['id']}/rotate-secret", headers=other),
            404,
            "webhook_endpoint_not_found",
        )
        resp = await api.post(f"/v1/webhook-endpoints/{endpoint['id']}/rotate-secret", headers=key)
        assert resp.status_code == 200, resp.text
        rotated = resp.json()
        assert rotated["secret"].startswith("whsec_") and rotated["secret"] != endpoint["secret"]
        photo = {"image_file": ("lampada.jpg", product_photo_bytes((96, 72)), "image/jpeg")}
        job = (await api.post("/v1/jobs", headers=key, files=photo)).json()
        await wait_job_status(session_factory(), job["id"], {"completed"})
        await _wait(
            lambda: any(d.status == "succeeded" for d, _ in _deliveries(endpoint["id"])), what="the delivery"
        )
    ((delivery, _),) = _deliveries(endpoint["id"])
    (request,) = [r for r in got.requests if r[1]["webhook-id"] == str(delivery.id)]
    _, headers, body, _ = request
    assert len(headers["webhook-signature"].split(" ")) == 2  # two v1, signatures during the rotation
    for secret in (endpoint["secret"], rotated["secret"]):
        assert Webhook(secret).verify(body, headers)["type"] == "batch.completed"
    with pytest.raises(WebhookVerificationError):
        Webhook("whsec_" + "A" * 44).verify(body, headers)


async def test_the_web_app_manages_the_same_endpoints(
    api: httpx.AsyncClient, receiver: tuple[str, Received]
) -> None:
    base, _ = receiver
    seller, key, _ = await new_key(api)
    other = await login(api, *make_user())
    designer = await login(api, *make_user(role=UserRole.graphic))
    body = {"url": f"{base}/ok", "events": ["job.completed", "job.failed"]}
    resp = await api.post("/api/webhook-endpoints", headers=seller, json=body)
    assert resp.status_code == 400 and resp.json()["code"] == "webhook_url_forbidden"  # loopback off
    with settings_env(fetch_allow_loopback="true"):
        resp = await api.post("/api/webhook-endpoints", headers=seller, json=body)
    assert resp.status_code == 201, resp.text
    created = resp.json()
    assert created["secret"].startswith("whsec_")
    # the same endpoint through the API key, never its secret again
    (listed,) = (await api.get("/v1/webhook-endpoints", headers=key)).json()["data"]
    assert listed["id"] == created["id"] and "secret" not in listed
    assert [e["id"] for e in (await api.get("/api/webhook-endpoints", headers=seller)).json()] == [
        created["id"]
    ]
    assert (await api.get("/api/webhook-endpoints", headers=other)).json() == []
    assert (await api.get("/api/webhook-endpoints", headers=designer)).status_code == 403
    for resp in (
        await api.get(f"/api/webhook-endpoints/{created['id']}/deliveries", headers=other),
        await api.post(f"/api/webhook-endpoints/{created['id']}/rotate-secret", headers=other),
        await api.delete(f"/api/webhook-endpoints/{created['id']}", headers=other),
    ):
        assert resp.status_code == 404 and resp.json()["code"] == "webhook_endpoint_not_found"
    rotated = (await api.post(f"/api/webhook-endpoints/{created['id']}/rotate-secret", headers=seller)).json()
    assert rotated["secret"] != created["secret"]
    log = (await api.get(f"/api/webhook-endpoints/{created['id']}/deliveries", headers=seller)).json()
    assert log["data"] == [] and log["has_more"] is False
    assert (await api.delete(f"/api/webhook-endpoints/{created['id']}", headers=seller)).status_code == 204
    assert (await api.get("/v1/webhook-endpoints", headers=key)).json()["data"] == []


async def test_credits_low_once_when_the_balance_crosses_the_threshold(
    api: httpx.AsyncClient, receiver: tuple[str, Received]
) -> None:
    from fotopronta import ledger

    base, got = receiver
    _, key, user_id = await new_key(api)
    with session_factory().begin() as session:
        ledger.expire(session, user_id=user_id, grant_key=f"test-adjust:{user_id}", amount=15 - 6)
    photo = {"image_file": ("tazza.jpg", product_photo_bytes((96, 72)), "image/jpeg")}
    with settings_env(fetch_allow_loopback="true"):
        endpoint = await _register(api, key, f"{base}/ok", ["credits.low"])
        for _ in range(3):  # 6 → 5 → 4 (below 5: credits.low) → 3 (still below: nothing)
            job = (await api.post("/v1/jobs", headers=key, files=photo)).json()
            await wait_job_status(session_factory(), job["id"], {"completed"})
        await _wait(
            lambda: [d.status for d, _ in _deliveries(endpoint["id"])] == ["succeeded"], what="credits.low"
        )
    ((delivery, kind),) = _deliveries(endpoint["id"])
    (body,) = [b for _, h, b, _ in got.requests if h["webhook-id"] == str(delivery.id)]
    payload = Webhook(endpoint["secret"]).verify(
        body, dict(next(h for _, h, b, _ in got.requests if b == body))
    )
    assert kind == "credits.low" and payload["type"] == "credits.low"
    assert payload["data"] == {"object": "account", "credits_remaining": 4, "threshold": 5}
    assert payload["links"]["buy"].endswith("/credits")


def _insert_delivery(user_id: uuid.UUID, endpoint_id: str, kind: str) -> str:
    """An event and its delivery committed as a job activity would (without waking the dispatcher)."""
    with session_factory().begin() as session:
        event = WebhookEvent(
            user_id=user_id,
            type=kind,
            dedupe_key=f"test:{uuid.uuid4()}",
            payload={"type": kind, "timestamp": "2026-11-28T12:00:00Z", "data": {}},
        )
        session.add(event)
        session.flush()
        delivery = WebhookDelivery(
            event_id=event.id, endpoint_id=uuid.UUID(endpoint_id), status="pending", attempts=0
        )
        session.add(delivery)
        session.flush()
        return str(delivery.id)


async def test_a_receiver_that_does_not_answer_in_15_s_is_retried(
    api: httpx.AsyncClient, receiver: tuple[str, Received]
) -> None:
    base, got = receiver
    _, key, user_id = await new_key(api)
    with settings_env(fetch_allow_loopback="true"):
        endpoint = await _register(api, key, f"{base}/slow", ["job.completed"])
        delivery_id = _insert_delivery(user_id, endpoint["id"], "job.completed")
        await _wait(
            lambda: [d.status for d, _ in _deliveries(endpoint["id"])] == ["succeeded"],
            timeout_s=90,
            what="the retry after the timeout",
        )
    log = (await api.get(f"/v1/webhook-endpoints/{endpoint['id']}/deliveries", headers=key)).json()
    first, second = log["data"][0]["attempts"]
    assert first["status_code"] is None and first["error"].startswith("webhook_url_timeout")
    assert 14_000 <= first["response_ms"] < 20_000
    assert second["status_code"] == 200
    assert got.seen[delivery_id] == 2


async def test_a_committed_delivery_is_never_lost_and_can_be_resent(
    api: httpx.AsyncClient, receiver: tuple[str, Received]
) -> None:
    """A delivery committed by a worker that died before starting its workflow (no wake-up, no start)
    is found by the dispatcher's sweep; 'Reinvia' on a delivery that has ended makes one more attempt."""
    base, got = receiver
    _, key, user_id = await new_key(api)
    with settings_env(fetch_allow_loopback="true"):
        endpoint = await _register(api, key, f"{base}/ok", ["job.waiting_for_credits"])
        with session_factory().begin() as session:
            event = WebhookEvent(
                user_id=user_id,
                type="job.waiting_for_credits",
                dedupe_key=f"test:{uuid.uuid4()}",
                payload={"type": "job.waiting_for_credits", "timestamp": "2026-11-28T12:00:00Z", "data": {}},
            )
            session.add(event)
            session.flush()
            delivery = WebhookDelivery(
                event_id=event.id, endpoint_id=uuid.UUID(endpoint["id"]), status="pending", attempts=0
            )
            session.add(delivery)
            session.flush()
            delivery_id = str(delivery.id)
        await _wait(
            lambda: [d.status for d, _ in _deliveries(endpoint["id"])] == ["succeeded"],
            timeout_s=30,
            what="the sweep",
        )
        resp = await api.post(f"/v1/webhook-deliveries/{delivery_id}/retry", headers=key)
        assert resp.status_code == 202, resp.text
        await _wait(lambda: _deliveries(endpoint["id"])[0][0].attempts == 2, timeout_s=30, what="the resend")
    log = (await api.get(f"/v1/webhook-endpoints/{endpoint['id']}/deliveries", headers=key)).json()
    (item,) = log["data"]
    assert item["status"] == "succeeded"
    assert [(a["status_code"], a["manual"]) for a in item["attempts"]] == [(200, False), (200, True)]
    assert got.seen[delivery_id] == 2  # the same webhook-id both times


async def test_a_web_upload_without_credits_tells_waiting_for_credits(
    api: httpx.AsyncClient, receiver: tuple[str, Received]
) -> None:
    """Events come from the job's lifecycle, whichever door started it: a photo uploaded in the web app
    by a seller without credits waits, and the seller's endpoint is told."""
    from fotopronta import ledger

    base, got = receiver
    seller, key, user_id = await new_key(api)
    with session_factory().begin() as session:
        ledger.expire(session, user_id=user_id, grant_key=f"test-adjust:{user_id}", amount=15)
    with settings_env(fetch_allow_loopback="true"):
        endpoint = await _register(api, key, f"{base}/ok", ["job.waiting_for_credits", "job.completed"])
        resp = await api.post(
            "/api/photos",
            headers=seller,
            files=[("files", ("sedia.jpg", product_photo_bytes((96, 72)), "image/jpeg"))],
        )
        assert resp.status_code == 201, resp.text
        await _wait(
            lambda: (
                [(t, d.status) for d, t in _deliveries(endpoint["id"])]
                == [("job.waiting_for_credits", "succeeded")]
            ),
            what="job.waiting_for_credits",
        )
    ((delivery, _),) = _deliveries(endpoint["id"])
    (body,) = [b for _, h, b, _ in got.requests if h["webhook-id"] == str(delivery.id)]
    headers = next(h for _, h, b, _ in got.requests if h["webhook-id"] == str(delivery.id))
    payload = Webhook(endpoint["secret"]).verify(body, headers)
    assert payload["data"]["status"] == "waiting_for_credits" and payload["data"]["credits_charged"] == 0
    assert payload["links"]["result"] is None

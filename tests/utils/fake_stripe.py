"""A local stand-in for Stripe's HTTP API, for tests only.

Stripe's servers are the one part of the payment flow we cannot reach offline, so the tests point
the real ``stripe`` SDK (``FOTOPRONTA_STRIPE_API_BASE``) at this server on 127.0.0.1. It answers the
two calls FotoPronta makes the way Stripe documents them:

- ``POST /v1/checkout/sessions`` (form-encoded, nested keys like ``metadata[purchase_id]`` and
  ``line_items[0][price_data][unit_amount]``) → a ``checkout.session`` object (``status`` open,
  ``payment_status`` unpaid, ``url``, ``amount_total``, ``metadata``);
- ``GET /v1/checkout/sessions/{id}`` → the same object, ``complete``/``paid`` after :meth:`mark_paid`.

Errors use Stripe's shape ``{"error": {"type", "message"}}``. :func:`signed_webhook` builds a
``Stripe-Signature`` header the documented way (``t=…,v1=HMAC-SHA256(secret, "{t}.{payload}")``).
"""

from __future__ import annotations

import hashlib
import hmac
import json
import threading
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qsl


def _nest(pairs: list[tuple[str, str]]) -> dict[str, Any]:
    """``a[b][0][c]=v`` form pairs → nested dicts (list indices kept as string keys)."""
    out: dict[str, Any] = {}
    for key, value in pairs:
        parts = key.replace("]", "").split("[")
        node = out
        for part in parts[:-1]:
            node = node.setdefault(part, {})
        node[parts[-1]] = value
    return out


class FakeStripe:
    """Threaded HTTP server answering like Stripe's Checkout Sessions API."""

    def __init__(self) -> None:
        self.sessions: dict[str, dict[str, Any]] = {}
        self.requests: list[dict[str, Any]] = []
        self.fail_create = False
        self._lock = threading.Lock()
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:  # quiet
                pass

            def _send(self, status: int, body: dict[str, Any]) -> None:
                data = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.send_header("Request-Id", "req_" + uuid.uuid4().hex[:14])
                self.end_headers()
                self.wfile.write(data)

            def _record(self, body: dict[str, Any]) -> None:
                with fake._lock:
                    fake.requests.append(
                        {
                            "method": self.command,
                            "path": self.path,
                            "body": body,
                            "authorization": self.headers.get("Authorization"),
                            "idempotency_key": self.headers.get("Idempotency-Key"),
                        }
                    )

            def do_POST(self) -> None:  # noqa: N802 (http.server API)
                length = int(self.headers.get("Content-Length") or 0)
                body = _nest(parse_qsl(self.rfile.read(length).decode(), keep_blank_values=True))
                self._record(body)
                if self.path != "/v1/checkout/sessions":
                    return self._send(
                        404, {"error": {"type": "invalid_request_error", "message": "no route"}}
                    )
                if fake.fail_create:
                    return self._send(500, {"error": {"type": "api_error", "message": "fake outage"}})
                session_id = "cs_test_" + uuid.uuid4().hex
                item = body["line_items"]["0"]
                amount = int(item["price_data"]["unit_amount"]) * int(item.get("quantity", 1))
                obj = {
                    "id": session_id,
                    "object": "checkout.session",
                    "mode": body.get("mode"),
                    "url": f"https://checkout.stripe.com/c/pay/{session_id}",
                    "status": "open",
                    "payment_status": "unpaid",
                    "amount_total": amount,
                    "currency": item["price_data"]["currency"],
                    "metadata": body.get("metadata", {}),
                    "client_reference_id": body.get("client_reference_id"),
                    "customer_email": body.get("customer_email"),
                    "success_url": body.get("success_url"),
                    "cancel_url": body.get("cancel_url"),
                    "expires_at": int(body["expires_at"]) if body.get("expires_at") else None,
                }
                with fake._lock:
                    fake.sessions[session_id] = obj
                return self._send(200, obj)

            def do_GET(self) -> None:  # noqa: N802 (http.server API)
                self._record({})
                prefix = "/v1/checkout/sessions/"
                session_id = self.path.split("?")[0][len(prefix) :] if self.path.startswith(prefix) else ""
                with fake._lock:
                    obj = fake.sessions.get(session_id)
                if obj is None:
                    return self._send(
                        404,
                        {
                            "error": {
                                "type": "invalid_request_error",
                                "message": f"No such checkout.session: '{session_id}'",
                            }
                        },
                    )
                return self._send(200, obj)

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = int(self._server.server_address[1])
        self.base_url = f"http://127.0.0.1:{self.port}"
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    def start(self) -> FakeStripe:
        """Start serving in a background thread."""
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop the server."""
        self._server.shutdown()
        self._server.server_close()

    def mark_paid(self, session_id: str) -> dict[str, Any]:
        """The customer paid: the session becomes ``complete``/``paid``; returns the object."""
        with self._lock:
            obj = self.sessions[session_id]
            obj.update(status="complete", payment_status="paid")
            return dict(obj)

    def expire(self, session_id: str) -> dict[str, Any]:
        """The session expired unpaid: ``status`` becomes ``expired``; returns the object."""
        with self._lock:
            obj = self.sessions[session_id]
            obj.update(status="expired", url=None)
            return dict(obj)


def checkout_expired_event(session: dict[str, Any]) -> bytes:
    """A ``checkout.session.expired`` event body (Stripe sends it when an unpaid session expires)."""
    return checkout_completed_event(session, event_type="checkout.session.expired")


def checkout_completed_event(
    session: dict[str, Any], *, event_id: str | None = None, event_type: str = "checkout.session.completed"
) -> bytes:
    """A ``checkout.session.completed`` (or other ``event_type``) event body as Stripe sends it."""
    return json.dumps(
        {
            "id": event_id or "evt_" + uuid.uuid4().hex,
            "object": "event",
            "api_version": "2025-01-01",
            "created": int(time.time()),
            "type": event_type,
            "livemode": False,
            "data": {"object": session},
        }
    ).encode()


def signed_webhook(payload: bytes, secret: str, *, timestamp: int | None = None) -> str:
    """The ``Stripe-Signature`` header for ``payload``: ``t={ts},v1={HMAC-SHA256(secret, f"{ts}.{payload}")}``."""
    ts = int(time.time()) if timestamp is None else timestamp
    mac = hmac.new(secret.encode(), f"{ts}.".encode() + payload, hashlib.sha256).hexdigest()
    return f"t={ts},v1={mac}"

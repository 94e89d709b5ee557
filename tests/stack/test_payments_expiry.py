"""Unpaid checkouts end ('Scaduto', 'Annullato') and links stay in the app.

Expiry: a checkout that is never paid does not stay 'pending' for ever: Stripe's
``checkout.session.expired`` webhook, the test page's 'Annulla' / 'Simula scadenza', and the expiry
time (``checkout_expiry_s`` plus a grace period) end it; a verify of an expired session says so.
Stripe's servers are the one mocked edge (:class:`tests.utils.fake_stripe.FakeStripe`).

Links: with ``public_url`` unset in development, payment and e-mail links use the allowed address
the request came to (``127.0.0.1``, a LAN address), never an arbitrary ``Host``; outside development
the settings refuse to load without ``public_url``.
"""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta

import httpx
import pytest
from pydantic import ValidationError
from sqlalchemy import update

from fotopronta.db import session_scope
from fotopronta.models import CreditPurchase
from fotopronta.payments import EXPIRY_GRACE_S
from fotopronta.settings import Settings, get_settings
from tests.stack.test_payments import (
    WEBHOOK_SECRET,
    balance,
    fake_stripe,  # noqa: F401 (fixture)
    package_id,
    purchase_grants,
    purchase_of,
)
from tests.utils.factories import latest_mail, login, make_user, settings_env, unique_email
from tests.utils.fake_stripe import (
    FakeStripe,
    checkout_completed_event,
    checkout_expired_event,
    signed_webhook,
)
from tests.utils.stack import Stack

pytestmark = pytest.mark.stack


async def _checkout(api: httpx.AsyncClient, headers: dict[str, str], name: str = "Light") -> dict:
    resp = await api.post("/api/payments/checkout", headers=headers, json={"package_id": package_id(name)})
    assert resp.status_code == 200, resp.text
    return dict(resp.json())


async def _statuses(api: httpx.AsyncClient, headers: dict[str, str]) -> dict[str, str]:
    rows = (await api.get("/api/credits/purchases", headers=headers)).json()
    return {r["stripe_payment_intent_id"]: r["status"] for r in rows}


async def test_stripe_expired_webhook_ends_a_pending_purchase(
    stack: Stack,
    api: httpx.AsyncClient,
    fake_stripe: FakeStripe,  # noqa: F811 (fixture)
) -> None:
    email, password = make_user()
    headers = await login(api, email, password)
    started = int(time.time())
    session_id = (await _checkout(api, headers))["session_id"]
    expires_at = fake_stripe.sessions[session_id]["expires_at"]
    assert expires_at - started == pytest.approx(get_settings().checkout_expiry_s, abs=5)

    expired = fake_stripe.expire(session_id)
    payload = checkout_expired_event(expired)
    resp = await api.post(
        "/api/payments/webhook",
        content=payload,
        headers={"Stripe-Signature": signed_webhook(payload, WEBHOOK_SECRET)},
    )
    assert resp.status_code == 200 and resp.json() == {"received": True, "handled": True}, resp.text
    assert purchase_of(session_id).status == "expired"
    assert (await _statuses(api, headers))[session_id] == "expired"
    # a duplicate delivery changes nothing
    resp = await api.post(
        "/api/payments/webhook",
        content=payload,
        headers={"Stripe-Signature": signed_webhook(payload, WEBHOOK_SECRET)},
    )
    assert resp.json() == {"received": True, "handled": False}
    # verify of an expired session says so
    resp = await api.post("/api/payments/verify", headers=headers, json={"sessionId": session_id})
    assert resp.json()["success"] is False and resp.json()["error"] == "Sessione di pagamento scaduta"

    # a session that expires without a webhook: verify notices and ends the purchase
    other = (await _checkout(api, headers))["session_id"]
    fake_stripe.expire(other)
    resp = await api.post("/api/payments/verify", headers=headers, json={"sessionId": other})
    assert resp.json()["error"] == "Sessione di pagamento scaduta"
    assert purchase_of(other).status == "expired"

    # an expired event for a completed purchase leaves it completed
    paid_id = (await _checkout(api, headers))["session_id"]
    paid = fake_stripe.mark_paid(paid_id)
    payload = checkout_completed_event(paid)
    await api.post(
        "/api/payments/webhook",
        content=payload,
        headers={"Stripe-Signature": signed_webhook(payload, WEBHOOK_SECRET)},
    )
    late = checkout_expired_event({**paid, "status": "expired", "payment_status": "unpaid"})
    await api.post(
        "/api/payments/webhook",
        content=late,
        headers={"Stripe-Signature": signed_webhook(late, WEBHOOK_SECRET)},
    )
    assert purchase_of(paid_id).status == "completed" and purchase_grants(str(purchase_of(paid_id).id)) == 1
    assert balance(email) == (65, 65)


async def test_test_checkout_cancel_expire_and_stale(stack: Stack, api: httpx.AsyncClient) -> None:
    email, password = make_user()
    headers = await login(api, email, password)

    canceled = (await _checkout(api, headers))["session_id"]
    assert (await api.post(f"/dev/checkout/{canceled}/cancel")).status_code == 303
    expired = (await _checkout(api, headers))["session_id"]
    resp = await api.post(f"/dev/checkout/{expired}/expire")
    assert resp.status_code == 303 and resp.headers["location"].endswith("/credits")
    stale = (await _checkout(api, headers))["session_id"]
    with session_scope() as session:
        session.execute(
            update(CreditPurchase)
            .where(CreditPurchase.stripe_payment_intent_id == stale)
            .values(
                created_at=datetime.now(UTC)
                - timedelta(seconds=get_settings().checkout_expiry_s + EXPIRY_GRACE_S + 60)
            )
        )
    fresh = (await _checkout(api, headers))["session_id"]

    assert await _statuses(api, headers) == {
        canceled: "canceled",
        expired: "expired",
        stale: "expired",
        fresh: "pending",
    }
    # an ended session cannot be paid any more, and its page says so
    for sid, word in ((canceled, "annullata"), (expired, "scaduta")):
        page = await api.get(f"/dev/checkout/{sid}")
        assert page.status_code == 410 and f"è {word}" in page.text
        assert (await api.post(f"/dev/checkout/{sid}/pay")).status_code == 410
        assert purchase_grants(str(purchase_of(sid).id)) == 0
    resp = await api.post("/api/payments/verify", headers=headers, json={"sessionId": expired})
    assert resp.json()["error"] == "Sessione di pagamento scaduta"
    assert balance(email) == (15, 15)


# --- links follow the allowed request origin -----------------------------------------------------------
async def test_links_follow_the_allowed_request_origin_in_development(
    stack: Stack, api: httpx.AsyncClient
) -> None:
    assert get_settings().public_url is None  # the test session leaves it unset, like `make dev`
    email, password = make_user()
    headers = await login(api, email, password)
    for host, expected in (
        ("127.0.0.1:8123", "http://127.0.0.1:8123"),
        ("192.168.1.20:8000", f"http://localhost:{get_settings().api_port}"),  # a LAN address is not trusted
        ("localhost:9000", "http://localhost:9000"),
        ("evil.example", f"http://localhost:{get_settings().api_port}"),
        ("evil.example@127.0.0.1", f"http://localhost:{get_settings().api_port}"),
    ):
        resp = await api.post(
            "/api/payments/checkout",
            headers={**headers, "Host": host},
            json={"package_id": package_id("Light")},
        )
        assert resp.status_code == 200, resp.text
        assert resp.json()["url"].startswith(f"{expected}/dev/checkout/"), (host, resp.json()["url"])
        pay = await api.post(f"/dev/checkout/{resp.json()['session_id']}/pay", headers={"Host": host})
        assert pay.headers["location"].startswith(f"{expected}/dashboard?success=true"), host

    # an extra LAN name is accepted once allowed
    with settings_env(allowed_hosts="studio.lan"):
        resp = await api.post(
            "/api/payments/checkout",
            headers={**headers, "Host": "studio.lan:8000"},
            json={"package_id": package_id("Light")},
        )
        assert resp.json()["url"].startswith("http://studio.lan:8000/dev/checkout/")

    # e-mail links made during a request too (sign-up confirmation)
    address = unique_email()
    resp = await api.post(
        "/api/auth/signup",
        headers={"Host": "127.0.0.1:8123"},
        json={"email": address, "password": "segreto123", "first_name": "Lia", "last_name": "Neri"},
    )
    assert resp.status_code in (200, 201), resp.text
    mail = await latest_mail(api, address)
    assert mail["links"][0].startswith("http://127.0.0.1:8123/auth/callback?"), mail["links"]

    # an explicit public_url always wins
    with settings_env(public_url="https://app.fotopronta.it/"):
        resp = await api.post(
            "/api/payments/checkout",
            headers={**headers, "Host": "127.0.0.1:8123"},
            json={"package_id": package_id("Light")},
        )
        assert resp.json()["url"].startswith("https://app.fotopronta.it/dev/checkout/")


@pytest.mark.parametrize("environment", ["production", "staging", "typo"])
def test_public_url_is_required_outside_development(environment: str) -> None:
    with pytest.raises(ValidationError, match="FOTOPRONTA_PUBLIC_URL must be set"):
        Settings(environment=environment, jwt_secret="s" * 40)
    with pytest.raises(ValidationError, match="FOTOPRONTA_PUBLIC_URL must be set"):
        Settings(environment=environment, jwt_secret="s" * 40, public_url="  ")
    settings = Settings(environment=environment, jwt_secret="s" * 40, public_url="https://app.fotopronta.it")
    from fotopronta.links import public_base_url

    assert public_base_url(settings) == "https://app.fotopronta.it"
    assert Settings(environment="development").public_url is None

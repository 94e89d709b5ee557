"""A Stripe Checkout Session that does not carry our ``purchase_id`` in its metadata
never completes a purchase, through verify or through the (correctly signed) webhook.

Stripe's servers are the offline edge: :class:`tests.utils.fake_stripe.FakeStripe` answers for them.
"""

from __future__ import annotations

import httpx
import pytest

from tests.stack.test_payments import (
    WEBHOOK_SECRET,
    balance,
    fake_stripe,  # noqa: F401 (fixture)
    package_id,
    purchase_grants,
    purchase_of,
)
from tests.utils.factories import login, make_user
from tests.utils.fake_stripe import FakeStripe, checkout_completed_event, signed_webhook
from tests.utils.stack import Stack

pytestmark = pytest.mark.stack


async def test_session_without_purchase_id_completes_nothing(
    stack: Stack,
    api: httpx.AsyncClient,
    fake_stripe: FakeStripe,  # noqa: F811 (fixture)
) -> None:
    email, password = make_user()
    headers = await login(api, email, password)
    resp = await api.post("/api/payments/checkout", headers=headers, json={"package_id": package_id("Maxi")})
    assert resp.status_code == 200, resp.text
    session_id = resp.json()["session_id"]
    purchase = purchase_of(session_id)

    # the session Stripe returns is paid but carries none of our metadata (or only another purchase's)
    for metadata in ({}, {"user_id": str(purchase.user_id)}, {"purchase_id": ""}):
        fake_stripe.sessions[session_id]["metadata"] = metadata
        paid = fake_stripe.mark_paid(session_id)
        resp = await api.post("/api/payments/verify", headers=headers, json={"sessionId": session_id})
        assert resp.status_code == 409 and resp.json()["detail"] == "Verifica pagamento fallita", resp.text
        payload = checkout_completed_event(paid)
        resp = await api.post(
            "/api/payments/webhook",
            content=payload,
            headers={"Stripe-Signature": signed_webhook(payload, WEBHOOK_SECRET)},
        )
        assert resp.status_code == 400 and resp.json()["code"] == "purchase_mismatch", resp.text
        assert balance(email) == (15, 15)
        assert purchase_of(session_id).status == "pending" and purchase_grants(str(purchase.id)) == 0

    # without an amount the session is not ours either
    fake_stripe.sessions[session_id]["metadata"] = {"purchase_id": str(purchase.id)}
    fake_stripe.sessions[session_id]["amount_total"] = None
    resp = await api.post("/api/payments/verify", headers=headers, json={"sessionId": session_id})
    assert resp.status_code == 409, resp.text

    # the genuine session still completes, once
    fake_stripe.sessions[session_id]["amount_total"] = purchase.amount_paid_cents
    fake_stripe.sessions[session_id]["metadata"] = {
        "purchase_id": str(purchase.id),
        "user_id": str(purchase.user_id),
        "package_id": package_id("Maxi"),
    }
    resp = await api.post("/api/payments/verify", headers=headers, json={"sessionId": session_id})
    assert resp.json()["success"] is True and resp.json()["creditsAdded"] == 300, resp.text
    assert balance(email) == (315, 315) and purchase_grants(str(purchase.id)) == 1

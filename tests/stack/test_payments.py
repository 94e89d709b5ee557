"""Buying credits on the real stack (SPEC §2 /credits, /orders, §6 Admin, §7 functions, §8 Payments).

Two providers are exercised:

- the development test checkout served by the API itself (``/dev/checkout/{id}``, no network);
- Stripe through the real ``stripe`` SDK. Stripe's HTTP API is the one thing we cannot reach offline,
  so those tests point the SDK (``FOTOPRONTA_STRIPE_API_BASE``) at :class:`tests.utils.fake_stripe.FakeStripe`,
  a local HTTP server on 127.0.0.1 that answers ``POST /v1/checkout/sessions`` and
  ``GET /v1/checkout/sessions/{id}`` like Stripe; webhooks are signed with Stripe's documented scheme
  and checked by ``stripe.Webhook.construct_event``.
"""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from urllib.parse import urlsplit

import httpx
import pytest
from sqlalchemy import func, select

from fotopronta import ledger
from fotopronta.db import session_scope
from fotopronta.domain import UserRole
from fotopronta.links import public_base_url
from fotopronta.models import CreditLedgerEntry, CreditPackage, CreditPurchase, Order, Profile
from tests.utils.factories import login, make_user, product_photo_bytes, settings_env, unique_email
from tests.utils.fake_stripe import FakeStripe, checkout_completed_event, signed_webhook
from tests.utils.stack import Stack

pytestmark = pytest.mark.stack

WEBHOOK_SECRET = "whsec_test_" + "a" * 24


@pytest.fixture
def fake_stripe() -> Iterator[FakeStripe]:
    """The local Stripe stand-in, with the API switched to the ``stripe`` provider pointed at it."""
    server = FakeStripe().start()
    try:
        with settings_env(
            payment_provider="stripe",
            stripe_secret_key="sk_test_fotopronta",
            stripe_webhook_secret=WEBHOOK_SECRET,
            stripe_api_base=server.base_url,
        ):
            yield server
    finally:
        server.stop()


def package_id(name: str) -> str:
    """The id of the seeded package ``name``."""
    with session_scope() as session:
        return str(session.execute(select(CreditPackage.id).where(CreditPackage.name == name)).scalar_one())


def purchase_grants(purchase_id: str) -> int:
    """How many ledger grants a purchase produced (must be 0 or 1)."""
    with session_scope() as session:
        return int(
            session.execute(
                select(func.count())
                .select_from(CreditLedgerEntry)
                .where(CreditLedgerEntry.idempotency_key == f"grant:purchase:{purchase_id}")
            ).scalar_one()
        )


def balance(email: str) -> tuple[int, int]:
    """``(credits_remaining, ledger sum)``."""
    with session_scope() as session:
        profile = session.execute(select(Profile).where(Profile.email == email)).scalar_one()
        return profile.credits_remaining, ledger.ledger_balance(session, profile.id)


def purchase_of(session_id: str) -> CreditPurchase:
    """The purchase row of checkout session ``session_id``."""
    with session_scope() as session:
        return session.execute(
            select(CreditPurchase).where(CreditPurchase.stripe_payment_intent_id == session_id)
        ).scalar_one()


def assert_error(resp: httpx.Response, status: int, detail: str, title: str | None = None) -> None:
    """An API error with this status, Italian ``detail`` and toast ``title``."""
    assert resp.status_code == status, resp.text
    assert resp.json()["detail"] == detail, resp.json()
    if title is not None:
        assert resp.json().get("title") == title, resp.json()


async def test_packages_and_test_checkout_page(stack: Stack, api: httpx.AsyncClient) -> None:
    email, password = make_user()
    headers = await login(api, email, password)
    base = public_base_url()
    packages = (await api.get("/api/credit-packages", headers=headers)).json()
    assert [p["name"] for p in packages] == ["Light", "Standard", "Maxi"]
    assert [p["price_cents"] for p in packages] == sorted(p["price_cents"] for p in packages)
    assert all(p["price_cents"] > 0 for p in packages)

    assert_error(
        await api.post("/api/payments/checkout", headers=headers, json={"package_id": package_id("Free")}),
        404,
        "Pacchetto crediti non disponibile.",
        "Impossibile avviare il pagamento",
    )
    resp = await api.post("/api/payments/checkout", headers=headers, json={"packageId": package_id("Light")})
    assert resp.status_code == 200, resp.text
    url, session_id = resp.json()["url"], resp.json()["session_id"]
    assert url == f"{base}/dev/checkout/{session_id}"
    [pending] = (await api.get("/api/credits/purchases", headers=headers)).json()
    assert pending["status"] == "pending" and pending["stripe_payment_intent_id"] == session_id
    assert pending["package"] == {"name": "Light", "credits": 50, "price_cents": 1500}
    assert pending["credit_packages"] == pending["package"]

    resp = await api.post("/api/payments/verify", headers=headers, json={"sessionId": session_id})
    assert resp.json() == {
        "success": False,
        "creditsAdded": 0,
        "totalCredits": 15,
        "error": "Pagamento non completato",
    }

    page = await api.get(urlsplit(url).path)
    assert page.status_code == 200
    for text in ("MODALITÀ TEST — nessun addebito reale", ">Paga<", ">Annulla<", "Light", "15,00 EUR"):
        assert text in page.text
    cancel = await api.post(f"/dev/checkout/{session_id}/cancel")
    assert cancel.status_code == 303 and cancel.headers["location"] == f"{base}/dashboard?canceled=true"
    assert purchase_of(session_id).status == "canceled"  # 'Annullato', no longer payable
    resp = await api.post("/api/payments/checkout", headers=headers, json={"packageId": package_id("Light")})
    session_id = resp.json()["session_id"]

    pay = await api.post(f"/dev/checkout/{session_id}/pay")
    assert pay.status_code == 303
    assert pay.headers["location"] == f"{base}/dashboard?success=true&session_id={session_id}"
    assert (await api.post(f"/dev/checkout/{session_id}/pay")).status_code == 303  # twice: credits once
    resp = await api.post("/api/payments/verify", headers=headers, json={"session_id": session_id})
    assert resp.json() == {"success": True, "creditsAdded": 50, "totalCredits": 65, "error": None}
    assert balance(email) == (65, 65)
    assert purchase_grants(str(purchase_of(session_id).id)) == 1

    me = (await api.get("/api/me", headers=headers)).json()
    expiry = datetime.fromisoformat(me["credits_expiry_date"])
    assert abs(expiry - (datetime.now(UTC) + timedelta(days=365))) < timedelta(minutes=5)
    done, canceled = (await api.get("/api/credits/purchases", headers=headers)).json()
    assert canceled["status"] == "canceled"
    assert done["status"] == "completed" and done["credits_expiry_date"] is not None

    other, other_password = make_user()
    other_headers = await login(api, other, other_password)
    assert_error(
        await api.post("/api/payments/verify", headers=other_headers, json={"sessionId": session_id}),
        404,
        "Pagamento non trovato.",
        "Errore Verifica Pagamento",
    )
    assert (await api.get("/api/credits/purchases", headers=other_headers)).json() == []
    assert (await api.get("/dev/checkout/cs_test_local_nonesiste")).status_code == 404


async def test_stripe_checkout_session_calls(
    stack: Stack, api: httpx.AsyncClient, fake_stripe: FakeStripe
) -> None:
    email, password = make_user()
    headers = await login(api, email, password)
    base = public_base_url()
    resp = await api.post(
        "/api/payments/checkout", headers=headers, json={"package_id": package_id("Standard")}
    )
    assert resp.status_code == 200, resp.text
    session_id = resp.json()["session_id"]
    assert resp.json()["url"] == f"https://checkout.stripe.com/c/pay/{session_id}"

    [create] = [r for r in fake_stripe.requests if r["method"] == "POST"]
    body = create["body"]
    purchase = purchase_of(session_id)
    assert create["authorization"] == "Bearer sk_test_fotopronta"
    assert create["idempotency_key"] == f"checkout-{purchase.id}"
    assert body["mode"] == "payment"
    assert body["success_url"] == f"{base}/dashboard?success=true&session_id={{CHECKOUT_SESSION_ID}}"
    assert body["cancel_url"] == f"{base}/dashboard?canceled=true"
    assert body["metadata"] == {
        "purchase_id": str(purchase.id),
        "user_id": str(purchase.user_id),
        "package_id": package_id("Standard"),
    }
    assert body["line_items"]["0"]["price_data"]["unit_amount"] == "2500"
    assert body["line_items"]["0"]["price_data"]["currency"] == "eur"
    assert (
        purchase.status == "pending"
        and purchase.amount_paid_cents == 2500
        and purchase.credits_purchased == 100
    )

    resp = await api.post("/api/payments/verify", headers=headers, json={"sessionId": session_id})
    assert resp.json()["success"] is False and resp.json()["error"] == "Pagamento non completato"
    fake_stripe.mark_paid(session_id)
    resp = await api.post("/api/payments/verify", headers=headers, json={"sessionId": session_id})
    assert resp.json() == {"success": True, "creditsAdded": 100, "totalCredits": 115, "error": None}
    # the webhook arriving after verify changes nothing
    payload = checkout_completed_event(fake_stripe.sessions[session_id])
    resp = await api.post(
        "/api/payments/webhook",
        content=payload,
        headers={"Stripe-Signature": signed_webhook(payload, WEBHOOK_SECRET)},
    )
    assert resp.status_code == 200 and resp.json()["handled"] is True
    assert balance(email) == (115, 115) and purchase_grants(str(purchase.id)) == 1

    # provider failures
    fake_stripe.fail_create = True
    assert_error(
        await api.post("/api/payments/checkout", headers=headers, json={"package_id": package_id("Maxi")}),
        502,
        "Impossibile avviare il pagamento",
    )
    fake_stripe.fail_create = False
    resp = await api.post("/api/payments/checkout", headers=headers, json={"package_id": package_id("Maxi")})
    pending_id = resp.json()["session_id"]
    with settings_env(stripe_api_base="http://127.0.0.1:9"):  # nothing listens on the discard port
        assert_error(
            await api.post("/api/payments/verify", headers=headers, json={"sessionId": pending_id}),
            502,
            "Verifica pagamento fallita",
            "Errore Verifica Pagamento",
        )


async def test_webhook_signature_duplicates_and_race(
    stack: Stack, api: httpx.AsyncClient, fake_stripe: FakeStripe
) -> None:
    email, password = make_user()
    headers = await login(api, email, password)
    session_id = (
        await api.post("/api/payments/checkout", headers=headers, json={"package_id": package_id("Maxi")})
    ).json()["session_id"]
    paid = fake_stripe.mark_paid(session_id)
    payload = checkout_completed_event(paid, event_id="evt_" + uuid.uuid4().hex)
    url = "/api/payments/webhook"

    bad = [
        {},  # no signature
        {"Stripe-Signature": signed_webhook(payload, "whsec_someone_else")},
        {"Stripe-Signature": signed_webhook(payload, WEBHOOK_SECRET, timestamp=int(time.time()) - 3600)},
        {"Stripe-Signature": "t=1,v1=deadbeef"},
    ]
    for extra in bad:
        assert_error(
            await api.post(url, content=payload, headers=extra), 400, "Firma del webhook non valida."
        )
    tampered = payload.replace(b'"amount_total": 6000', b'"amount_total": 1')
    assert_error(
        await api.post(
            url, content=tampered, headers={"Stripe-Signature": signed_webhook(payload, WEBHOOK_SECRET)}
        ),
        400,
        "Firma del webhook non valida.",
    )
    assert balance(email) == (15, 15)

    # the same event twice and two verify calls, all at once: credits are added once
    signature = {"Stripe-Signature": signed_webhook(payload, WEBHOOK_SECRET)}
    results = await asyncio.gather(
        api.post(url, content=payload, headers=signature),
        api.post("/api/payments/verify", headers=headers, json={"sessionId": session_id}),
        api.post(url, content=payload, headers=signature),
        api.post("/api/payments/verify", headers=headers, json={"sessionId": session_id}),
    )
    assert [r.status_code for r in results] == [200, 200, 200, 200], [r.text for r in results]
    for verify in (results[1], results[3]):
        assert verify.json()["success"] is True and verify.json()["creditsAdded"] == 300
    assert balance(email) == (315, 315)
    purchase = purchase_of(session_id)
    assert purchase.status == "completed" and purchase_grants(str(purchase.id)) == 1
    assert purchase.credits_expiry_date is not None

    # events that complete nothing are acknowledged
    other = b'{"id": "evt_x", "object": "event", "type": "payment_intent.created", "data": {"object": {}}}'
    resp = await api.post(
        url, content=other, headers={"Stripe-Signature": signed_webhook(other, WEBHOOK_SECRET)}
    )
    assert resp.status_code == 200 and resp.json()["handled"] is False


async def wait_job_status(
    api: httpx.AsyncClient, headers: dict[str, str], wanted: set[str], timeout_s: float = 180
) -> str:
    """Poll the caller's only photo until its job reaches one of ``wanted``."""
    deadline = time.monotonic() + timeout_s
    while True:
        photos = (await api.get("/api/photos", headers=headers)).json()["items"]
        status = photos[0]["jobs"][-1]["status"] if photos and photos[0]["jobs"] else "none"
        if status in wanted:
            return str(status)
        assert time.monotonic() < deadline, f"job status {status}, wanted {wanted}"
        await asyncio.sleep(0.3)


async def test_payment_resumes_job_waiting_for_credits(stack: Stack, api: httpx.AsyncClient) -> None:
    email, password = make_user()
    with session_scope() as session:
        user_id = session.execute(select(Profile.id).where(Profile.email == email)).scalar_one()
        ledger.reserve(session, user_id=user_id, reservation_id=f"test-drain:{user_id}", amount=15)
    headers = await login(api, email, password)
    resp = await api.post(
        "/api/photos",
        headers=headers,
        files=[("files", ("borsa.jpg", product_photo_bytes((320, 240)), "image/jpeg"))],
    )
    assert resp.status_code == 201, resp.text
    await wait_job_status(api, headers, {"waiting_for_credits"})

    session_id = (
        await api.post("/api/payments/checkout", headers=headers, json={"package_id": package_id("Light")})
    ).json()["session_id"]
    assert (await api.post(f"/dev/checkout/{session_id}/pay")).status_code == 303
    assert await wait_job_status(api, headers, {"completed", "failed"}) == "completed"
    assert balance(email) == (49, 49)


async def test_admin_credits_search_and_missing_free_credits(stack: Stack, api: httpx.AsyncClient) -> None:
    admin = await login(api, *make_user(role=UserRole.admin))
    client_email, client_password = make_user(first_name="Ettore")
    client = await login(api, client_email, client_password)
    me = (await api.get("/api/me", headers=client)).json()
    url = f"/api/admin/users/{me['id']}/credits"

    assert (await api.post(url, headers=client, json={"amount": 5})).status_code == 403
    for bad in (0, -3, 2.5, "tre", None, True):
        assert_error(
            await api.post(url, headers=admin, json={"amount": bad}),
            400,
            "Inserisci un numero intero di crediti, almeno 1.",
            "Errore assegnazione crediti",
        )
    assert_error(
        await api.post(f"/api/admin/users/{uuid.uuid4()}/credits", headers=admin, json={"amount": 5}),
        404,
        "Utente non trovato.",
        "Errore assegnazione crediti",
    )
    resp = await api.post(url, headers=admin, json={"amount": 7})
    assert resp.status_code == 200, resp.text
    assert resp.json()["profile"]["credits_remaining"] == 22
    [grant] = (await api.get("/api/credits/purchases", headers=client)).json()
    assert grant["package"]["name"] == "Free" and grant["amount_paid_cents"] == 0
    assert grant["credits_purchased"] == 7 and grant["status"] == "completed"
    assert balance(client_email) == (22, 22)

    # search: e-mail, first or last name, case-insensitive; admins only
    found = (await api.get("/api/admin/users", headers=admin, params={"q": "ETTORE"})).json()
    assert me["id"] in [u["id"] for u in found]
    found = (
        await api.get("/api/admin/users", headers=admin, params={"q": client_email.split("@")[0].upper()})
    ).json()
    assert [u["id"] for u in found] == [me["id"]]
    assert (await api.get("/api/admin/users", headers=admin, params={"q": "%"})).json() == []
    assert (await api.get("/api/admin/users", headers=client, params={"q": "x"})).status_code == 403

    # a user created without the sign-up grant gets it once
    with settings_env(signup_free_credits="0"):
        late_email, _ = make_user()
    assert balance(late_email) == (0, 0)
    first = await api.post("/api/admin/users/assign-missing-free-credits", headers=admin)
    assert first.status_code == 200, first.text
    assert first.json()["assigned"] >= 1
    assert balance(late_email) == (15, 15)
    again = await api.post("/api/admin/users/assign-missing-free-credits", headers=admin)
    assert again.json() == {"assigned": 0, "user_ids": []}
    assert balance(late_email) == (15, 15)


async def test_orders_are_the_callers_newest_first(stack: Stack, api: httpx.AsyncClient) -> None:
    email, password = make_user()
    headers = await login(api, email, password)
    assert (await api.get("/api/orders", headers=headers)).json() == []
    with session_scope() as session:
        user_id = session.execute(select(Profile.id).where(Profile.email == email)).scalar_one()
        now = datetime.now(UTC)
        for i, name in enumerate(("primo", "secondo")):
            session.add(
                Order(
                    user_id=user_id,
                    package_type=name,
                    total_photos=3,
                    processed_photos=i,
                    status="completed",
                    total_amount=300,
                    created_at=now + timedelta(seconds=i),
                )
            )
    orders = (await api.get("/api/orders", headers=headers)).json()
    assert [o["package_type"] for o in orders] == ["secondo", "primo"]
    other = await login(api, *make_user(email=unique_email("altro")))
    assert (await api.get("/api/orders", headers=other)).json() == []

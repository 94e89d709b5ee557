"""Server-side roles and ownership for every route (SPEC §6, DESIGN "every endpoint checks role and
ownership").

The routes come from ``app.routes`` at test time, so a route someone adds later is covered without
touching this file. Expected access is data:

- :data:`PUBLIC`: routes that are public by design, listed one by one (an unlisted route outside
  ``/api`` fails the test until it is classified here);
- :data:`SPECIAL`: routes with their own rule (the password reset wants a recovery session);
- :data:`ACCESS_BY_PREFIX`: the first matching path prefix says which effective roles may call it
  (``/api/admin`` admin, ``/api/designer`` graphic or admin, the seller's photos, orders, credits,
  payments, API keys and webhooks client or admin, the rest of ``/api`` any signed-in user);
- :data:`OWNED_PARAMS`: path parameters naming a client's resource; any other non-admin caller gets 404.

Callers: anonymous, client (the owner), another client, graphic, admin, and an inactive graphic and
an inactive admin (treated as clients, SPEC §6). Expected: 401 anonymous, 403 wrong role, 404 someone
else's resource, and otherwise neither 401/403 nor a server error.
"""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass

import httpx
import pytest
from fastapi import FastAPI
from sqlalchemy import update

from fotopronta.db import session_scope
from fotopronta.domain import UserRole
from fotopronta.models import Profile
from tests.utils.factories import login, make_user, product_photo_bytes

pytestmark = pytest.mark.stack

SIGNED_IN = frozenset({"client", "graphic", "admin"})

PUBLIC: frozenset[tuple[str, str]] = frozenset(
    {
        ("GET", "/healthz"),
        ("GET", "/api/config"),
        ("GET", "/metrics"),  # Prometheus; loopback and private networks only (api/metrics.py)
        ("GET", "/{path:path}"),  # the web app (single-page-app fallback)
        ("GET", "/robots.txt"),  # for crawlers
        ("GET", "/sitemap.xml"),
        ("GET", "/openapi.json"),
        ("GET", "/docs"),
        ("GET", "/docs/oauth2-redirect"),
        ("GET", "/redoc"),
        ("POST", "/api/auth/signup"),
        ("POST", "/api/auth/login"),
        ("POST", "/api/auth/verify"),
        ("POST", "/api/auth/refresh"),
        ("POST", "/api/auth/logout"),
        ("POST", "/api/auth/password/forgot"),
        ("POST", "/api/auth/password/verify-otp"),
        ("POST", "/api/payments/webhook"),  # authenticated by the Stripe signature instead
        # development only (404 in production): the outbox and the test checkout page
        ("GET", "/api/dev/mail"),
        ("GET", "/dev/mail"),
        ("GET", "/dev/checkout/{session_id}"),
        ("POST", "/dev/checkout/{session_id}/pay"),
        ("POST", "/dev/checkout/{session_id}/cancel"),
        ("POST", "/dev/checkout/{session_id}/expire"),
    }
)

SPECIAL: dict[tuple[str, str], dict[str, int]] = {
    # only a recovery session (from the e-mailed link) may set a password without the old one
    ("POST", "/api/auth/password/reset"): {"anonymous": 401, "client": 403, "graphic": 403, "admin": 403},
    # the same session (the link opened in another browser) releases the sign-up password with the code
    ("POST", "/api/auth/signup/pair"): {"anonymous": 401, "client": 403, "graphic": 403, "admin": 403},
}

SELLERS = frozenset({"client", "admin"})
"""The seller's area: clients, and admins (SPEC §2: the admin menu holds the client items); designers
have no seller pages."""

ACCESS_BY_PREFIX: list[tuple[str, frozenset[str]]] = [
    ("/api/admin", frozenset({"admin"})),
    ("/api/designer", frozenset({"graphic", "admin"})),
    ("/api/photos", SELLERS),
    ("/api/orders", SELLERS),
    ("/api/credits", SELLERS),
    ("/api/credit-packages", SELLERS),
    ("/api/payments", SELLERS),
    ("/api/api-keys", SELLERS),
    ("/api/webhook-endpoints", SELLERS),
    ("/api/webhook-deliveries", SELLERS),
    ("/api/", SIGNED_IN),
]

OWNED_PARAMS = {"photo_id": "photo", "order_id": "order"}
"""Path parameter → the owner's resource used for it (other parameters get a random UUID)."""

STREAM_TIMEOUT_S = 3.0


@dataclass(frozen=True)
class Caller:
    """A test identity: its name, effective role (None = anonymous) and headers."""

    name: str
    role: str | None
    headers: dict[str, str]
    owner: bool = False


def api_routes(app: FastAPI) -> Iterator[tuple[str, str]]:
    """Every ``(method, path template)`` the app serves (HEAD left out), routers included."""
    for route in app.routes:
        contexts = route.effective_route_contexts() if hasattr(route, "effective_route_contexts") else [route]
        for ctx in contexts:
            for method in sorted(getattr(ctx, "methods", None) or ()):
                if method != "HEAD":
                    yield method, str(ctx.path)


def allowed_roles(method: str, path: str) -> frozenset[str] | None:
    """The effective roles allowed on a route by :data:`ACCESS_BY_PREFIX`; None when unclassified."""
    for prefix, roles in ACCESS_BY_PREFIX:
        if path.startswith(prefix):
            return roles
    return None


async def set_inactive(email: str) -> None:
    """``is_active = false`` for the user with ``email``."""
    with session_scope() as session:
        session.execute(update(Profile).where(Profile.email == email).values(is_active=False))


async def completed_photo(api: httpx.AsyncClient, headers: dict[str, str]) -> str:
    """Upload one photo as the owner and wait until its job completes; returns the photo id."""
    resp = await api.post(
        "/api/photos",
        headers=headers,
        files=[("files", ("scarpa.jpg", product_photo_bytes((320, 240)), "image/jpeg"))],
    )
    assert resp.status_code == 201, resp.text
    photo_id = str(resp.json()[0]["id"])
    deadline = time.monotonic() + 180
    while True:
        photos = (await api.get("/api/photos", headers=headers)).json()["items"]
        status = [p for p in photos if p["id"] == photo_id][0]["jobs"][-1]["status"]
        if status in ("completed", "failed"):
            return photo_id
        assert time.monotonic() < deadline, status
        await asyncio.sleep(0.3)


async def call(api: httpx.AsyncClient, method: str, url: str, headers: dict[str, str]) -> int | str:
    """The status of one request (JSON ``{}`` body for writes), or ``"stream"`` when the response is a
    stream still open after :data:`STREAM_TIMEOUT_S` (it was accepted)."""
    kwargs: dict[str, object] = {"headers": headers}
    if method in ("POST", "PUT", "PATCH"):
        kwargs["json"] = {}
    try:
        resp = await asyncio.wait_for(api.request(method, url, **kwargs), STREAM_TIMEOUT_S)  # type: ignore[arg-type]
    except TimeoutError:
        return "stream"
    return resp.status_code


async def test_every_route_checks_role_and_ownership(own_app: tuple[FastAPI, httpx.AsyncClient]) -> None:  # noqa: C901
    app, api = own_app
    owner = await login(api, *make_user(first_name="Proprietaria"))
    callers = [
        Caller("anonymous", None, {}),
        Caller("other client", "client", await login(api, *make_user())),
        Caller("graphic", "graphic", await login(api, *make_user(role=UserRole.graphic))),
    ]
    for role in (UserRole.graphic, UserRole.admin):  # SPEC §6: inactive non-clients are clients
        email, password = make_user(role=role)
        await set_inactive(email)
        callers.append(Caller(f"inactive {role.value}", "client", await login(api, email, password)))
    # the owner before the admin: admins may act on any client's resource (a deletion included)
    callers.append(Caller("owner", "client", owner, owner=True))
    callers.append(Caller("admin", "admin", await login(api, *make_user(role=UserRole.admin))))
    photo_id = await completed_photo(api, owner)
    order_id = next(
        p["order_id"]
        for p in (await api.get("/api/photos", headers=owner)).json()["items"]
        if p["id"] == photo_id
    )
    resources = {"photo": photo_id, "order": order_id}

    routes = sorted(set(api_routes(app)), key=lambda r: (r[0] == "DELETE", r[1], r[0]))  # deletions last
    assert ("GET", "/api/me") in routes and len(routes) > 20
    failures: list[str] = []
    unclassified: list[str] = []
    for method, template in routes:
        key = (method, template)
        url = template
        owned = False
        for name in [p.strip("{}").split(":")[0] for p in template.split("/") if p.startswith("{")]:
            value = resources[OWNED_PARAMS[name]] if name in OWNED_PARAMS else str(uuid.uuid4())
            owned = owned or name in OWNED_PARAMS
            url = url.replace("{" + name + "}", value).replace("{" + name + ":path}", "pagina-qualsiasi")
        roles = allowed_roles(method, template)
        if key not in PUBLIC and key not in SPECIAL and roles is None:
            unclassified.append(f"{method} {template}")
            continue
        for caller in callers:
            status = await call(api, method, url, caller.headers)
            label = caller.role or "anonymous"
            if key in SPECIAL:
                expected: set[int | str] | None = {SPECIAL[key][label]}
            elif key in PUBLIC:
                expected = None
                if status in (401, 403):
                    failures.append(f"{method} {template} as {caller.name}: {status} on a public route")
            elif caller.role is None:
                expected = {401}
            elif roles is not None and caller.role not in roles:
                expected = {403}
            elif owned and not caller.owner and caller.role != "admin":
                expected = {404}
            else:
                expected = None
                if status == 404 and owned and caller.owner:
                    failures.append(f"{method} {template} as the owner: 404 on their own resource")
                elif status in (401, 403):
                    failures.append(f"{method} {template} as {caller.name}: {status}, role should be allowed")
            if expected is not None and status not in expected:
                failures.append(
                    f"{method} {template} as {caller.name}: {status}, expected {sorted(map(str, expected))}"
                )
            if isinstance(status, int) and status >= 500 and status != 503:
                failures.append(f"{method} {template} as {caller.name}: server error {status}")
    assert not unclassified, f"classify these routes in PUBLIC, SPECIAL or ACCESS_BY_PREFIX: {unclassified}"
    assert not failures, "\n".join(failures)

"""Security headers on every route (the authorization-matrix trick: the routes come
from ``app.routes``, so a route added later is covered), HSTS only in production, and downloads as
RFC 6266 attachments whatever the file name.
"""

from __future__ import annotations

import asyncio
import uuid

import httpx
import pytest
from fastapi import FastAPI
from sqlalchemy import update

from fotopronta.db import session_factory, session_scope
from fotopronta.domain import UserRole
from fotopronta.models import Photo
from tests.stack.test_authorization_matrix import api_routes
from tests.utils.factories import login, make_user, product_photo_bytes, settings_env
from tests.utils.jobs import wait_job_status
from tests.utils.stack import Stack

pytestmark = pytest.mark.stack

REQUIRED = {
    "x-content-type-options": "nosniff",
    "x-frame-options": "DENY",
    "referrer-policy": "strict-origin-when-cross-origin",
}
TIMEOUT_S = 3.0


def header_problems(resp: httpx.Response) -> list[str]:
    """What is missing or wrong in ``resp``'s security headers (empty when all is well)."""
    problems = [f"{k}={resp.headers.get(k)!r}" for k, v in REQUIRED.items() if resp.headers.get(k) != v]
    csp = resp.headers.get("content-security-policy", "")
    if "frame-ancestors 'none'" not in csp or "default-src" not in csp:
        problems.append(f"content-security-policy={csp!r}")
    if "strict-transport-security" in resp.headers:
        problems.append("HSTS outside production")
    return problems


async def test_every_route_sends_security_headers(own_app: tuple[FastAPI, httpx.AsyncClient]) -> None:
    app, api = own_app
    client = await login(api, *make_user())
    routes = sorted(set(api_routes(app)), key=lambda r: (r[0] == "DELETE", r[1], r[0]))
    assert len(routes) > 20
    failures: list[str] = []
    checked = 0
    for method, template in routes:
        url = template
        for part in template.split("/"):
            if part.startswith("{"):
                name = part.strip("{}")
                url = url.replace(part, "pagina-qualsiasi" if name.endswith(":path") else str(uuid.uuid4()))
        for who, headers in (("anonymous", {}), ("client", client)):
            kwargs: dict[str, object] = {"headers": headers}
            if method in ("POST", "PUT", "PATCH"):
                kwargs["json"] = {}
            try:
                resp = await asyncio.wait_for(api.request(method, url, **kwargs), TIMEOUT_S)  # type: ignore[arg-type]
            except TimeoutError:
                continue  # an event stream that was accepted: its 401 as anonymous was checked
            checked += 1
            problems = header_problems(resp)
            if problems:
                failures.append(f"{method} {template} as {who} ({resp.status_code}): {', '.join(problems)}")
    # the web app itself, a static file and an API error
    for url in ("/", "/dashboard", "/manifest.webmanifest", "/api/nonesiste"):
        resp = await api.get(url)
        checked += 1
        if problems := header_problems(resp):
            failures.append(f"GET {url} ({resp.status_code}): {', '.join(problems)}")
    assert checked > 40
    assert not failures, "\n".join(failures)

    app_csp = (await api.get("/")).headers["content-security-policy"]
    assert "script-src 'self'" in app_csp and "unsafe-inline" not in app_csp.split("style-src")[0]
    assert "worker-src 'self'" in app_csp and "object-src 'none'" in app_csp
    assert "sandbox" in (await api.get("/api/me", headers=client)).headers["content-security-policy"]


async def test_hsts_only_in_production(stack: Stack) -> None:
    from api.main import create_app

    with settings_env(environment="production", jwt_secret="p" * 48, public_url="https://fotopronta.example"):
        app = create_app(with_lifespan=False)
    async with httpx.AsyncClient(
        transport=httpx.ASGITransport(app=app), base_url="https://testserver"
    ) as api:
        resp = await api.get("/api/me")
    assert resp.headers.get("strict-transport-security") == "max-age=63072000; includeSubDomains"
    assert resp.headers.get("x-content-type-options") == "nosniff"


async def test_designer_original_download_is_an_rfc6266_attachment(
    stack: Stack, api: httpx.AsyncClient
) -> None:
    client = await login(api, *make_user())
    designer = await login(api, *make_user(role=UserRole.graphic))
    resp = await api.post(
        "/api/photos",
        headers=client,
        data={"job_type": "background_removal_human"},
        files=[("files", ("fotò_€_😀.jpg", product_photo_bytes((200, 150)), "image/jpeg"))],
    )
    assert resp.status_code == 201, resp.text
    photo_id, job_id = resp.json()[0]["id"], resp.json()[0]["jobs"][0]["id"]
    assert resp.json()[0]["original_filename"] == "fotò_€_😀.jpg"
    await wait_job_status(session_factory(), job_id, {"pending_human"})
    assert (await api.post(f"/api/designer/jobs/{job_id}/assign-to-me", headers=designer)).status_code == 200

    dl = await api.get(f"/api/designer/jobs/{job_id}/original", headers=designer)
    assert dl.status_code == 200, dl.text
    assert dl.headers["content-disposition"] == (
        "attachment; filename=\"foto____.jpg\"; filename*=UTF-8''fot%C3%B2_%E2%82%AC_%F0%9F%98%80.jpg"
    )
    assert dl.headers["content-type"] == "image/jpeg" and not header_problems(dl)

    # quotes and backslashes in a stored name are escaped, never end the quoted string
    with session_scope() as session:
        session.execute(
            update(Photo)
            .where(Photo.id == uuid.UUID(photo_id))
            .values(original_filename='borsa "vera"\\pelle.jpg')
        )
    dl = await api.get(f"/api/designer/jobs/{job_id}/original", headers=designer)
    assert dl.status_code == 200
    assert dl.headers["content-disposition"] == (
        'attachment; filename="borsa \\"vera\\"_pelle.jpg"; filename*=UTF-8\'\'borsa%20%22vera%22_pelle.jpg'
    )

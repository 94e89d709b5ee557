"""Limits, accounts and exposure on the real stack (embedded PostgreSQL, Temporal dev server, the app
over ASGI): request bodies refused by size before they are read and uploads authenticated first, NUL
bytes and long names, names in e-mails, lock-out, reset requests per IP, the ``Host`` header in links,
and the API docs and metrics outside development. One test per rule; each fails on the code before
these limits existed."""

from __future__ import annotations

import contextlib
import json
import uuid
from collections.abc import AsyncIterator, Callable

import httpx
import pytest
from sqlalchemy import func, select

from fotopronta.db import session_scope
from fotopronta.domain import UserRole
from fotopronta.models import EmailOutbox, Photo, Profile
from fotopronta.settings import Settings, get_settings
from infra.ports import free_port
from tests.utils.factories import (
    latest_mail,
    login,
    make_user,
    product_photo_bytes,
    settings_env,
    unique_email,
)

pytestmark = pytest.mark.stack

TOO_MANY = "Troppi tentativi. Attendi qualche minuto e riprova."
PRODUCTION = {
    "environment": "production",
    "jwt_secret": "segreto-di-produzione-" + "z" * 30,
    "public_url": "https://app.fotopronta.example",
}

Browser = Callable[..., contextlib.AbstractAsyncContextManager[httpx.AsyncClient]]


@pytest.fixture
def browser(stack) -> Browser:  # type: ignore[no-untyped-def]
    """Factory of clients of a fresh in-process app, each with its own socket peer (``peer=``)."""

    @contextlib.asynccontextmanager
    async def make(peer: str = "127.0.0.1") -> AsyncIterator[httpx.AsyncClient]:
        from api.main import create_app

        app = create_app(with_lifespan=False)
        app.state.temporal = stack.temporal
        transport = httpx.ASGITransport(app=app, client=(peer, 40000))
        async with httpx.AsyncClient(transport=transport, base_url="http://testserver", timeout=60) as c:
            yield c

    return make


def fresh_ip() -> str:
    """A client address no other test uses (10.x.y.z)."""
    n = uuid.uuid4().int
    return f"10.{n % 250 + 1}.{(n >> 8) % 250 + 1}.{(n >> 16) % 250 + 1}"


class CountingBody:
    """A request body streamed in ``chunk_bytes`` pieces (no ``Content-Length``: chunked), counting how
    many pieces the server pulled."""

    def __init__(self, head: bytes, total_bytes: int, chunk_bytes: int = 64 * 1024) -> None:
        self.head, self.total, self.chunk = head, total_bytes, chunk_bytes
        self.sent = 0

    @property
    def chunks(self) -> int:
        """Pieces the whole body is made of."""
        return 1 + -(-self.total // self.chunk)

    async def __aiter__(self) -> AsyncIterator[bytes]:
        self.sent += 1
        yield self.head
        left = self.total
        while left > 0:
            self.sent += 1
            size = min(self.chunk, left)
            left -= size
            yield b"\xff" * size


def multipart_head(boundary: str, filename: str = "grande.jpg") -> bytes:
    """The start of a multipart body with one ``files`` part whose bytes follow (never closed)."""
    return (
        f'--{boundary}\r\nContent-Disposition: form-data; name="files"; filename="{filename}"\r\n'
        "Content-Type: image/jpeg\r\n\r\n"
    ).encode() + b"\xff\xd8\xff"


def photo_count(email: str) -> int:
    """Photos owned by the user with ``email``."""
    with session_scope() as session:
        user_id = session.execute(select(Profile.id).where(Profile.email == email)).scalar_one()
        return int(session.execute(select(func.count()).where(Photo.user_id == user_id)).scalar_one())


# --- request bodies -----------------------------------------------------------------------------------
async def test_bodies_are_refused_by_size_and_uploads_authenticated_before_reading(
    stack, api: httpx.AsyncClient
) -> None:  # type: ignore[no-untyped-def]
    boundary = "fotoprontaconfine"
    multipart = {"Content-Type": f"multipart/form-data; boundary={boundary}"}
    # an anonymous upload: 401 before the body is read (today all 20 MB are spooled, then 401)
    body = CountingBody(multipart_head(boundary), 20 * 1024 * 1024)
    resp = await api.post("/api/photos", content=body, headers=multipart)
    assert resp.status_code == 401, resp.text
    assert resp.json()["code"] == "not_authenticated"
    assert body.sent <= 1, f"{body.sent} of {body.chunks} pieces read before the 401"
    # a forged token: the same
    body = CountingBody(multipart_head(boundary), 20 * 1024 * 1024)
    resp = await api.post("/api/photos", content=body, headers={**multipart, "Authorization": "Bearer x.y.z"})
    assert resp.status_code == 401 and body.sent <= 1

    # a JSON body over the few kB of the JSON routes: 413 at once from Content-Length...
    big = json.dumps({"refresh_token": "x" * (1024 * 1024)}).encode()
    resp = await api.post("/api/auth/logout", content=big, headers={"Content-Type": "application/json"})
    assert resp.status_code == 413, resp.text
    assert resp.json() == {
        "detail": "La richiesta è troppo grande: il massimo consentito è 16 KB.",
        "code": "request_too_large",
        "title": "Richiesta troppo grande",
    }
    # ...and while streaming when there is none
    body = CountingBody(b'{"refresh_token": "', 2 * 1024 * 1024, chunk_bytes=8 * 1024)
    resp = await api.post("/api/auth/logout", content=body, headers={"Content-Type": "application/json"})
    assert resp.status_code == 413 and resp.json()["code"] == "request_too_large"
    assert body.sent <= 4, f"{body.sent} of {body.chunks} pieces read"

    # a signed-in seller: the batch limit of the role (here 1 MB), counted while the body streams
    email, password = make_user()
    headers = await login(api, email, password)
    with settings_env(max_batch_bytes_standard=str(1024 * 1024)):
        body = CountingBody(multipart_head(boundary), 6 * 1024 * 1024)
        resp = await api.post("/api/photos", content=body, headers={**multipart, **headers})
        assert resp.status_code == 413, resp.text
        assert resp.json()["detail"] == "La dimensione totale non può superare 1MB"
        assert body.sent < body.chunks // 2, f"{body.sent} of {body.chunks} pieces read"
        resp = await api.post(
            "/api/photos",
            headers={**headers, "Content-Length": str(50 * 1024 * 1024), **multipart},
            content=b"--" + boundary.encode(),
        )
        assert resp.status_code == 413
    # thousands of tiny parts are refused by count while the form streams, not spooled one by one
    parts = [("files", (f"f{i}.jpg", b"\xff\xd8\xff", "image/jpeg")) for i in range(2000)]
    resp = await api.post("/api/photos", headers=headers, files=parts)
    assert (resp.status_code, resp.json()["code"]) == (400, "too_many_parts"), resp.text
    assert resp.json()["detail"] == "Il modulo contiene troppi file o campi, o un campo troppo lungo."
    assert photo_count(email) == 0
    # an ordinary upload still works
    resp = await api.post(
        "/api/photos", headers=headers, files=[("files", ("borsa.jpg", product_photo_bytes(), "image/jpeg"))]
    )
    assert resp.status_code == 201, resp.text

    # a client on the designers' upload route: 403 before its body is read
    body = CountingBody(multipart_head(boundary, "risultato.jpg"), 5 * 1024 * 1024)
    resp = await api.post(
        f"/api/designer/jobs/{uuid.uuid4()}/complete", content=body, headers={**multipart, **headers}
    )
    assert resp.status_code == 403 and body.sent <= 1


# --- NUL bytes and long names ------------------------------------------------------------------------
async def test_nul_bytes_get_an_italian_400_or_422_and_long_file_names_are_cut(
    stack, api: httpx.AsyncClient
) -> None:  # type: ignore[no-untyped-def]
    email, password = make_user()
    headers = await login(api, email, password)
    admin = await login(api, *make_user(role=UserRole.admin))

    def italian(resp: httpx.Response) -> None:
        assert resp.status_code in (400, 422), (resp.request.url, resp.status_code, resp.text)
        assert "caratteri non ammessi" in resp.json()["detail"], resp.text

    for path, who in (("/api/photos", headers), ("/api/admin/jobs", admin), ("/api/admin/users", admin)):
        italian(await api.get(path, params={"q": "borsa\x00"}, headers=who))
    for path, payload in (
        ("/api/auth/login", {"email": "a\x00@example.it", "password": "segreto123"}),
        ("/api/auth/password/forgot", {"email": "a\x00@example.it"}),
        ("/api/auth/signup", {"email": "a\x00@example.it", "password": "segreto123", "first_name": "Lia"}),
    ):
        italian(await api.post(path, json=payload))
    italian(await api.post("/api/payments/verify", headers=headers, json={"sessionId": "cs_test_\x00"}))
    italian(await api.patch("/api/me", headers=headers, json={"first_name": "Giu\x00lia"}))
    italian(await api.patch("/api/me", headers=headers, json={"default_brand": "Marca\x00"}))

    photo = product_photo_bytes()
    # a raw NUL in the part's file name (httpx would percent-encode it: the body is written by hand)
    boundary = "fotoprontaconfine"
    raw = (
        (
            f'--{boundary}\r\nContent-Disposition: form-data; name="files"; filename="borsa\x00.jpg"\r\n'
            f"Content-Type: image/jpeg\r\n\r\n"
        ).encode()
        + photo
        + f"\r\n--{boundary}--\r\n".encode()
    )
    resp = await api.post(
        "/api/photos",
        headers={**headers, "Content-Type": f"multipart/form-data; boundary={boundary}"},
        content=raw,
    )
    italian(resp)
    assert photo_count(email) == 0
    resp = await api.post(
        "/api/photos",
        headers=headers,
        files=[("files", ("borsa.jpg", photo, "image/jpeg"))],
        data={"client_notes": "ok\x00"},
    )
    italian(resp)
    assert photo_count(email) == 0

    long_name = "borsa-in-pelle-" + "a" * 600 + ".jpg"
    resp = await api.post("/api/photos", headers=headers, files=[("files", (long_name, photo, "image/jpeg"))])
    assert resp.status_code == 201, resp.text
    stored = resp.json()[0]["original_filename"]
    assert len(stored) == 150 and stored.startswith("borsa-in-pelle-aaa") and stored.endswith(".jpg")


# --- names and e-mails --------------------------------------------------------------------------------
async def test_names_are_one_short_line_without_links_and_emails_do_not_echo_them(
    stack, api: httpx.AsyncClient
) -> None:  # type: ignore[no-untyped-def]
    victim = unique_email("vittima")
    phishing = (
        "Giulia\n\nATTENZIONE: il tuo account è stato sospeso. Accedi subito da https://evil.example/login"
    )
    for first_name in (phishing, "Giulia https://evil.example", "Vai su evil.example", "G" * 61, "Giu\rlia"):
        resp = await api.post(
            "/api/auth/signup", json={"email": victim, "password": "segreto123", "first_name": first_name}
        )
        assert resp.status_code == 422, (first_name, resp.text)
        assert "nome" in resp.json()["detail"], resp.text
    outbox = await api.get("/api/dev/mail", params={"to": victim})
    assert outbox.json() == []  # nothing was sent

    email, password = make_user()
    headers = await login(api, email, password)
    resp = await api.patch("/api/me", headers=headers, json={"last_name": "Rossi\nwww.evil.example"})
    assert resp.status_code == 422
    for name in ("D'Amico", "Maria-Luisa De Rossi", "J.R.R. Tolkien", "Zoë"):
        resp = await api.patch("/api/me", headers=headers, json={"first_name": name})
        assert (resp.status_code, resp.json()["first_name"]) == (200, name)

    # the confirmation e-mail greets without the (unconfirmed) name the form sent
    resp = await api.post(
        "/api/auth/signup", json={"email": victim, "password": "segreto123", "first_name": "Mallory"}
    )
    assert resp.status_code == 201, resp.text
    text = (await latest_mail(api, victim))["text"]
    assert text.startswith("Ciao,\n") and "Mallory" not in text


# --- lock-out ---------------------------------------------------------------------------------------
async def test_a_device_cookie_has_its_own_limit_and_does_not_lock_the_account(
    stack, browser: Browser
) -> None:  # type: ignore[no-untyped-def]
    email, password = make_user()
    limit = int(get_settings().login_device_rate_limit.split("/")[0])
    async with browser(peer=fresh_ip()) as device:
        resp = await device.post("/api/auth/login", json={"email": email, "password": password})
        assert resp.status_code == 200
        for i in range(limit):
            resp = await device.post("/api/auth/login", json={"email": email, "password": f"sbagliata{i}"})
            assert resp.status_code == 401
        # that device is slowed down, even with the right password ...
        resp = await device.post("/api/auth/login", json={"email": email, "password": password})
        assert (resp.status_code, resp.json()["detail"]) == (429, TOO_MANY)
    async with browser(peer=fresh_ip()) as elsewhere:  # ... but the account is not locked for others
        resp = await elsewhere.post("/api/auth/login", json={"email": email, "password": password})
        assert resp.status_code == 200, resp.text


# --- reset requests per IP -----------------------------------------------------------------------------
async def test_password_reset_requests_are_limited_per_client_ip(stack, browser: Browser) -> None:  # type: ignore[no-untyped-def]
    default = str(Settings.model_fields["forgot_ip_rate_limit"].default)
    ip_limit = int(default.split("/")[0])
    addresses = [make_user()[0] for _ in range(ip_limit + 5)]
    with settings_env(forgot_ip_rate_limit=default):
        async with browser(peer=fresh_ip()) as c:
            statuses = [
                (await c.post("/api/auth/password/forgot", json={"email": a})).status_code for a in addresses
            ]
        async with browser(peer=fresh_ip()) as other:  # another client is not affected
            resp = await other.post("/api/auth/password/forgot", json={"email": addresses[-1]})
            assert resp.status_code == 202
    assert statuses == [202] * ip_limit + [429] * 5, statuses
    with session_scope() as session:
        sent = session.execute(
            select(func.count()).where(EmailOutbox.to_address.in_(addresses[:-1]))
        ).scalar_one()
    assert sent == ip_limit


# --- the Host header in links ---------------------------------------------------------------------------
async def test_reset_links_never_carry_a_forged_host(stack, api: httpx.AsyncClient) -> None:  # type: ignore[no-untyped-def]
    assert get_settings().public_url is None  # development, like `make dev`
    email, _ = make_user()
    port = get_settings().api_port
    for host, expected in (
        ("192.168.66.6:8000", f"http://localhost:{port}"),
        ("10.0.0.8", f"http://localhost:{port}"),
        ("evil.example", f"http://localhost:{port}"),
        ("127.0.0.1:8123", "http://127.0.0.1:8123"),
        ("localhost:9000", "http://localhost:9000"),
    ):
        resp = await api.post("/api/auth/password/forgot", json={"email": email}, headers={"Host": host})
        assert resp.status_code == 202, resp.text
        link = (await latest_mail(api, email))["links"][0]
        assert link.startswith(f"{expected}/auth/callback?"), (host, link)
    robots = await api.get("/robots.txt", headers={"Host": "192.168.66.6:8000"})
    assert f"Sitemap: http://localhost:{port}/sitemap.xml" in robots.text
    other, _ = make_user()  # (five requests per address and hour)
    with settings_env(public_url="https://app.fotopronta.example"):
        resp = await api.post(
            "/api/auth/password/forgot", json={"email": other}, headers={"Host": "127.0.0.1:8123"}
        )
        assert resp.status_code == 202
        assert (await latest_mail(api, other))["links"][0].startswith("https://app.fotopronta.example/")


# --- docs and metrics in production -----------------------------------------------------------------------
async def test_production_serves_the_schema_to_admins_only_and_metrics_on_the_internal_port(stack) -> None:  # type: ignore[no-untyped-def]
    from api.main import create_app

    client_email, password = make_user()
    admin_email, _ = make_user(role=UserRole.admin)
    with settings_env(**PRODUCTION):
        app = create_app(with_lifespan=False)
        app.state.temporal = stack.temporal
        transport = httpx.ASGITransport(app=app, client=("10.0.3.7", 40000))  # a private network
        async with httpx.AsyncClient(transport=transport, base_url="https://app.fotopronta.example") as c:
            for path in ("/docs", "/redoc", "/metrics"):
                resp = await c.get(path)
                assert (resp.status_code, resp.json()["code"]) == (404, "not_found"), path
            assert (await c.get("/openapi.json")).status_code == 401
            client = await login(c, client_email, password)
            assert (await c.get("/openapi.json", headers=client)).status_code == 403
            admin = await login(c, admin_email, password)
            schema = await c.get("/openapi.json", headers=admin)
            assert schema.status_code == 200 and "/api/photos" in schema.json()["paths"]
            await c.get("/api/config")
        from api.server import start_metrics_server

        port = start_metrics_server(f"127.0.0.1:{free_port()}")
        async with httpx.AsyncClient(timeout=5) as scraper:
            exposition = (await scraper.get(f"http://127.0.0.1:{port}/metrics")).text
        assert 'fotopronta_http_requests_total{method="GET",route="/api/config",status="200"}' in exposition
    # development keeps them open
    async with httpx.AsyncClient(
        transport=httpx.ASGITransport(app=create_app(with_lifespan=False)), base_url="http://testserver"
    ) as dev:
        for path in ("/docs", "/openapi.json", "/metrics"):
            assert (await dev.get(path)).status_code == 200, path

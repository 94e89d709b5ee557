"""Limits, accounts and exposure on the real stack (embedded PostgreSQL, Temporal dev server, the app
over ASGI): request bodies refused by size before they are read and uploads authenticated first, NUL
bytes and long names, names in e-mails, lock-out, reset requests per IP, the ``Host`` header in links,
and the API docs and metrics outside development. One test per rule; each fails on the code before
these limits existed."""

from __future__ import annotations

import asyncio
import base64
import contextlib
import json
import time
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


# --- crafted cursors, invisible names, malformed forms, reset timing ------------------------------------
def _cursor(parts: object) -> str:
    return base64.urlsafe_b64encode(json.dumps(parts).encode()).decode().rstrip("=")


async def test_crafted_cursors_are_refused_with_400(stack, api: httpx.AsyncClient) -> None:  # type: ignore[no-untyped-def]
    email, password = make_user()
    headers = await login(api, email, password)
    photo_id, when = str(uuid.uuid4()), "2026-11-28T10:00:00+00:00"
    crafted = {
        "status": [
            ["status", when, photo_id, 10**20],  # the 500: integer out of range
            ["status", when, photo_id, -1],
            ["status", when, photo_id, True],
            ["status", when, photo_id, 2.5],
            ["status", when, photo_id],
            ["status", when, 12345, 1],
            ["status", "2026-11-28T10:00:00", photo_id, 1],
            ["status", "9" * 250, photo_id, 1],
            ["status", when, photo_id, 1, "in più"],
        ],
        "name": [["name", "a\x00b", photo_id], ["name", "x" * 301, photo_id], ["name", ["x"], photo_id]],
        "newest": [["newest", when, {"id": 1}], {"sort": "newest"}, ["newest", "ieri", photo_id]],
    }
    for sort, cursors in crafted.items():
        for parts in cursors:
            resp = await api.get(
                "/api/photos", headers=headers, params={"sort": sort, "cursor": _cursor(parts)}
            )
            assert (resp.status_code, resp.json()["code"]) == (400, "invalid_cursor"), (parts, resp.text)
            assert resp.json()["detail"] == "Cursore di paginazione non valido."
    # a real cursor still pages
    ok = await api.get(
        "/api/photos",
        headers=headers,
        params={"sort": "status", "cursor": _cursor(["status", when, photo_id, 1])},
    )
    assert ok.status_code == 200, ok.text


async def test_invisible_names_are_refused(stack, api: httpx.AsyncClient) -> None:  # type: ignore[no-untyped-def]
    email, password = make_user()
    headers = await login(api, email, password)
    for name in (
        "\u3164",
        "\u3164\u3164 \u3164",
        "\u2800\u2800",
        "\u115f",
        "\uffa0",
        "\u0301\u0301",
        "Anna\u3164",
    ):
        resp = await api.patch("/api/me", headers=headers, json={"first_name": name})
        assert resp.status_code == 422, (name, resp.text)
        assert resp.json()["detail"].startswith("Il nome deve contenere lettere visibili"), resp.text
        resp = await api.post(
            "/api/auth/signup", json={"email": unique_email(), "password": "segreto123", "first_name": name}
        )
        assert resp.status_code == 422, (name, resp.text)


async def test_malformed_and_oversized_forms_get_italian_errors(stack, api: httpx.AsyncClient) -> None:  # type: ignore[no-untyped-def]
    email, password = make_user()
    headers = await login(api, email, password)
    image = product_photo_bytes((64, 48))
    # a 2 MB text field: over the form's 1 MB per field ('Part exceeded maximum size of 1024KB.')
    resp = await api.post(
        "/api/photos",
        headers=headers,
        files=[("files", ("a.jpg", image, "image/jpeg"))],
        data={"client_notes": "x" * (2 * 1024 * 1024)},
    )
    assert resp.json() == {
        "detail": "Un campo del modulo è troppo lungo (al massimo 1 MB di testo).",
        "code": "field_too_large",
        "title": "Errore upload",
    }
    assert resp.status_code == 400
    malformed = {
        "detail": "Il modulo inviato non è valido o è incompleto: ricarica la pagina e riprova.",
        "code": "malformed_body",
        "title": "Richiesta non valida",
    }
    # a 10,000-character file name in a part header ('Invalid multipart data.')
    boundary = "confine46"
    multipart = {**headers, "Content-Type": f"multipart/form-data; boundary={boundary}"}
    body = (
        (
            f'--{boundary}\r\nContent-Disposition: form-data; name="files"; filename="{"n" * 10000}.jpg"\r\n'
            "Content-Type: image/jpeg\r\n\r\n"
        ).encode()
        + image
        + f"\r\n--{boundary}--\r\n".encode()
    )
    resp = await api.post("/api/photos", headers=multipart, content=body)
    assert (resp.status_code, resp.json()) == (400, malformed), resp.text
    # a broken multipart body
    resp = await api.post(
        "/api/photos",
        headers=multipart,
        content=b"--" + boundary.encode() + b"\r\nsenza intestazioni\r\n\r\n",
    )
    assert (resp.status_code, resp.json()) == (400, malformed), resp.text
    assert photo_count(email) == 0


async def test_password_forgot_answers_before_the_email_is_sent(stack, live_api) -> None:  # type: ignore[no-untyped-def]
    """With an SMTP server that never answers, the reset request for a real address is answered as
    fast as for an unknown one (the e-mail goes in the background); the code is still stored."""
    silent: list[asyncio.StreamWriter] = []

    async def accept(_reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        silent.append(writer)  # never greets: the SMTP client waits until its timeout

    server = await asyncio.start_server(accept, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    email, _ = make_user()
    try:
        with settings_env(
            mail_backend="smtp", smtp_host="127.0.0.1", smtp_port=str(port), smtp_timeout_s="4"
        ):
            timings = {}
            for who, address in (("sconosciuto", unique_email("nessuno")), ("cliente", email)):
                start = time.monotonic()
                resp = await live_api.client.post("/api/auth/password/forgot", json={"email": address})
                timings[who] = time.monotonic() - start
                assert resp.status_code == 202, resp.text
            print("password/forgot answered in:", {k: round(v, 3) for k, v in timings.items()})
            assert timings["cliente"] < 2, timings  # the SMTP timeout is 4 s: not waited for
            deadline = time.monotonic() + 20
            while True:  # the code was stored and the e-mail queued after the answer
                with session_scope() as session:
                    stored = session.execute(
                        select(func.count()).where(EmailOutbox.to_address == email)
                    ).scalar_one()
                if stored:
                    break
                assert time.monotonic() < deadline, "the reset e-mail was never stored"
                await asyncio.sleep(0.2)
            await asyncio.sleep(4.5)  # let the background SMTP attempt time out inside the settings
    finally:
        for writer in silent:
            writer.close()
        server.close()
        await server.wait_closed()

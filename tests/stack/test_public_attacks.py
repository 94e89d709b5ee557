"""Attacks on the public API, on the real stack: every one is refused with its code and nothing is
stored or charged.

- keys: a revoked key, another account's job, a key over its scope or its monthly credit cap (a key
  on ``/api/`` and on staff routes: ``tests/stack/test_api_keys.py``);
- limits: the per-key rate limit (429, ``Retry-After``, ``RateLimit-*``), the cap on jobs in flight, a
  300 MB body (declared, and streamed without a length);
- ``image_url`` with loopback not allowed (the production default): 127.0.0.1, ``localhost``, [::1],
  an IPv4-mapped and a decimal loopback, 169.254.169.254, private addresses; with loopback allowed (as
  under ``make dev``): a redirect to a private or metadata address, a body of 300 MB with and without
  ``Content-Length``, a server that does not answer in time, and the good case, a real photo fetched.
"""

from __future__ import annotations

import base64
import ipaddress
import threading
import time
import uuid
from collections.abc import AsyncIterator, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import httpx
import pytest

from fotopronta.db import session_factory
from fotopronta.models import Photo, PhotoProcessingJob
from fotopronta.safe_fetch import FetchError, address_allowed, check_public_url, request
from tests.stack.test_public_jobs import _problem, new_key
from tests.utils.factories import product_photo_bytes, settings_env
from tests.utils.jobs import count_rows, credits_and_ledger, wait_job_status

pytestmark = pytest.mark.stack

PHOTO = product_photo_bytes((96, 72))
HUGE = 300 * 1024 * 1024


class _Handler(BaseHTTPRequestHandler):
    """A hostile (and one honest) image server on loopback."""

    def log_message(self, *_args: object) -> None:
        return

    def do_GET(self) -> None:
        if self.path == "/foto.jpg":
            self.send_response(200)
            self.send_header("Content-Type", "image/jpeg")
            self.send_header("Content-Length", str(len(PHOTO)))
            self.end_headers()
            self.wfile.write(PHOTO)
        elif self.path.startswith("/redirect?to="):
            self.send_response(302)
            self.send_header("Location", self.path.split("=", 1)[1])
            self.end_headers()
        elif self.path == "/declared-huge":
            self.send_response(200)
            self.send_header("Content-Type", "image/jpeg")
            self.send_header("Content-Length", str(HUGE))
            self.end_headers()
            self._stream(HUGE)
        elif self.path == "/chunked-huge":
            self.send_response(200)
            self.send_header("Content-Type", "image/jpeg")
            self.end_headers()  # HTTP/1.0: no length, the body ends when the connection closes
            self._stream(HUGE)
        elif self.path == "/echo":
            self.send_response(200)
            self.send_header("Content-Length", "3")
            self.end_headers()
            self.wfile.write(b"GET")
        elif self.path == "/slow":
            time.sleep(5)
            self.send_response(200)
            self.end_headers()
        else:
            self.send_response(404)
            self.end_headers()

    def do_POST(self) -> None:
        """Echo the method and the body's length (``/echo``); ``/redirect307?to=`` keeps the method,
        ``/redirect302?to=`` turns it into a GET."""
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length)
        if self.path.startswith(("/redirect307?to=", "/redirect302?to=")):
            self.send_response(307 if "307" in self.path else 302)
            self.send_header("Location", self.path.split("=", 1)[1])
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        answer = f"POST {len(body)}".encode()
        self.send_response(202)
        self.send_header("Content-Length", str(len(answer)))
        self.end_headers()
        self.wfile.write(answer)

    def _stream(self, total: int) -> None:
        chunk = b"\xff" * (1024 * 1024)
        try:
            for _ in range(total // len(chunk)):
                self.wfile.write(chunk)
        except (BrokenPipeError, ConnectionResetError):
            return


@pytest.fixture
def image_server() -> Iterator[str]:
    """``http://127.0.0.1:{port}`` of :class:`_Handler`."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def _nothing_stored(user_id: uuid.UUID, credits: int = 15) -> None:
    sessions = session_factory()
    assert count_rows(sessions, Photo, user_id=user_id) == 0
    assert count_rows(sessions, PhotoProcessingJob, user_id=user_id) == 0
    assert credits_and_ledger(sessions, user_id) == (credits, credits)


def test_address_rules() -> None:
    refused = [
        "127.0.0.1",
        "::1",
        "10.0.0.1",
        "172.16.5.4",
        "192.168.1.1",
        "169.254.169.254",
        "100.100.100.200",
        "fd00:ec2::254",
        "fe80::1",
        "0.0.0.0",
        "::ffff:127.0.0.1",
        "::ffff:10.0.0.1",
        "224.0.0.1",
        "2002:7f00:1::1",
        "198.18.0.1",
        "255.255.255.255",
    ]
    for text in refused:
        assert not address_allowed(ipaddress.ip_address(text), allow_loopback=False), text
    assert address_allowed(ipaddress.ip_address("127.0.0.1"), allow_loopback=True)
    assert not address_allowed(ipaddress.ip_address("169.254.169.254"), allow_loopback=True)
    assert not address_allowed(ipaddress.ip_address("10.1.2.3"), allow_loopback=True)
    for text in ("93.184.215.14", "2606:2800:21f:cb07:6820:80da:af6b:8b2c", "8.8.8.8"):
        assert address_allowed(ipaddress.ip_address(text), allow_loopback=False), text


async def test_image_url_to_inside_addresses_is_refused(api: httpx.AsyncClient, image_server: str) -> None:
    _, key, user_id = await new_key(api)
    port = image_server.rsplit(":", 1)[1]
    inside = [
        image_server + "/foto.jpg",
        f"http://localhost:{port}/foto.jpg",
        f"http://[::1]:{port}/foto.jpg",
        f"http://[::ffff:127.0.0.1]:{port}/foto.jpg",
        f"http://2130706433:{port}/foto.jpg",
        "http://169.254.169.254/latest/meta-data/",
        "http://10.0.0.1/foto.jpg",
        "https://192.168.1.1/foto.jpg",
        "http://[fd00:ec2::254]/",
    ]
    for url in inside:
        resp = await api.post("/v1/jobs", headers=key, json={"image_url": url})
        _problem(resp, 400, "image_url_forbidden")
    for url in ("file:///etc/passwd", "gopher://127.0.0.1/", "http://user:pw@example.com/a.jpg", "http:///x"):
        _problem(await api.post("/v1/jobs", headers=key, json={"image_url": url}), 400, "image_url_invalid")
    _nothing_stored(user_id)


async def test_image_url_with_loopback_allowed(api: httpx.AsyncClient, image_server: str) -> None:
    sessions = session_factory()
    _, key, user_id = await new_key(api)
    with settings_env(fetch_allow_loopback="true", fetch_timeout_s="2"):
        for target in ("http://10.0.0.1/foto.jpg", "http://169.254.169.254/latest/meta-data/"):
            resp = await api.post(
                "/v1/jobs", headers=key, json={"image_url": f"{image_server}/redirect?to={target}"}
            )
            _problem(resp, 400, "image_url_forbidden")
        for path in ("/declared-huge", "/chunked-huge"):
            resp = await api.post("/v1/jobs", headers=key, json={"image_url": image_server + path})
            _problem(resp, 400, "file_too_large")
        _problem(
            await api.post("/v1/jobs", headers=key, json={"image_url": image_server + "/slow"}),
            400,
            "image_url_timeout",
        )
        _problem(
            await api.post("/v1/jobs", headers=key, json={"image_url": image_server + "/nulla.jpg"}),
            400,
            "image_url_fetch_failed",
        )
        _nothing_stored(user_id)
        # the honest server, through a redirect: the photo is fetched and processed
        url = f"{image_server}/redirect?to={image_server}/foto.jpg"
        resp = await api.post("/v1/jobs", headers=key, json={"image_url": url})
        assert resp.status_code == 202, resp.text
        assert resp.json()["original_filename"] == "redirect"
    await wait_job_status(sessions, resp.json()["id"], {"completed"})


async def _chunks(total: int) -> AsyncIterator[bytes]:
    chunk = b"\0" * (1024 * 1024)
    for _ in range(total // len(chunk)):
        yield chunk


async def test_a_300_mb_body_is_refused(api: httpx.AsyncClient) -> None:
    _, key, user_id = await new_key(api)
    declared = {**key, "Content-Type": "application/json", "Content-Length": str(HUGE)}
    resp = await api.post("/v1/jobs", headers=declared, content=b"{}")
    _problem(resp, 413, "request_too_large")
    resp = await api.post(
        "/v1/jobs", headers={**key, "Content-Type": "application/json"}, content=_chunks(HUGE)
    )
    _problem(resp, 413, "request_too_large")
    # without a valid key the body is not even read
    resp = await api.post(
        "/v1/jobs", headers={"Content-Type": "application/json", "Content-Length": str(HUGE)}, content=b"{}"
    )
    _problem(resp, 401, "missing_api_key")
    _nothing_stored(user_id)


async def test_keys_scopes_caps_and_limits(api: httpx.AsyncClient) -> None:
    sessions = session_factory()
    b64 = base64.b64encode(PHOTO).decode()
    seller, reader, user_id = await new_key(api, scopes=["jobs:read"])
    _problem(
        await api.post("/v1/jobs", headers=reader, json={"image_file_b64": b64}), 403, "insufficient_scope"
    )
    _nothing_stored(user_id)
    resp = await api.post("/api/api-keys", headers=seller, json={"name": "writer", "scopes": ["jobs:write"]})
    writer = {"X-Api-Key": resp.json()["secret"]}
    resp = await api.post("/v1/jobs", headers=writer, json={"image_file_b64": b64})
    assert resp.status_code == 202, resp.text
    job_id = resp.json()["id"]
    _problem(await api.get(f"/v1/jobs/{job_id}", headers=writer), 403, "insufficient_scope")
    assert (await api.get(f"/v1/jobs/{job_id}", headers=reader)).status_code == 200
    await wait_job_status(sessions, job_id, {"completed"})

    # the monthly credit cap: 2 credits; a designer job (3) is over it, two AI jobs are not, a third is
    capped = (
        await api.post("/api/api-keys", headers=seller, json={"name": "cap", "monthly_credit_cap": 2})
    ).json()
    cap_key = {"X-Api-Key": capped["secret"]}
    resp = await api.post("/v1/jobs", headers=cap_key, json={"image_file_b64": b64, "service": "designer"})
    _problem(resp, 402, "monthly_credit_cap_reached")
    ids = []
    for _ in range(2):
        resp = await api.post("/v1/jobs", headers=cap_key, json={"image_file_b64": b64})
        assert resp.status_code == 202, resp.text
        ids.append(resp.json()["id"])
    _problem(
        await api.post("/v1/jobs", headers=cap_key, json={"image_file_b64": b64}),
        402,
        "monthly_credit_cap_reached",
    )
    assert count_rows(sessions, PhotoProcessingJob, user_id=user_id) == 3
    for job_id in ids:
        await wait_job_status(sessions, job_id, {"completed"})
    assert credits_and_ledger(sessions, user_id) == (12, 12)

    # a revoked key: refused at the next request, nothing more stored
    assert (await api.delete(f"/api/api-keys/{capped['id']}", headers=seller)).status_code == 204
    _problem(await api.get(f"/v1/jobs/{ids[0]}", headers=cap_key), 401, "api_key_revoked")
    _problem(
        await api.post("/v1/jobs", headers=cap_key, json={"image_file_b64": b64}), 401, "api_key_revoked"
    )
    assert count_rows(sessions, PhotoProcessingJob, user_id=user_id) == 3

    # jobs in flight: the account's cap
    _, key, other_id = await new_key(api)
    with settings_env(api_max_jobs_in_flight="0"):
        resp = await api.post("/v1/jobs", headers=key, json={"image_file_b64": b64})
        _problem(resp, 429, "too_many_jobs_in_flight")
    _nothing_stored(other_id)

    # the per-key rate limit: RateLimit-* on every answer, 429 with Retry-After past it
    _, key, _ = await new_key(api)
    with settings_env(api_rate_limit="3/minute"):
        answers = [await api.get("/v1/account", headers=key) for _ in range(4)]
    assert [r.status_code for r in answers] == [200, 200, 200, 429]
    assert [r.headers["RateLimit-Remaining"] for r in answers] == ["2", "1", "0", "0"]
    assert all(r.headers["RateLimit-Limit"] == "3" for r in answers)
    assert 1 <= int(answers[3].headers["Retry-After"]) <= 60
    assert 0 <= int(answers[0].headers["RateLimit-Reset"]) <= 60
    _problem(answers[3], 429, "rate_limited")


async def test_the_same_rules_for_any_method(image_server: str) -> None:
    """What webhooks will use: :func:`request` with a POST and :func:`check_public_url` at registration,
    under the same address rules as ``image_url``."""
    for url in (image_server + "/echo", "http://169.254.169.254/", "http://10.1.2.3/hook"):
        with pytest.raises(FetchError) as refused:
            await check_public_url(url)
        assert refused.value.code == "url_forbidden"
        with pytest.raises(FetchError) as refused:
            await request("POST", url, content=b"{}", max_bytes=1024)
        assert refused.value.code == "url_forbidden"
    with settings_env(fetch_allow_loopback="true"):
        await check_public_url(image_server + "/echo")
        answer = await request("POST", image_server + "/echo", content=b"x" * 10, max_bytes=1024)
        assert (answer.status, answer.data) == (202, b"POST 10")
        kept = await request(
            "POST", f"{image_server}/redirect307?to={image_server}/echo", content=b"abc", max_bytes=1024
        )
        assert (kept.status, kept.data) == (202, b"POST 3")
        turned = await request(
            "POST", f"{image_server}/redirect302?to={image_server}/echo", content=b"abc", max_bytes=1024
        )
        assert (turned.status, turned.data) == (200, b"GET")
        with pytest.raises(FetchError) as refused:
            await request(
                "POST",
                f"{image_server}/redirect307?to=http://169.254.169.254/",
                content=b"{}",
                max_bytes=1024,
            )
        assert refused.value.code == "url_forbidden"
        unfollowed = await request(
            "POST",
            f"{image_server}/redirect307?to={image_server}/echo",
            content=b"{}",
            max_bytes=1024,
            follow_redirects=False,
        )
        assert unfollowed.status == 307

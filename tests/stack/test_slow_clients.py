"""Slow and oversized requests against ``python -m api`` itself (the server process production runs,
one worker): endless and trickling request heads, bodies sent a byte at a time, an 8 MB header and a
head with too many fields. While the attack runs, ``/healthz`` and a login must still answer within 1 s
(a generous functional liveness check, not a timing benchmark), and the server must close the slow
connections itself. Loopback only; every loop is bounded by a byte count or a deadline.

Each test fails on the server without :mod:`api.http_guard` (checked by running this file against it).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import sys
import time
from collections.abc import AsyncIterator

import httpx
import pytest

from fotopronta.settings import get_settings
from infra.ports import free_port
from tests.utils.factories import make_user

pytestmark = pytest.mark.stack

LIVENESS_S = 1.0
"""Each probe request during the attack must be answered within this (functional, generous)."""


@pytest.fixture
async def served_port(stack) -> AsyncIterator[int]:  # type: ignore[no-untyped-def]
    """``python -m api`` with one worker on a free loopback port, wired to the session's stack."""
    port = free_port()
    env = {
        **os.environ,
        "FOTOPRONTA_API_PORT": str(port),
        "FOTOPRONTA_API_WORKERS": "1",
        "FOTOPRONTA_TEMPORAL_ADDRESS": stack.temporal.service_client.config.target_host,
    }
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "api",
        env=env,
        stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.DEVNULL,
    )
    try:
        async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}", timeout=10) as c:
            deadline = time.monotonic() + 60
            while True:
                with contextlib.suppress(httpx.HTTPError):
                    if (await c.get("/healthz")).status_code == 200:
                        break
                assert proc.returncode is None and time.monotonic() < deadline, "API did not start"
                await asyncio.sleep(0.3)
        yield port
    finally:
        proc.terminate()
        await asyncio.wait_for(proc.wait(), 20)


async def _closed_by_server(reader: asyncio.StreamReader, wait_s: float) -> bool:
    """Whether the server closed the connection (EOF or reset) within ``wait_s`` seconds; any
    response bytes before the close are read and ignored."""
    try:
        async with asyncio.timeout(wait_s):
            while await reader.read(65536):
                pass
    except TimeoutError:
        return False
    except (ConnectionError, OSError):
        return True
    return True


async def endless_header(port: int, stop: asyncio.Event, *, per_connection: int = 8 << 20) -> None:
    """The issue's attack: ``GET / HTTP/1.1`` and a header ``X-A`` that never ends, 16 KB at a time, as
    fast as the socket takes it; a new connection when the server closes one (at most 200, and at most
    ``per_connection`` bytes each)."""
    for _ in range(200):
        if stop.is_set():
            return
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        try:
            writer.write(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-A: ")
            sent = 0
            while not stop.is_set() and sent < per_connection and not reader.at_eof():
                writer.write(b"a" * 16384)
                await writer.drain()
                sent += 16384
                await asyncio.sleep(0)
        except (ConnectionError, OSError):
            pass
        finally:
            writer.close()
            with contextlib.suppress(ConnectionError, OSError):
                await writer.wait_closed()
        await asyncio.sleep(0.05)


async def trickle(port: int, head: bytes, byte: bytes, *, every_s: float, for_s: float) -> float | None:
    """Send ``head``, then ``byte`` every ``every_s`` seconds for at most ``for_s`` seconds. Returns the
    seconds after which the server closed the connection, ``None`` if it was still open at the end."""
    start = time.monotonic()
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        writer.write(head)
        await writer.drain()
        while time.monotonic() - start < for_s:
            if await _closed_by_server(reader, every_s):
                return time.monotonic() - start
            writer.write(byte)
            await writer.drain()
        return None
    except (ConnectionError, OSError):
        return time.monotonic() - start
    finally:
        writer.close()
        with contextlib.suppress(ConnectionError, OSError):
            await writer.wait_closed()


async def test_slow_heads_and_bodies_neither_stall_the_api_nor_stay_open(served_port: int) -> None:
    port = served_port
    email, password = make_user()
    limits = get_settings()
    observe_s = limits.http_head_timeout_s + limits.http_body_grace_s + 10
    stop = asyncio.Event()
    floods = [asyncio.create_task(endless_header(port, stop)) for _ in range(4)]
    slow_heads = [
        asyncio.create_task(
            trickle(
                port, b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-B: ", b"b", every_s=1, for_s=observe_s
            )
        )
        for _ in range(4)
    ]
    body_head = (
        b"POST /api/auth/login HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        b"Content-Length: 1000\r\n\r\n"
    )
    slow_bodies = [
        asyncio.create_task(trickle(port, body_head, b" ", every_s=2, for_s=observe_s)) for _ in range(40)
    ]
    timings: list[tuple[str, int, float]] = []
    try:
        await asyncio.sleep(1)
        async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}", timeout=30) as client:
            for _ in range(5):
                start = time.monotonic()
                resp = await client.get("/healthz")
                timings.append(("healthz", resp.status_code, time.monotonic() - start))
                start = time.monotonic()
                resp = await client.post("/api/auth/login", json={"email": email, "password": password})
                timings.append(("login", resp.status_code, time.monotonic() - start))
                await asyncio.sleep(0.3)
    finally:
        stop.set()
        await asyncio.gather(*floods, return_exceptions=True)
    heads_closed = await asyncio.gather(*slow_heads)
    bodies_closed = await asyncio.gather(*slow_bodies)
    print("probes during the attack:", [(name, status, round(s, 3)) for name, status, s in timings])
    print("slow heads closed after (s):", [None if t is None else round(t, 1) for t in heads_closed])
    print("slow bodies closed after (s):", [None if t is None else round(t, 1) for t in bodies_closed])
    assert [status for _, status, _ in timings] == [200] * len(timings), timings
    assert max(s for _, _, s in timings) < LIVENESS_S, timings
    # the server closes them itself: the head within its deadline, the bodies after the grace period
    assert all(t is not None and t < limits.http_head_timeout_s + 3 for t in heads_closed), heads_closed
    assert all(t is not None for t in bodies_closed), bodies_closed


async def _send_head(port: int, head: bytes) -> bytes:
    """Send ``head`` (in 64 KB pieces) and return what the server answers before closing ('' when it
    resets the connection without an answer we could read)."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    answer = b""
    try:
        for i in range(0, len(head), 65536):
            writer.write(head[i : i + 65536])
            await writer.drain()
    except (ConnectionError, OSError):
        pass
    try:
        async with asyncio.timeout(15):
            while chunk := await reader.read(65536):
                answer += chunk
    except (ConnectionError, OSError):
        pass
    finally:
        writer.close()
        with contextlib.suppress(ConnectionError, OSError):
            await writer.wait_closed()
    return answer


async def test_oversized_heads_are_refused(served_port: int) -> None:
    port = served_port
    eight_mb = b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-A: " + b"a" * (8 << 20) + b"\r\n\r\n"
    answer = await _send_head(port, eight_mb)
    print("8 MB header:", answer[:60])
    assert answer == b"" or answer.startswith(b"HTTP/1.1 431 "), answer[:200]
    many = (
        b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        + b"".join(b"X-%d: 1\r\n" % i for i in range(500))
        + b"\r\n"
    )
    answer = await _send_head(port, many)
    print("500 headers:", answer[:60])
    assert answer.startswith(b"HTTP/1.1 431 "), answer[:200]
    assert "troppo grandi" in answer.decode(errors="replace")
    # an ordinary large head (a long cookie) still works, and so does a 6 MB upload sent at full speed:
    # the whole body is read and judged by its content (not an image: 400), never cut by the guard
    email, password = make_user()
    async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}", timeout=30) as client:
        resp = await client.get("/healthz", headers={"Cookie": "x=" + "c" * 8000})
        assert resp.status_code == 200
        token = (await client.post("/api/auth/login", json={"email": email, "password": password})).json()
        resp = await client.post(
            "/api/photos",
            headers={"Authorization": f"Bearer {token['access_token']}"},
            files=[("files", ("testo.jpg", b"non e' una foto " * (6 << 16), "image/jpeg"))],
        )
        assert resp.status_code == 400, resp.text
        assert resp.json()["detail"] == "Solo le immagini sono supportate", resp.text

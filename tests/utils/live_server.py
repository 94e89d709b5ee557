"""The API served by a real uvicorn on 127.0.0.1 (the production configuration,
:func:`api.server.server_config`), for tests that need a streamed body (SSE).

httpx's ``ASGITransport`` buffers the whole response body, so a server-sent event stream (which never
ends) cannot be read through it. The ``live_api`` fixture runs ``uvicorn.Server`` in a task of the
session's event loop with the app wired to the session's Temporal, and :class:`SseStream` reads
events from it with ``httpx.AsyncClient.stream``.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import httpx
import pytest
import uvicorn
from fastapi import FastAPI

from api.server import server_config
from infra.ports import free_port
from tests.utils.stack import Stack


class _InProcessServer(uvicorn.Server):
    """A uvicorn server that leaves the test process's signal handlers alone."""

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        yield


@dataclass
class LiveServer:
    """A running API: ``base_url`` (``http://127.0.0.1:{port}``), the app and a client bound to it."""

    base_url: str
    app: FastAPI
    client: httpx.AsyncClient


@dataclass
class SseEvent:
    """One parsed server-sent event: ``event`` name and JSON-decoded ``data``."""

    event: str
    data: Any


@dataclass
class SseStream:
    """An open ``GET /api/events`` stream whose events a background task collects into ``events``."""

    response: httpx.Response
    events: list[SseEvent] = field(default_factory=list)
    comments: list[str] = field(default_factory=list)
    _task: asyncio.Task[None] | None = None

    async def _read(self) -> None:
        name, data = "message", []
        async for line in self.response.aiter_lines():
            if line == "":
                if data:
                    self.events.append(SseEvent(name, json.loads("\n".join(data))))
                name, data = "message", []
            elif line.startswith(":"):
                self.comments.append(line[1:].strip())
            elif line.startswith("event:"):
                name = line[6:].strip()
            elif line.startswith("data:"):
                data.append(line[5:].strip())

    async def wait_for(self, pred: Callable[[SseEvent], bool], *, timeout_s: float = 60) -> SseEvent:
        """The first collected event matching ``pred``, waiting up to ``timeout_s`` seconds for it."""
        deadline = time.monotonic() + timeout_s
        while True:
            for ev in self.events:
                if pred(ev):
                    return ev
            if self._task is not None and self._task.done():
                self._task.result()  # re-raise a reader error
                raise AssertionError(f"stream ended; events so far: {self.events}")
            assert time.monotonic() < deadline, f"no matching event in {timeout_s} s; got {self.events}"
            await asyncio.sleep(0.05)


@contextlib.asynccontextmanager
async def open_stream(
    client: httpx.AsyncClient,
    *,
    token: str | None = None,
    ticket_token: str | None = None,
) -> AsyncIterator[SseStream]:
    """Open ``GET /api/events`` and collect its events: with ``token`` as bearer header, or as the web
    app does, with a single-use ``?ticket=`` from ``POST /api/events/ticket`` got with ``ticket_token``.

    The response's headers have arrived when this yields, i.e. the server is already listening.
    """
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    params = {}
    if ticket_token:
        resp = await client.post("/api/events/ticket", headers={"Authorization": f"Bearer {ticket_token}"})
        assert resp.status_code == 200, resp.text
        params = {"ticket": resp.json()["ticket"]}
    async with client.stream(
        "GET", "/api/events", headers=headers, params=params, timeout=httpx.Timeout(10, read=None)
    ) as resp:
        assert resp.status_code == 200, (await resp.aread()).decode()
        assert resp.headers["content-type"].startswith("text/event-stream")
        stream = SseStream(resp)
        stream._task = asyncio.create_task(stream._read())
        try:
            yield stream
        finally:
            stream._task.cancel()
            with contextlib.suppress(asyncio.CancelledError, httpx.HTTPError):
                await stream._task


@pytest.fixture(scope="session")
async def live_api(stack: Stack) -> AsyncIterator[LiveServer]:
    """The API on a real uvicorn server at ``127.0.0.1:{free port}`` for the whole test session."""
    from api.events_bus import get_bus
    from api.main import create_app

    app = create_app(with_lifespan=False)
    app.state.temporal = stack.temporal
    port = free_port()
    config = server_config(
        app, host="127.0.0.1", port=port, lifespan="off", log_level="warning", timeout_graceful_shutdown=2
    )
    server = _InProcessServer(config)
    task = asyncio.create_task(server.serve())
    deadline = time.monotonic() + 20
    while not server.started:
        assert not task.done(), "uvicorn exited at start-up"
        assert time.monotonic() < deadline, "uvicorn did not start"
        await asyncio.sleep(0.05)
    base_url = f"http://127.0.0.1:{port}"
    async with httpx.AsyncClient(base_url=base_url, timeout=60) as client:
        try:
            yield LiveServer(base_url=base_url, app=app, client=client)
        finally:
            await get_bus(app).close()
            server.should_exit = True
            with contextlib.suppress(asyncio.CancelledError):
                await asyncio.wait_for(task, 10)

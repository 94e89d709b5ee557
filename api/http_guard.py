"""Slow and oversized requests at the connection level: uvicorn's httptools protocol with bounds on the
request head and on how slowly a body may arrive.

uvicorn bounds neither the size of a request head (its httptools parser appends every piece of a header
as it comes, so an endless header costs memory and ever slower parsing) nor the time a client may take
to send it: ``timeout_keep_alive`` only runs between requests, and any byte received cancels it. Four
sockets sending an endless header, or forty sending one byte every ten seconds, are enough to stall or
hold a worker. :class:`GuardedHttpToolsProtocol` is the same protocol (``uvicorn.Config(http=...)``)
with, per connection (values from :class:`HttpLimits`, i.e. the ``http_*`` settings):

- **Head size** (``http_max_head_bytes``, 32 KB, the request line and every header): past it the
  connection is answered ``431`` and closed before the head is parsed further. Bytes are counted as they
  arrive, so at most one socket read (asyncio reads ≤ 256 KB) is parsed beyond the limit.
- **Header count** (``http_max_headers``, 100, Apache's ``LimitRequestFields``): ``431`` and closed.
- **Head time** (``http_head_timeout_s``, 10 s): the whole head must arrive within this time from the
  connection's opening or from the request's first byte; otherwise ``408`` and closed (a connection
  that never sends a byte is closed silently). A total deadline, not an idle one: a byte now and then
  does not extend it.
- **Body rate** (``http_body_grace_s`` 10 s, ``http_body_min_rate`` 500 bytes/s, like Apache
  ``mod_reqtimeout``'s ``body=…,MinRate=500`` and Kestrel's minimum request body data rate): after the
  grace period, the body must have come at that average rate since its head; otherwise the connection is
  closed (the route sees the client disconnect and stores nothing). While the server itself has paused
  reading (the route has not consumed the last 64 KB yet) the client is not to blame: the clock starts
  again when reading resumes.
- **Keep-alive**: uvicorn's ``timeout_keep_alive`` (``http_keep_alive_s``, 5 s) closes a connection
  idle between requests.

The overridden methods are uvicorn's documented parser callbacks (``on_message_begin``, ``on_header``,
``on_headers_complete``, ``on_body``, ``on_message_complete``), the asyncio ``Protocol`` methods and
``send_400_response`` (called by uvicorn when the parser fails, which is how a refused head stops the
parser); each calls uvicorn's own implementation. Behind the production reverse proxy (Caddy in
``docker-compose.yml``) these are a second line; with ``make dev`` or a direct deployment the first.
"""

from __future__ import annotations

import asyncio
import json
import logging
from dataclasses import dataclass
from typing import Any

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from fotopronta.settings import Settings, get_settings

log = logging.getLogger("fotopronta.api.http_guard")


@dataclass(frozen=True)
class HttpLimits:
    """Per-connection bounds of :class:`GuardedHttpToolsProtocol` (bytes, counts, seconds, bytes/s)."""

    max_head_bytes: int
    max_headers: int
    head_timeout_s: float
    body_grace_s: float
    body_min_rate: float

    @classmethod
    def from_settings(cls, settings: Settings) -> HttpLimits:
        """The ``http_*`` settings (``FOTOPRONTA_HTTP_*``)."""
        return cls(
            max_head_bytes=settings.http_max_head_bytes,
            max_headers=settings.http_max_headers,
            head_timeout_s=settings.http_head_timeout_s,
            body_grace_s=settings.http_body_grace_s,
            body_min_rate=settings.http_body_min_rate,
        )


class _HeadRefused(Exception):
    """Raised inside a parser callback to stop parsing a head that is too large."""


def _plain_response(status: int, reason: str, detail: str, code: str) -> bytes:
    """A complete ``HTTP/1.1`` response with the API's JSON error body and ``Connection: close``."""
    body = json.dumps({"detail": detail, "code": code, "title": "Richiesta non valida"}).encode()
    head = (
        f"HTTP/1.1 {status} {reason}\r\ncontent-type: application/json\r\n"
        f"content-length: {len(body)}\r\nconnection: close\r\n\r\n"
    ).encode("ascii")
    return head + body


HEAD_TOO_LARGE = _plain_response(
    431,
    "Request Header Fields Too Large",
    "Le intestazioni della richiesta sono troppo grandi.",
    "headers_too_large",
)
HEAD_TIMEOUT = _plain_response(
    408, "Request Timeout", "La richiesta è arrivata troppo lentamente: riprova.", "request_timeout"
)


class GuardedHttpToolsProtocol(HttpToolsProtocol):
    """uvicorn's httptools protocol with the head and body bounds of the module docstring."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.limits = HttpLimits.from_settings(get_settings())
        self._in_head = False
        self._head_bytes = 0
        self._header_count = 0
        self._refused = False
        self._head_timer: asyncio.TimerHandle | None = None
        self._in_body = False
        self._body_start = 0.0
        self._body_bytes = 0
        self._body_timer: asyncio.TimerHandle | None = None

    # --- asyncio.Protocol ---------------------------------------------------------------------------
    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        """As uvicorn, and the head deadline starts: the first request must arrive in time."""
        super().connection_made(transport)
        self._arm_head_timer()

    def data_received(self, data: bytes) -> None:
        """Parse as uvicorn does, then refuse a head that has grown past ``max_head_bytes``."""
        super().data_received(data)
        if self._in_head and not self._refused:
            self._head_bytes += len(data)
            if self._head_bytes > self.limits.max_head_bytes:
                self._refuse_head()

    def connection_lost(self, exc: Exception | None) -> None:
        """Stop this connection's timers, then as uvicorn."""
        self._cancel_head_timer()
        self._cancel_body_timer()
        self._in_body = False
        super().connection_lost(exc)

    # --- parser callbacks -----------------------------------------------------------------------------
    def on_message_begin(self) -> None:
        """A request's first byte: count its head from here (the deadline may already run)."""
        super().on_message_begin()
        self._in_head, self._head_bytes, self._header_count = True, 0, 0
        self._arm_head_timer()

    def on_header(self, name: bytes, value: bytes) -> None:
        """One header; past ``max_headers`` the head is refused (``431``)."""
        self._header_count += 1
        if self._header_count > self.limits.max_headers:
            self._refused = True
            raise _HeadRefused
        super().on_header(name, value)

    def on_headers_complete(self) -> None:
        """The head is in: its deadline stops and the body's rate is watched until the message ends."""
        self._in_head = False
        self._cancel_head_timer()
        self._in_body, self._body_bytes = True, 0
        self._body_start = self.loop.time()
        super().on_headers_complete()
        if self._in_body:
            self._schedule_body_check()

    def on_body(self, body: bytes) -> None:
        """Count the body's bytes, then as uvicorn."""
        self._body_bytes += len(body)
        super().on_body(body)

    def on_message_complete(self) -> None:
        """The whole request arrived: nothing more to watch until the next one."""
        self._in_body = False
        self._cancel_body_timer()
        super().on_message_complete()

    def send_400_response(self, msg: str) -> None:
        """uvicorn's answer to a parser error; ``431`` when the error is a refused head."""
        if self._refused:
            self._close_with(HEAD_TOO_LARGE)
            return
        super().send_400_response(msg)

    # --- head -------------------------------------------------------------------------------------------
    def _arm_head_timer(self) -> None:
        if self._head_timer is None:
            self._head_timer = self.loop.call_later(self.limits.head_timeout_s, self._head_timed_out)

    def _cancel_head_timer(self) -> None:
        if self._head_timer is not None:
            self._head_timer.cancel()
            self._head_timer = None

    def _head_timed_out(self) -> None:
        self._head_timer = None
        if self.transport.is_closing():
            return
        if self._in_head:
            log.warning(
                "request head from %s not complete in %s s: closed", self.client, self.limits.head_timeout_s
            )
            self._close_with(HEAD_TIMEOUT)
        elif self.cycle is None:  # opened and never sent a request
            self.transport.close()

    def _refuse_head(self) -> None:
        self._refused = True
        log.warning("request head from %s over %d bytes: refused", self.client, self.limits.max_head_bytes)
        self._close_with(HEAD_TOO_LARGE)

    def _close_with(self, response: bytes) -> None:
        self._cancel_head_timer()
        if not self.transport.is_closing():
            self.transport.write(response)
            self.transport.close()

    # --- body ---------------------------------------------------------------------------------------------
    def _schedule_body_check(self) -> None:
        """Check again when the bytes received so far stop covering the minimum rate."""
        self._cancel_body_timer()
        due = self._body_start + self.limits.body_grace_s + self._body_bytes / self.limits.body_min_rate
        self._body_timer = self.loop.call_at(max(due, self.loop.time() + 0.05), self._check_body)

    def _cancel_body_timer(self) -> None:
        if self._body_timer is not None:
            self._body_timer.cancel()
            self._body_timer = None

    def _check_body(self) -> None:
        self._body_timer = None
        if not self._in_body or self.transport.is_closing():
            return
        now = self.loop.time()
        if self.flow.read_paused:  # the route has not read what came: not the client's delay
            self._body_start, self._body_bytes = now, 0
        elif self._body_bytes < self.limits.body_min_rate * (
            now - self._body_start - self.limits.body_grace_s
        ):
            log.warning(
                "request body from %s under %s bytes/s (%d bytes in %.0f s): closed",
                self.client,
                self.limits.body_min_rate,
                self._body_bytes,
                now - self._body_start,
            )
            self._in_body = False
            self.transport.close()
            return
        self._schedule_body_check()

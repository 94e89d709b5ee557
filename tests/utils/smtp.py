"""A real SMTP server for tests: ``aiosmtpd``'s ``Controller`` on 127.0.0.1 and a free port, keeping
every message it receives, so the mailer's SMTP backend is exercised end to end."""

from __future__ import annotations

import email
import email.policy
import threading
import time
from dataclasses import dataclass, field
from email.message import EmailMessage
from typing import Any

from aiosmtpd.controller import Controller

from infra.ports import free_port


@dataclass
class ReceivedMail:
    """One delivered message: envelope sender and recipients, and the parsed message."""

    mail_from: str
    rcpt_tos: list[str]
    message: EmailMessage

    @property
    def subject(self) -> str:
        """The decoded ``Subject`` header."""
        return str(self.message["Subject"])

    @property
    def text(self) -> str:
        """The plain-text body."""
        body = self.message.get_body(("plain",))
        return body.get_content() if body is not None else ""


@dataclass
class _Handler:
    messages: list[ReceivedMail] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:  # noqa: N802 (aiosmtpd API)
        parsed = email.message_from_bytes(envelope.content, policy=email.policy.default)
        assert isinstance(parsed, EmailMessage)
        with self.lock:
            self.messages.append(ReceivedMail(envelope.mail_from, list(envelope.rcpt_tos), parsed))
        return "250 Message accepted for delivery"


class SmtpServer:
    """Start/stop an SMTP server on ``127.0.0.1:{port}``; ``messages`` holds what it received."""

    def __init__(self) -> None:
        self.port = free_port()
        self._handler = _Handler()
        self._controller = Controller(self._handler, hostname="127.0.0.1", port=self.port)

    def start(self) -> SmtpServer:
        """Start the server thread."""
        self._controller.start()
        return self

    def stop(self) -> None:
        """Stop the server thread."""
        self._controller.stop()

    @property
    def messages(self) -> list[ReceivedMail]:
        """A copy of the messages received so far, oldest first."""
        with self._handler.lock:
            return list(self._handler.messages)

    def wait_for(self, to: str, *, count: int = 1, timeout_s: float = 10) -> list[ReceivedMail]:
        """Messages for ``to`` once at least ``count`` arrived (oldest first).

        Raises:
            AssertionError: fewer arrived within ``timeout_s`` seconds.
        """
        deadline = time.monotonic() + timeout_s
        while True:
            found = [m for m in self.messages if to in m.rcpt_tos]
            if len(found) >= count:
                return found
            assert time.monotonic() < deadline, f"no e-mail for {to}: {[m.rcpt_tos for m in self.messages]}"
            time.sleep(0.05)

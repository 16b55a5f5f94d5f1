"""An SMTP server on 127.0.0.1 collecting what the service sends (aiosmtpd), and the `inbox` fixture that
runs one for a test on SMTP_URL (registered for every package by tests/conftest.py)."""

from __future__ import annotations

import email
import threading
from collections.abc import Iterator
from email import policy
from email.message import EmailMessage
from typing import cast

import pytest
from aiosmtpd.controller import Controller
from aiosmtpd.smtp import SMTP, Envelope, Session

from tests.support.ports import free_port

# Chosen once, so `@pytest.mark.settings(smtp_url=SMTP_URL)` can name it.
SMTP_PORT = free_port()
SMTP_URL = f"smtp://127.0.0.1:{SMTP_PORT}"


class Inbox:
    """An SMTP server collecting what arrives; stop() and start() simulate an outage on the same port."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.envelopes: list[Envelope] = []
        self._lock = threading.Lock()
        self._controller: Controller | None = None

    async def handle_DATA(self, _server: SMTP, _session: Session, envelope: Envelope) -> str:
        with self._lock:
            self.envelopes.append(envelope)
        return "250 Message accepted"

    def start(self) -> None:
        self._controller = Controller(self, hostname="127.0.0.1", port=self.port)
        self._controller.start()

    def stop(self) -> None:
        if self._controller is not None:
            self._controller.stop()
            self._controller = None

    @property
    def messages(self) -> list[EmailMessage]:
        with self._lock:
            contents = [envelope.content for envelope in self.envelopes]
        return [email.message_from_bytes(cast(bytes, raw), policy=policy.default) for raw in contents]

    def to(self, address: str) -> list[EmailMessage]:
        return [message for message in self.messages if message["To"] == address]


@pytest.fixture
def inbox() -> Iterator[Inbox]:
    server = Inbox(SMTP_PORT)
    server.start()
    yield server
    server.stop()

"""The SMTP server the notification tests talk to: aiosmtpd on 127.0.0.1 (the push gateway: gorush.py)."""

from __future__ import annotations

import email
import socket
import threading
from email import policy
from email.message import EmailMessage
from typing import cast

from aiosmtpd.controller import Controller
from aiosmtpd.smtp import SMTP, Envelope, Session


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


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
        return [
            cast(EmailMessage, email.message_from_bytes(cast(bytes, raw), policy=policy.default))
            for raw in contents
        ]

    def to(self, address: str) -> list[EmailMessage]:
        return [message for message in self.messages if message["To"] == address]

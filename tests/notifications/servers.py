"""Real servers the notification tests talk to: an aiosmtpd SMTP server and a gorush-compatible push
gateway, both on 127.0.0.1."""

from __future__ import annotations

import email
import json
import socket
import threading
from email import policy
from email.message import EmailMessage
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, cast

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


class Gorush:
    """Answers like gorush in sync mode: tokens starting with `dead-` fail with NotRegistered."""

    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []
        gateway = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                gateway.requests.append({"path": self.path, "body": body})
                logs = [
                    {"type": "failed-push", "platform": "android", "token": token, "error": "NotRegistered"}
                    for notification in body["notifications"]
                    for token in notification["tokens"]
                    if token.startswith("dead-")
                ]
                answer = json.dumps({"counts": len(body["notifications"]), "logs": logs, "success": "ok"})
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(answer)))
                self.end_headers()
                self.wfile.write(answer.encode())

            def log_message(self, *_args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self._thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()

"""An ntfy server on 127.0.0.1 (a real HTTP server in a thread) speaking ntfy's publish API
(docs.ntfy.sh/publish): `PUT`/`POST /<topic>` with the message as the body and the title in `X-Title`
(or `Title`, `ti`, `t`), and `POST /` with a JSON body `{"topic", "message", "title", ...}` ("publish as
JSON"). Topics are 1 to 64 letters, digits, `_` or `-`; anything else is ntfy's 400 `{"code": 40010, ...}`.
A published message is answered 200 with its message object, as ntfy does. `fail_next` makes the next
publishes answer 500 (ntfy's `{"code": 50001, ...}`), to prove retries."""

from __future__ import annotations

import json
import re
import secrets
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from tests.support.threaded_http import serving

_TOPIC = re.compile(r"^[-_A-Za-z0-9]{1,64}$")
_TITLE_HEADERS = ("x-title", "title", "ti", "t")


@dataclass
class Published:
    topic: str
    title: str | None
    message: str


@dataclass
class Ntfy:
    server: ThreadingHTTPServer
    published: list[Published] = field(default_factory=list)
    fail_next: int = 0
    attempts: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def host(self) -> str:
        return f"127.0.0.1:{self.server.server_address[1]}"

    def on(self, topic: str) -> list[Published]:
        with self.lock:
            return [item for item in self.published if item.topic == topic]


def _parse(path: str, headers: dict[str, str], body: bytes) -> Published | None:
    """The message a publish request carries (None: not one ntfy accepts)."""
    topic = path.split("?", 1)[0].strip("/")
    if topic == "":  # publish as JSON
        try:
            data = json.loads(body)
        except ValueError:
            return None
        if not isinstance(data, dict) or not isinstance(data.get("topic"), str):
            return None
        return Published(data["topic"], data.get("title"), str(data.get("message") or "triggered"))
    title = next((headers[name] for name in _TITLE_HEADERS if name in headers), None)
    return Published(topic, title, body.decode() or "triggered")


def _handler(ntfy: Ntfy) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
            headers = {key.lower(): value for key, value in self.headers.items()}
            published = _parse(self.path, headers, body)
            with ntfy.lock:
                ntfy.attempts += 1
                if published is None or not _TOPIC.match(published.topic):
                    return self._json(
                        400, {"code": 40010, "http": 400, "error": "invalid request: topic invalid"}
                    )
                if ntfy.fail_next > 0:
                    ntfy.fail_next -= 1
                    return self._json(500, {"code": 50001, "http": 500, "error": "internal server error"})
                ntfy.published.append(published)
            now = int(time.time())
            self._json(
                200,
                {
                    "id": secrets.token_hex(6),
                    "time": now,
                    "expires": now + 43200,
                    "event": "message",
                    "topic": published.topic,
                    "title": published.title,
                    "message": published.message,
                },
            )

        do_PUT = do_POST

        def _json(self, status: int, data: dict[str, Any]) -> None:
            encoded = json.dumps(data).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(encoded)))
            self.end_headers()
            self.wfile.write(encoded)

        def log_message(self, format: str, *args: Any) -> None:
            pass

    return Handler


@pytest.fixture
def ntfy() -> Iterator[Ntfy]:
    server = Ntfy(ThreadingHTTPServer(("127.0.0.1", 0), BaseHTTPRequestHandler))
    with serving(server.server, _handler(server)):
        yield server

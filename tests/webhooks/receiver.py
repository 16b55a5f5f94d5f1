"""A webhook receiver on 127.0.0.1 (a real HTTP server in a thread), its behaviour chosen by path:
- `/ok...`: 200;
- `/flaky/N...`: 503 (with `Retry-After: 7`) to the first N requests on that path, then 200;
- `/hang...`: reads the request and never answers (until the server stops);
- `/redirect...`: 302 to `/ok`;
- `/big...`: 500 with a body of 4,096 `x`.
Every request is recorded (path, headers, body, and the TLS server name asked for when serving TLS)."""

from __future__ import annotations

import ssl
import threading
from collections import Counter
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


@dataclass
class Received:
    path: str
    headers: dict[str, str]
    body: bytes


@dataclass
class Receiver:
    server: ThreadingHTTPServer
    scheme: str = "http"
    received: list[Received] = field(default_factory=list)
    server_names: list[str | None] = field(default_factory=list)
    release: threading.Event = field(default_factory=threading.Event)
    _seen: Counter[str] = field(default_factory=Counter)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def port(self) -> int:
        return int(self.server.server_address[1])

    def url(self, path: str, host: str = "127.0.0.1") -> str:
        return f"{self.scheme}://{host}:{self.port}{path}"

    def at(self, path: str) -> list[Received]:
        with self._lock:
            return [item for item in self.received if item.path == path]

    def record(self, item: Received) -> int:
        with self._lock:
            self.received.append(item)
            self._seen[item.path] += 1
            return self._seen[item.path]

    def stop(self) -> None:
        self.release.set()
        self.server.shutdown()
        self.server.server_close()


def _handler(receiver: Receiver) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            count = receiver.record(
                Received(self.path, {k.lower(): v for k, v in self.headers.items()}, body)
            )
            if self.path.startswith("/hang"):
                receiver.release.wait()
                return
            if self.path.startswith("/flaky/") and count <= int(self.path.split("/")[2]):
                self._answer(503, b"down for maintenance", retry_after="7")
            elif self.path.startswith("/redirect"):
                self._answer(302, b"", location="/ok")
            elif self.path.startswith("/big"):
                self._answer(500, b"x" * 4096)
            else:
                self._answer(200, b"ok")

        def _answer(
            self, status: int, text: bytes, location: str | None = None, retry_after: str | None = None
        ) -> None:
            self.send_response(status)
            if location:
                self.send_header("Location", location)
            if retry_after:
                self.send_header("Retry-After", retry_after)
            self.send_header("Content-Length", str(len(text)))
            self.end_headers()
            self.wfile.write(text)

        def log_message(self, *_args: object) -> None:
            pass

    return Handler


def start_receiver(tls: ssl.SSLContext | None = None) -> Receiver:
    server = ThreadingHTTPServer(("127.0.0.1", 0), BaseHTTPRequestHandler)
    server.daemon_threads = True
    receiver = Receiver(server, scheme="https" if tls else "http")
    server.RequestHandlerClass = _handler(receiver)
    if tls is not None:
        tls.sni_callback = lambda _socket, name, _context: receiver.server_names.append(name)
        server.socket = tls.wrap_socket(server.socket, server_side=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return receiver

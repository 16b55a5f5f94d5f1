"""A stand-in HTTP service on 127.0.0.1 for the length of a test: a threaded standard-library server whose
handler class is built for the state object that owns the server."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


@contextmanager
def serving(server: ThreadingHTTPServer, handler: type[BaseHTTPRequestHandler]) -> Iterator[None]:
    """Serve `server` with `handler` in a daemon thread until the block ends, then close it."""
    server.RequestHandlerClass = handler
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield
    finally:
        server.shutdown()
        server.server_close()

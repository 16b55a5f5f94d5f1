"""A server on 127.0.0.1 answering like Resend's receiving API, as its documentation describes it.

`GET /emails/receiving/{email_id}` (Bearer API key) answers the received email: `object: "email"`, `id`,
`to`, `from`, `subject`, `message_id`, `html`, `text`, `headers`, `attachments` (metadata: `id`,
`filename`, `content_type`, `content_disposition`, `content_id`, `size`). `GET
/emails/receiving/{email_id}/attachments/{id}` answers `object: "attachment"` with a pre-signed
`download_url` and `expires_at`; the download itself needs no key. A missing key is 401, a wrong one 403,
an unknown email 404 (`{"statusCode": 404, "name": "not_found", ...}`).

Given a TLS context, the files are served over https on a port of their own (`files_url`, host
`localhost`), as Resend's pre-signed links are; `download_base` points the links anywhere else. An answer
named in `oversized` ("email", "attachment" or "file") is a flood of `FLOOD` bytes, chunked (no
Content-Length) or under a lying Content-Length; `sent` counts what the client took before hanging up.
"""

from __future__ import annotations

import contextlib
import json
import ssl
import threading
import time
import uuid
from datetime import timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Literal

import trustme

from app.core.clock import utc_now
from tests.support.ports import free_port

API_KEY = "re_test_key_123"
METADATA = ("id", "filename", "content_type", "content_disposition", "content_id")  # what an event lists
FLOOD = 40 * 1024 * 1024  # bytes of an oversized answer, far more than the socket buffers hold
LYING_LENGTH = 1000  # what a lying Content-Length declares
Flood = Literal["chunked", "lying"]


class ResendApi:
    def __init__(self, port: int | None = None, files_tls: ssl.SSLContext | None = None) -> None:
        self.port = port or free_port()
        self.files_tls = files_tls
        self.files_port = free_port() if files_tls else self.port
        self.download_base: str | None = None  # where download_urls point, when not at `files_url`
        self.oversized: dict[str, Flood] = {}  # "email" | "attachment" | "file" -> how it floods
        self.sent = 0  # bytes of floods written before the client hung up
        self.emails: dict[str, dict[str, Any]] = {}
        self.files: dict[str, bytes] = {}  # attachment id -> bytes
        self.fail_with: int | None = None  # answer every API call with this status
        self.delay = 0.0  # seconds before answering
        self.requests: list[tuple[str, str | None]] = []  # (path, Authorization header)
        self._servers: list[ThreadingHTTPServer] = []

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def files_url(self) -> str:
        return f"https://localhost:{self.files_port}" if self.files_tls else self.url

    def add_email(
        self,
        *,
        email_id: str | None = None,
        sender: str,
        to: list[str],
        text: str,
        html: str = "",
        headers: dict[str, str] | None = None,
        files: list[tuple[str, str, bytes]] | None = None,
    ) -> str:
        """Store a received email; answers its id. `files` are (filename, content type, bytes)."""
        email_id = email_id or str(uuid.uuid4())
        attachments = []
        for filename, content_type, data in files or []:
            attachment_id = str(uuid.uuid4())
            self.files[attachment_id] = data
            attachments.append({
                "id": attachment_id, "filename": filename, "content_type": content_type,
                "content_disposition": "attachment", "content_id": None, "size": len(data),
            })  # fmt: skip
        self.emails[email_id] = {
            "object": "email", "id": email_id, "to": to, "from": sender,
            "created_at": utc_now().isoformat(), "subject": "Re: New message on your claim",
            "message_id": f"<{uuid.uuid4().hex}@mail.example.com>",
            "bcc": [], "cc": [], "reply_to": [], "html": html or None, "text": text,
            "headers": headers or {"mime-version": "1.0"}, "attachments": attachments,
        }  # fmt: skip
        return email_id

    def event(self, email_id: str) -> dict[str, Any]:
        """The `email.received` webhook event Resend sends for a stored email: metadata only."""
        email = self.emails[email_id]
        return {
            "type": "email.received",
            "created_at": utc_now().isoformat(),  # fresh: an older event than the window is stale
            "data": {
                "email_id": email_id, "created_at": email["created_at"], "from": email["from"],
                "to": email["to"], "bcc": [], "cc": [], "message_id": email["message_id"],
                "subject": email["subject"],
                "attachments": [{key: item[key] for key in METADATA} for item in email["attachments"]],
            },
        }  # fmt: skip

    def start(self) -> None:
        api = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"  # chunked answers

            def log_message(self, *_args: object) -> None:
                pass

            def _answer(self, status: int, body: object) -> None:
                data = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                with contextlib.suppress(BrokenPipeError):  # the client gave up waiting (the timeout test)
                    self.wfile.write(data)

            def _flood(self, how: Flood) -> None:
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                if how == "chunked":
                    self.send_header("Transfer-Encoding", "chunked")
                else:
                    self.send_header("Content-Length", str(LYING_LENGTH))
                self.end_headers()
                chunk = b'{"text": "' + b"a" * 65526  # a JSON text that never ends
                with contextlib.suppress(BrokenPipeError, ConnectionResetError):  # the client hung up
                    while api.sent < FLOOD:
                        self.wfile.write(b"%x\r\n%s\r\n" % (len(chunk), chunk) if how == "chunked" else chunk)
                        api.sent += len(chunk)
                        chunk = b"a" * 65536
                    self.wfile.write(b"0\r\n\r\n" if how == "chunked" else b"")
                self.close_connection = True

            def do_GET(self) -> None:
                api.requests.append((self.path, self.headers.get("Authorization")))
                time.sleep(api.delay)
                parts = self.path.strip("/").split("/")
                if parts[0] == "files" and "file" in api.oversized:
                    self._flood(api.oversized["file"])
                    return
                if parts[0] == "files" and len(parts) == 2 and parts[1] in api.files:
                    data = api.files[parts[1]]
                    self.send_response(200)
                    self.send_header("Content-Type", "application/octet-stream")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                    return
                if api.fail_with is not None:
                    self._answer(api.fail_with, {"statusCode": api.fail_with, "name": "application_error"})
                    return
                authorization = self.headers.get("Authorization")
                if not authorization:
                    self._answer(
                        401, {"statusCode": 401, "name": "missing_api_key", "message": "Missing API key"}
                    )
                    return
                if authorization != f"Bearer {API_KEY}":
                    self._answer(
                        403, {"statusCode": 403, "name": "invalid_api_key", "message": "API key is invalid"}
                    )
                    return
                if parts[:2] != ["emails", "receiving"] or len(parts) not in (3, 5):
                    self._answer(404, {"statusCode": 404, "name": "not_found", "message": "Not found"})
                    return
                email = api.emails.get(parts[2])
                if email is None:
                    self._answer(404, {"statusCode": 404, "name": "not_found", "message": "Email not found"})
                    return
                if len(parts) == 3:
                    if "email" in api.oversized:
                        self._flood(api.oversized["email"])
                        return
                    self._answer(200, email)
                    return
                found = [item for item in email["attachments"] if item["id"] == parts[4]]
                if parts[3] != "attachments" or not found:
                    self._answer(
                        404, {"statusCode": 404, "name": "not_found", "message": "Attachment not found"}
                    )
                    return
                if "attachment" in api.oversized:
                    self._flood(api.oversized["attachment"])
                    return
                base = api.download_base or api.files_url
                self._answer(200, {
                    "object": "attachment", **found[0], "download_url": f"{base}/files/{parts[4]}",
                    "expires_at": (utc_now() + timedelta(hours=1)).isoformat(),
                })  # fmt: skip

        self._servers = [ThreadingHTTPServer(("127.0.0.1", self.port), Handler)]
        if self.files_tls is not None:
            files = ThreadingHTTPServer(("127.0.0.1", self.files_port), Handler)
            files.socket = self.files_tls.wrap_socket(files.socket, server_side=True)
            self._servers.append(files)
        for server in self._servers:
            threading.Thread(target=server.serve_forever, daemon=True).start()

    def stop(self) -> None:
        for server in self._servers:
            server.shutdown()
            server.server_close()
        self._servers = []


def tls_contexts() -> tuple[ssl.SSLContext, ssl.SSLContext]:
    """(server, client): a certificate for `localhost` from a test authority, and a client that trusts it."""
    authority = trustme.CA()
    server = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    authority.issue_cert("localhost").configure_cert(server)
    client = ssl.create_default_context()
    authority.configure_trust(client)
    return server, client

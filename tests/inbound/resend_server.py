"""A server on 127.0.0.1 answering like Resend's receiving API, as its documentation describes it.

`GET /emails/receiving/{email_id}` (Bearer API key) answers the received email: `object: "email"`, `id`,
`to`, `from`, `subject`, `message_id`, `html`, `text`, `headers`, `attachments` (metadata: `id`,
`filename`, `content_type`, `content_disposition`, `content_id`, `size`). `GET
/emails/receiving/{email_id}/attachments/{id}` answers `object: "attachment"` with a pre-signed
`download_url` and `expires_at`; the download itself needs no key. A missing key is 401, a wrong one 403,
an unknown email 404 (`{"statusCode": 404, "name": "not_found", ...}`).
"""

from __future__ import annotations

import contextlib
import json
import threading
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from tests.notifications.servers import free_port

API_KEY = "re_test_key_123"
METADATA = ("id", "filename", "content_type", "content_disposition", "content_id")  # what an event lists


class ResendApi:
    def __init__(self, port: int | None = None) -> None:
        self.port = port or free_port()
        self.emails: dict[str, dict[str, Any]] = {}
        self.files: dict[str, bytes] = {}  # attachment id -> bytes
        self.fail_with: int | None = None  # answer every API call with this status
        self.delay = 0.0  # seconds before answering
        self.requests: list[tuple[str, str | None]] = []  # (path, Authorization header)
        self._server: ThreadingHTTPServer | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def add_email(
        self,
        *,
        sender: str,
        to: list[str],
        text: str,
        html: str = "",
        headers: dict[str, str] | None = None,
        files: list[tuple[str, str, bytes]] | None = None,
    ) -> str:
        """Store a received email; answers its id. `files` are (filename, content type, bytes)."""
        email_id = str(uuid.uuid4())
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
            "created_at": "2026-11-24T10:00:00Z", "subject": "Re: New message on your claim",
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
            "created_at": "2026-11-24T10:00:01.000Z",
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

            def do_GET(self) -> None:
                api.requests.append((self.path, self.headers.get("Authorization")))
                time.sleep(api.delay)
                parts = self.path.strip("/").split("/")
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
                    self._answer(200, email)
                    return
                found = [item for item in email["attachments"] if item["id"] == parts[4]]
                if parts[3] != "attachments" or not found:
                    self._answer(
                        404, {"statusCode": 404, "name": "not_found", "message": "Attachment not found"}
                    )
                    return
                self._answer(200, {
                    "object": "attachment", **found[0], "download_url": f"{api.url}/files/{parts[4]}",
                    "expires_at": "2026-11-24T11:00:00.000Z",
                })  # fmt: skip

        self._server = ThreadingHTTPServer(("127.0.0.1", self.port), Handler)
        threading.Thread(target=self._server.serve_forever, daemon=True).start()

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

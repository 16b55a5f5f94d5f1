"""Pure ASGI middleware (BaseHTTPMiddleware would buffer and break streaming)."""

from __future__ import annotations

import re
import uuid

from starlette.exceptions import HTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.core.handlers import render
from app.errors import PayloadTooLarge

_SAFE_REQUEST_ID = re.compile(r"^[A-Za-z0-9._-]{1,64}$")


def request_id_of(scope: Scope) -> str:
    """The caller's X-Request-ID if sane, else a new id."""
    given = _header(scope, b"x-request-id").decode("latin-1")
    return given if _SAFE_REQUEST_ID.match(given) else uuid.uuid4().hex


class RequestIdMiddleware:
    """Gives each request an id (the caller's X-Request-ID if sane), echoed in the response and in logs."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        request_id = request_id_of(scope)
        scope.setdefault("state", {})["request_id"] = request_id

        async def send_with_id(message: Message) -> None:
            if message["type"] == "http.response.start":
                message.setdefault("headers", []).append((b"x-request-id", request_id.encode()))
            await send(message)

        await self.app(scope, receive, send_with_id)


class BodySizeLimitMiddleware:
    """Refuses bodies over the limit with 413, by Content-Length up front and by counting while streaming."""

    def __init__(self, app: ASGIApp, max_body_size: int) -> None:
        self.app = app
        self.max_body_size = max_body_size

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = _header(scope, b"content-length")
        if declared.isdigit() and int(declared) > self.max_body_size:
            await self._refuse(scope, receive, send)
            return
        if not declared and not _header(scope, b"transfer-encoding"):
            # Neither header: the request has no body (RFC 9112, 6.3), so there is nothing to count.
            await self.app(scope, receive, send)
            return

        received = 0
        response_started = False

        async def counting_receive() -> Message:
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > self.max_body_size:
                    raise _BodyTooLarge()
            return message

        async def tracking_send(message: Message) -> None:
            nonlocal response_started
            if message["type"] == "http.response.start":
                response_started = True
            await send(message)

        try:
            await self.app(scope, counting_receive, tracking_send)
        except _BodyTooLarge:
            if response_started:
                raise
            await self._refuse(scope, receive, send)

    async def _refuse(self, scope: Scope, receive: Receive, send: Send) -> None:
        limit_mb = self.max_body_size / (1024 * 1024)
        error = PayloadTooLarge(
            f"The request body is larger than {limit_mb:g} MB.", details={"maxBytes": self.max_body_size}
        )
        await render(error)(scope, receive, send)


def _header(scope: Scope, name: bytes) -> bytes:
    """One request header's value (b"" when absent), without copying them all into a dict."""
    for key, value in scope["headers"]:
        if key == name:
            return value
    return b""


class _BodyTooLarge(HTTPException):
    """An HTTPException so that body parsing re-raises it as is and the handler renders a 413."""

    def __init__(self) -> None:
        super().__init__(status_code=413)

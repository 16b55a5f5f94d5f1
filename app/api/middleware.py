"""Pure ASGI middleware (BaseHTTPMiddleware would buffer and break streaming)."""

from __future__ import annotations

import re
import time
import uuid

from starlette.exceptions import HTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.api.error_handlers import render
from app.api.json_limits import holds_more_values_than, nested_deeper_than
from app.core.numbers import digits_value, max_digits_of
from app.errors import PayloadTooLarge, ValidationFailed
from app.observability import request_context
from app.observability.metrics import route_template, series

_SAFE_REQUEST_ID = re.compile(r"^[A-Za-z0-9._-]{1,64}$")


def request_id_of(scope: Scope) -> str:
    """The caller's X-Request-ID if sane, else a new id."""
    given = _header(scope, b"x-request-id").decode("latin-1")
    return given if _SAFE_REQUEST_ID.match(given) else uuid.uuid4().hex


class RequestIdMiddleware:
    """Gives each request an id (the caller's X-Request-ID if sane), echoed in the response and bound to
    the request's context for its log lines and the outbox rows it writes; counts the request and its
    duration by route template and status (the outermost layer: it sees every answer)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app
        self.series = series()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()
        request_id = request_id_of(scope)
        scope.setdefault("state", {})["request_id"] = request_id
        status = 500  # unless an answer starts

        async def send_with_id(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
                message.setdefault("headers", []).append((b"x-request-id", request_id.encode()))
            await send(message)

        bound = request_context.bind(request_id)
        try:
            await self.app(scope, receive, send_with_id)
        finally:
            request_context.unbind(bound)
            # The route's template, not the path: one series per route, whatever ids callers send.
            route = route_template(scope)
            self.series.observe_request(scope["method"], route, status, time.perf_counter() - started)


def _over(declared: bytes, limit: int) -> bool:
    """A declared size (ASCII digits) over `limit`, measured by its length before it is converted."""
    size = digits_value(declared.lstrip(b"0").decode() or "0", max_digits_of(limit))
    return size is None or size > limit


class BodySizeLimitMiddleware:
    """Refuses bodies over the limit with 413, by Content-Length up front and by counting while streaming;
    and, before any route runs, a NUL in the path or the query (no database column can store one)."""

    def __init__(self, app: ASGIApp, max_body_size: int) -> None:
        self.app = app
        self.max_body_size = max_body_size

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        if "\x00" in scope["path"] or b"%00" in scope["query_string"] or b"\x00" in scope["query_string"]:
            refusal = ValidationFailed("The path or query contains a NUL character.")
            await render(refusal)(scope, receive, send)
            return
        declared = _header(scope, b"content-length")
        if declared.isdigit() and _over(declared, self.max_body_size):
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


class JsonLimitsMiddleware:
    """Refuses a JSON body nested deeper than `max_depth`, or holding more than `max_values` values, with
    400 MALFORMED_JSON before anything parses it (every JSON endpoint, the webhooks that parse their own
    bodies included). Sits inside BodySizeLimitMiddleware, so the body it reads is already within the size
    limit."""

    def __init__(self, app: ASGIApp, max_depth: int, max_values: int) -> None:
        self.app = app
        self.max_depth = max_depth
        self.max_values = max_values

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not _is_json(_header(scope, b"content-type")):
            await self.app(scope, receive, send)
            return
        chunks, more = [], True
        while more:
            message = await receive()
            if message["type"] != "http.request":
                return  # the client left before sending its body: nobody to answer
            chunks.append(message.get("body", b""))
            more = message.get("more_body", False)
        body = b"".join(chunks)
        problem = None
        if nested_deeper_than(body, self.max_depth):
            problem = f"nested deeper than {self.max_depth} levels"
        elif holds_more_values_than(body, self.max_values):
            problem = f"more than {self.max_values} values"
        if problem is not None:
            error = ValidationFailed(
                f"The request body is not valid JSON ({problem}).", code="MALFORMED_JSON"
            )
            await render(error)(scope, receive, send)
            return
        await self.app(scope, _replay(body, receive), send)


def _is_json(content_type: bytes) -> bool:
    media_type = content_type.split(b";", 1)[0].strip().lower()
    return media_type == b"application/json" or (
        media_type.startswith(b"application/") and media_type.endswith(b"+json")
    )


def _replay(body: bytes, receive: Receive) -> Receive:
    """A receive that hands the app the body already read, then whatever the client sends next."""
    sent = False

    async def replay() -> Message:
        nonlocal sent
        if sent:
            return await receive()
        sent = True
        return {"type": "http.request", "body": body, "more_body": False}

    return replay


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

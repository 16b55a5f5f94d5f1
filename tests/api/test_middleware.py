"""The pure ASGI middleware (app/api/middleware.py): a request id on every answer, bodies over the size limit
refused with 413 (by Content-Length and while streaming), a NUL in the path or the query refused, and JSON
too deep or too wide refused with 400 MALFORMED_JSON before anything parses it."""

from __future__ import annotations

import re
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from starlette.types import Message, Receive, Scope, Send

from app.api.middleware import BodySizeLimitMiddleware, JsonLimitsMiddleware, request_id_of
from tests.factories.users import auth_headers, create_user
from tests.helpers import assert_error


def _scope(
    path: str = "/api/x", query: bytes = b"", headers: list[tuple[bytes, bytes]] | None = None
) -> Scope:
    return {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "POST",
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "root_path": "",
        "query_string": query,
        "headers": headers or [],
        "client": ("127.0.0.1", 5000),
        "server": ("testserver", 80),
    }


class Echo:
    """An app behind the middleware: answers 200 with the body it read, in the chunks it read them."""

    def __init__(self) -> None:
        self.chunks: list[bytes] = []
        self.called = False

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        self.called = True
        more = True
        while more:
            message = await receive()
            self.chunks.append(message.get("body", b""))
            more = message.get("more_body", False)
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"".join(self.chunks)})


async def _run(app: Any, scope: Scope, chunks: list[bytes]) -> list[Message]:
    pending = [
        {"type": "http.request", "body": c, "more_body": i < len(chunks) - 1} for i, c in enumerate(chunks)
    ]
    answers: list[Message] = []

    async def receive() -> Message:
        return pending.pop(0) if pending else {"type": "http.disconnect"}

    async def send(message: Message) -> None:
        answers.append(message)

    await app(scope, receive, send)
    return answers


async def test_every_response_carries_a_request_id(client: httpx.AsyncClient) -> None:
    response = await client.get("/health")
    assert len(response.headers["x-request-id"]) == 32


@pytest.mark.parametrize(
    ("given", "kept"),
    [("req-123", True), ("a.B_9-z", True), ("x" * 64, True), ("x" * 65, False), ("a b", False), ("", False)],
)
def test_a_sane_request_id_is_kept_any_other_replaced(given: str, kept: bool) -> None:
    found = request_id_of(_scope(headers=[(b"x-request-id", given.encode())]))
    assert (found == given) is kept
    if not kept:
        assert re.fullmatch(r"[0-9a-f]{32}", found)


@pytest.mark.settings(max_body_size=1024)
async def test_oversized_body_by_length_and_by_stream(client: httpx.AsyncClient) -> None:
    big = b'{"email": "' + b"a" * 2000 + b'"}'
    assert_error(
        await client.post("/api/login", content=big, headers={"content-type": "application/json"}),
        413,
        "PAYLOAD_TOO_LARGE",
    )

    async def chunks():  # type: ignore[no-untyped-def]
        for _ in range(10):
            yield b" " * 200

    streamed = await client.post("/api/login", content=chunks(), headers={"content-type": "application/json"})
    assert_error(streamed, 413, "PAYLOAD_TOO_LARGE")


@pytest.mark.parametrize("declared", ["9" * 4301, "0" * 5000 + "12"])
async def test_a_content_length_of_thousands_of_digits_is_measured_not_converted(
    app: FastAPI, declared: str
) -> None:
    """int() of 4,301 digits raises past Python's digit limit: that was a 500. Leading zeros count nothing."""
    answers: list[dict[str, object]] = []

    async def receive() -> dict[str, object]:
        return {"type": "http.request", "body": b"{}", "more_body": False}

    async def send(message: dict[str, object]) -> None:
        answers.append(message)

    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "POST",
        "scheme": "http",
        "path": "/api/login",
        "raw_path": b"/api/login",
        "root_path": "",
        "query_string": b"",
        "headers": [(b"content-length", declared.encode()), (b"content-type", b"application/json")],
        "client": ("127.0.0.1", 5000),
        "server": ("testserver", 80),
    }
    await app(scope, receive, send)  # type: ignore[arg-type]
    status = answers[0]["status"]
    assert status == (413 if declared.startswith("9") else 400)


async def test_a_body_within_the_limit_reaches_the_app_whole() -> None:
    inner = Echo()
    headers = [(b"transfer-encoding", b"chunked")]

    answers = await _run(
        BodySizeLimitMiddleware(inner, max_body_size=10), _scope(headers=headers), [b"12345", b"67890"]
    )

    assert (answers[0]["status"], answers[1]["body"]) == (200, b"1234567890")
    too_big = await _run(
        BodySizeLimitMiddleware(Echo(), max_body_size=9), _scope(headers=headers), [b"12345", b"67890"]
    )
    assert too_big[0]["status"] == 413


@pytest.mark.parametrize(
    ("path", "query"), [("/api/a\x00b", b""), ("/api/x", b"q=%00"), ("/api/x", b"q=\x00")]
)
async def test_a_nul_in_the_path_or_query_is_refused_before_the_app(path: str, query: bytes) -> None:
    inner = Echo()

    answers = await _run(BodySizeLimitMiddleware(inner, max_body_size=10), _scope(path, query), [b""])

    assert answers[0]["status"] == 400 and b"VALIDATION_FAILED" in answers[1]["body"]
    assert not inner.called


def _json_operations(app: FastAPI) -> list[tuple[str, str]]:
    """Every operation the OpenAPI document says takes a JSON body, path parameters filled with 1."""
    operations = []
    for path, item in app.openapi()["paths"].items():
        for method, operation in item.items():
            if "application/json" in operation.get("requestBody", {}).get("content", {}):
                operations.append((method.upper(), re.sub(r"\{[^}]+\}", "1", path)))
    return operations


async def test_every_json_endpoint_refuses_65_levels(app: FastAPI, client: httpx.AsyncClient) -> None:
    headers = auth_headers(app, await create_user(app))
    routes = _json_operations(app)
    assert ("POST", "/api/login") in routes and ("PATCH", "/api/me") in routes and len(routes) > 15
    deep = b'{"name":' + b"[" * 65 + b"]" * 65 + b"}"

    for method, path in routes:
        response = await client.request(
            method, path, content=deep, headers={**headers, "Content-Type": "application/json; charset=utf-8"}
        )
        assert_error(response, 400, "MALFORMED_JSON")


async def test_64_levels_are_parsed_and_validated(app: FastAPI, client: httpx.AsyncClient) -> None:
    headers = auth_headers(app, await create_user(app))
    for depth, code in ((64, "VALIDATION_FAILED"), (65, "MALFORMED_JSON"), (900, "MALFORMED_JSON")):
        body = b'{"name":' + b"[" * (depth - 1) + b"]" * (depth - 1) + b"}"
        response = await client.patch(
            "/api/me", content=body, headers={**headers, "Content-Type": "application/json"}
        )
        assert_error(response, 400, code)


async def test_the_inbound_webhook_refuses_deep_json(client: httpx.AsyncClient) -> None:
    response = await client.post(
        "/api/inbound/email", content=b"[" * 5000, headers={"Content-Type": "application/vnd.api+json"}
    )
    assert_error(response, 400, "MALFORMED_JSON")


async def test_fifteen_megabytes_of_brackets_are_refused(app: FastAPI, client: httpx.AsyncClient) -> None:
    body = b"[" * (15 * 1024 * 1024)
    response = await client.post("/api/login", content=body, headers={"Content-Type": "application/json"})
    assert_error(response, 400, "MALFORMED_JSON")


async def test_a_million_keys_are_refused_before_parsing(app: FastAPI, client: httpx.AsyncClient) -> None:
    """Parsed and validated, this body held the event loop for seconds (a million unknown fields)."""
    headers = auth_headers(app, await create_user(app, name="Ann"))
    wide = b"{" + b",".join(b'"k%d":0' % i for i in range(1_000_000)) + b"}"
    wide_array = b"[" + b",".join([b"{}"] * 1_000_000) + b"]"

    for body in (wide, wide_array):
        response = await client.patch(
            "/api/me", content=body, headers={**headers, "Content-Type": "application/json"}
        )
        assert_error(response, 400, "MALFORMED_JSON")
    assert (await client.get("/api/me", headers=headers)).json()["name"] == "Ann"


@pytest.mark.parametrize(
    ("content_type", "checked"),
    [
        (b"application/json", True),
        (b"Application/JSON; charset=utf-8", True),
        (b"application/merge-patch+json", True),
        (b"text/plain", False),
        (b"application/jsonp", False),
        (b"", False),
    ],
)
async def test_only_json_bodies_are_measured_and_then_replayed_whole(
    content_type: bytes, checked: bool
) -> None:
    deep = b"[" * 70 + b"]" * 70
    headers = [(b"content-type", content_type)]

    def middleware() -> JsonLimitsMiddleware:
        return JsonLimitsMiddleware(Echo(), max_depth=64, max_values=10)

    answers = await _run(middleware(), _scope(headers=headers), [deep[:30], deep[30:]])
    fits = await _run(middleware(), _scope(headers=headers), [b"[[1,", b"2]]"])

    assert answers[0]["status"] == (400 if checked else 200)
    assert (fits[0]["status"], fits[1]["body"]) == (200, b"[[1,2]]")

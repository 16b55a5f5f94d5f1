"""Hostile input over every operation of the OpenAPI document (contract 12).

Each operation gets, one piece at a time, what an attacker would send: malformed and oversized bodies,
deep nesting, wrong types, huge and non-finite numbers, NUL and control characters, invalid Unicode,
hostile path and query values, spoofed and bomb files, malformed signatures and tokens. Every answer must
be a success or one of the contract's 4xx with its error body (never a 5xx, never FastAPI's default body),
and a refused request writes nothing. The operations come from the live document, so a new endpoint is
walked as soon as it exists."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from sqlalchemy import func, select

from app.models import Base, DeviceToken
from tests.factories.claims import claim_cast, create_message
from tests.factories.inbound import WEBHOOK_SECRET
from tests.factories.products import create_receipt
from tests.factories.users import auth_headers
from tests.support.images import image_bytes, png_bomb
from tests.support.pdf import PDF_BYTES

pytestmark = [
    pytest.mark.settings(
        webhook_secret=WEBHOOK_SECRET,
        inbound_secret="whsec_" + "MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
        max_body_size=1024 * 1024,
        max_receipt_size=256 * 1024,
        max_profile_picture_size=256 * 1024,
    )
]

REFUSALS = {400, 401, 403, 404, 405, 409, 413, 415, 429}
# Tables a refused request may legitimately write: failed sign-ins are counted, counts follow rows,
# and throttles remember who asked.
WRITTEN_ON_REFUSAL = {"throttle_hits", "row_counts", "cache_invalidations"}
# The hub streams for as long as its client stays; its inputs have their own tests (tests/realtime).
STREAMING = {("get", "/.well-known/mercure")}

HUGE = 10**30
LONG = "x" * 100_000
HOSTILE_VALUES: list[object] = [None, [], {"a": 1}, HUGE, -1, LONG, "\x00", "a\u2028b\x85\x1b"]
# Raw JSON tokens json.loads accepts but no field should: NaN, infinities, an escaped lone surrogate.
HOSTILE_TOKENS = ["NaN", "-Infinity", "1e400", '"\\ud800"', "1" * 5000]
PATH_VALUES = ["abc", "-1", "99999999999999999999999999", "%00", "%ff%fe", "1%0a2", "x" * 3000]
QUERY_VALUES = ["", "abc", "-1", "99999999999999999999999999", "1e400", "\x00", "\u00ff\u2028", "x" * 5000]
HEADER_VALUES = ["", "abc", "-1", "99999999999999999999999999", "v1,", "v1,!!!!", "v2,abc", "x" * 8000]
SIGNATURE_HEADERS = ["webhook-signature", "svix-signature", "resend-signature", "postmark-signature"]
TOKENS = ["", "x", "a.b.c", "eyJhbGciOiJub25lIn0.eyJzdWIiOiIxIn0.", "x" * 10_000, "\x01\x02"]


def _deep(depth: int) -> bytes:
    return b"[" * depth + b"]" * depth


FILES: list[tuple[str, str, bytes, str]] = [
    ("empty", "empty.png", b"", "image/png"),
    ("pdf named png", "receipt.png", PDF_BYTES, "image/png"),
    ("html named png", "picture.png", b"<html><script>alert(1)</script></html>", "image/png"),
    ("truncated png", "cut.png", image_bytes()[:30], "image/png"),
    ("png bomb", "bomb.png", png_bomb(), "image/png"),
    ("oversized", "big.pdf", PDF_BYTES + b"0" * (300 * 1024), "application/pdf"),
    ("hostile name", "../../etc/\x00pass\r\nwd.png", image_bytes(), "image/png"),
    ("executable", "tool.exe", b"MZ\x90\x00" + b"\x00" * 64, "application/octet-stream"),
]


@dataclass
class Attempt:
    label: str
    method: str
    url: str
    headers: dict[str, str] = field(default_factory=dict)
    content: bytes | None = None
    files: dict[str, Any] | None = None
    params: list[tuple[str, str]] = field(default_factory=list)


@dataclass
class Stage:
    """The ids and credentials a walk fills valid path parameters with."""

    values: dict[str, str]
    user_headers: dict[str, str]
    admin_headers: dict[str, str]


def _operations(app: FastAPI) -> list[tuple[str, str, dict[str, Any]]]:
    document = app.openapi()
    return [
        (method, path, operation)
        for path, item in document["paths"].items()
        for method, operation in item.items()
        if method in {"get", "post", "put", "patch", "delete"} and (method, path) not in STREAMING
    ]


def _operation_ids() -> list[str]:
    from app.config import Settings
    from app.main import create_app

    app = create_app(Settings(_env_file=None, env="test", secret_key="k" * 40))  # type: ignore[call-arg]
    return [operation.get("operationId", f"{method} {path}") for method, path, operation in _operations(app)]


def _valid_path_value(path: str, name: str, stage: Stage) -> str:
    if name == "id" and path.startswith("/api/products"):
        return stage.values["product"]
    if name in {"id", "claimId"} and path.startswith("/api/claims"):
        return stage.values["claim"]
    return stage.values.get(name, "1")


def _url(path: str, stage: Stage, hostile: tuple[str, str] | None = None) -> str:
    url = path
    for name in [part[1:-1].split(":")[0] for part in path.split("/") if part.startswith("{")]:
        value = hostile[1] if hostile and hostile[0] == name else _valid_path_value(path, name, stage)
        url = url.replace("{" + name + "}", value)
    return url


def _example_body(operation: dict[str, Any]) -> Any:
    content = (operation.get("requestBody") or {}).get("content", {}).get("application/json", {})
    if "example" in content:
        return content["example"]
    examples = content.get("examples") or {}
    for example in examples.values():
        if isinstance(example, dict) and "value" in example:
            return example["value"]
    return {}


def _json_attempts(method: str, url: str, body: Any) -> Iterator[Attempt]:
    json_type = {"Content-Type": "application/json"}
    raw = [
        ("malformed", b"{"),
        ("invalid utf-8", b'{"name": "\xff\xfe"}'),
        ("nested 100000 deep", _deep(100_000)),
        ("nested 70 deep in a field", b'{"name": ' + _deep(70) + b"}"),
        ("top-level array", b"[]"),
        ("top-level string", b'"x"'),
        ("null", b"null"),
        ("oversized", b'{"name": "' + b"x" * (1024 * 1024 + 10) + b'"}'),
        ("duplicate keys", b'{"a": 1, "a": 2}'),
    ]
    for label, content in raw:
        yield Attempt(label, method, url, json_type, content)
    yield Attempt("text/plain body", method, url, {"Content-Type": "text/plain"}, json.dumps(body).encode())
    if not isinstance(body, dict):
        return
    yield Attempt("unknown field", method, url, json_type, json.dumps({**body, "isAdmin": True}).encode())
    for key in body:
        for value in HOSTILE_VALUES:
            content = json.dumps({**body, key: value}).encode()
            yield Attempt(f"{key}={str(value)[:20]!r}", method, url, json_type, content)
        for token in HOSTILE_TOKENS:
            marked = json.dumps({**body, key: "\x07hostile"})
            content = marked.replace('"\\u0007hostile"', token).encode()
            yield Attempt(f"{key}={token[:20]}", method, url, json_type, content)


def _multipart_attempts(method: str, url: str) -> Iterator[Attempt]:
    for label, name, data, mime in FILES:
        yield Attempt(label, method, url, files={"file": (name, data, mime)})
    yield Attempt("no file field", method, url, files={"other": ("a.png", image_bytes(), "image/png")})
    yield Attempt("json instead of multipart", method, url, {"Content-Type": "application/json"}, b"{}")
    broken = {"Content-Type": "multipart/form-data; boundary=zz"}
    yield Attempt("broken multipart", method, url, broken, b"--zz\r\nbroken")


def attempts(method: str, path: str, operation: dict[str, Any], stage: Stage) -> Iterator[Attempt]:
    url = _url(path, stage)
    for parameter in operation.get("parameters", []):
        name, place = parameter["name"], parameter["in"]
        if place == "path":
            for value in PATH_VALUES:
                yield Attempt(f"path {name}={value[:20]}", method, _url(path, stage, (name, value)))
        elif place == "query":
            for value in QUERY_VALUES:
                yield Attempt(f"query {name}={value[:20]!r}", method, url, params=[(name, value)])
            yield Attempt(f"query {name} twice", method, url, params=[(name, "1"), (name, "abc")])
        elif place == "header":
            for value in HEADER_VALUES:
                yield Attempt(f"header {name}={value[:20]}", method, url, {name: value}, b"{}")
    content_types = (operation.get("requestBody") or {}).get("content", {})
    if "application/json" in content_types:
        yield from _json_attempts(method, url, _example_body(operation))
    if "multipart/form-data" in content_types:
        yield from _multipart_attempts(method, url)
    if path.startswith(("/api/webhook", "/api/inbound")):
        body = json.dumps(_example_body(operation)).encode()
        for header in SIGNATURE_HEADERS:
            for value in HEADER_VALUES:
                yield Attempt(f"{header}={value[:20]}", method, url, {header: value}, body)
        yield Attempt("basic credentials of nobody", method, url, {"Authorization": "Basic Og=="}, body)


def _caller(path: str, stage: Stage) -> dict[str, str]:
    admin_only = path.startswith(("/api/admin", "/api/users")) or path == "/api/messages"
    return stage.admin_headers if admin_only else stage.user_headers


async def _counts(app: FastAPI) -> dict[str, int]:
    tables = [table for table in Base.metadata.sorted_tables if table.name not in WRITTEN_ON_REFUSAL]
    async with app.state.sessionmaker() as session:
        statement = select(*[select(func.count()).select_from(table).scalar_subquery() for table in tables])
        row = (await session.execute(statement)).one()
    return {table.name: count for table, count in zip(tables, row, strict=True)}


async def _stage(app: FastAPI) -> Stage:
    cast = await claim_cast(app)
    message = await create_message(app, cast.claim, cast.customer)
    receipt = await create_receipt(app, cast.product)
    async with app.state.sessionmaker() as session, session.begin():
        session.add(DeviceToken(user_id=cast.customer.id, token="device-token-1", platform="android"))
    values = {
        "product": str(cast.product.id),
        "claim": str(cast.claim.id),
        "user_id": str(cast.customer.id),
        "receiptId": str(receipt.id),
        "messageId": str(message.id),
        "token": "device-token-1",
        "provider": "resend",
        "filename": "picture.png",
    }
    return Stage(values, auth_headers(app, cast.customer), auth_headers(app, cast.admin))


def assert_refused_properly(response: httpx.Response, attempt: Attempt) -> None:
    where = f"{attempt.method.upper()} {attempt.url[:80]} [{attempt.label}]"
    assert response.status_code < 500, f"{where}: {response.status_code} {response.text[:300]}"
    if response.status_code < 400:
        return
    assert response.status_code in REFUSALS, f"{where}: {response.status_code} {response.text[:300]}"
    body = response.json()
    assert set(body) >= {"error", "message", "code"} and "detail" not in body, f"{where}: {body}"


@pytest.mark.parametrize("operation_id", _operation_ids())
async def test_hostile_input_is_refused_with_a_4xx_and_writes_nothing(
    app: FastAPI, client: httpx.AsyncClient, operation_id: str
) -> None:
    stage = await _stage(app)
    [(method, path, operation)] = [
        (m, p, o) for m, p, o in _operations(app) if o.get("operationId", f"{m} {p}") == operation_id
    ]
    before = await _counts(app)
    for attempt in attempts(method, path, operation, stage):
        headers = {**_caller(path, stage), **attempt.headers}
        response = await client.request(
            attempt.method,
            attempt.url,
            headers=headers,
            content=attempt.content,
            files=attempt.files,
            params=attempt.params or None,
        )
        assert_refused_properly(response, attempt)
        if method == "get":
            continue
        after = await _counts(app)
        if response.status_code >= 400:
            assert after == before, (
                f"{attempt.method.upper()} {attempt.url[:80]} [{attempt.label}]: rows written"
            )
        before = after


@pytest.mark.parametrize("token", TOKENS)
async def test_hostile_tokens_are_401(client: httpx.AsyncClient, token: str) -> None:
    response = await client.get("/api/me", headers={"Authorization": f"Bearer {token}"})
    assert response.status_code == 401
    assert response.json()["code"] in {"AUTH_REQUIRED", "AUTH_TOKEN_INVALID"}

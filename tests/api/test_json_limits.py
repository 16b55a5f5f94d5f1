"""JSON nested deeper than 64 levels (contract 12.10) or holding more than 10,000 values is 400
MALFORMED_JSON on every endpoint, found without parsing, so 15 MB of `[` or of `0,` costs next to nothing."""

from __future__ import annotations

import json
import random
import re

import httpx
import pytest
from fastapi import FastAPI

from app.api.json_limits import MAX_JSON_DEPTH, MAX_JSON_VALUES, holds_more_values_than, nested_deeper_than
from tests.factories.users import auth_headers, create_user
from tests.helpers import assert_error


def _depth(value: object) -> int:
    if isinstance(value, dict):
        return 1 + max(map(_depth, value.values()), default=0)
    if isinstance(value, list):
        return 1 + max(map(_depth, value), default=0)
    return 0


def _random_json(rng: random.Random, depth: int) -> object:
    """A document nesting exactly `depth` deep along one branch, with strings full of brackets and
    escapes beside it."""
    if depth == 0:
        return rng.choice(['[[{"', "]]}}", 'a\\"[', "plain", 42, None, True])
    inner = [_random_json(rng, rng.randrange(min(depth, 3))) for _ in range(rng.randrange(3))]
    inner.insert(rng.randrange(len(inner) + 1), _random_json(rng, depth - 1))
    return inner if rng.random() < 0.5 else {f"k{i}]": item for i, item in enumerate(inner)}


@pytest.mark.parametrize("seed", range(40))
def test_finds_the_depth_of_any_document(seed: int) -> None:
    rng = random.Random(seed)
    depth = rng.choice([1, 30, 63, 64, 65, 66, 200])
    document = _random_json(rng, depth)
    assert _depth(document) == depth
    text = json.dumps(document, separators=(",", ":") if seed % 2 else (", ", ": ")).encode()

    assert nested_deeper_than(text, MAX_JSON_DEPTH) is (depth > MAX_JSON_DEPTH)


@pytest.mark.parametrize(
    ("body", "too_deep"),
    [
        (b"[" * 64 + b"]" * 64, False),
        (b"[" * 65 + b"]" * 65, True),
        (b'{"a":' * 65 + b"1" + b"}" * 65, True),
        (b'["' + b"[" * 100 + b'"]', False),  # brackets in a string are text
        (b'["\\"' + b"[" * 100 + b'"]', False),  # ... after an escaped quote too
        (b"]" * 100, False),  # no JSON, but not deep: the parser's to refuse
        (b"[" * 100, True),
    ],
)
def test_counts_only_brackets_outside_strings(body: bytes, too_deep: bool) -> None:
    assert nested_deeper_than(body, MAX_JSON_DEPTH) is too_deep


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


@pytest.mark.parametrize(
    ("body", "too_wide"),
    [
        (b"[" + b",".join([b"0"] * (MAX_JSON_VALUES + 1)) + b"]", False),  # exactly the limit of commas
        (b"[" + b",".join([b"0"] * (MAX_JSON_VALUES + 2)) + b"]", True),
        (b'{"message": "' + b"," * (MAX_JSON_VALUES * 3) + b'"}', False),  # commas in a string are text
        (rb'["\\", "' + b"," * (MAX_JSON_VALUES * 3) + b'"]', False),  # ... after an escaped backslash too
    ],
)
def test_counts_only_values_outside_strings(body: bytes, too_wide: bool) -> None:
    assert holds_more_values_than(body, MAX_JSON_VALUES) is too_wide


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

"""An id in a path or a query is the id's ASCII digits and nothing else: every integer parameter of the
OpenAPI document answers " 1", "+1", "1_0", "1.0" and U+0661 (an Arabic-Indic one) as it answers "abc"."""

from __future__ import annotations

import re
from typing import Any

import httpx
import pytest
from fastapi import FastAPI

from tests.factories.claims import claim_cast
from tests.factories.users import auth_headers, create_admin
from tests.factories.webhooks import register
from tests.helpers import assert_error

pytestmark = pytest.mark.settings(webhook_allow_private=True)  # a webhook on 127.0.0.1 to page

NOT_DIGITS = [" 1", "1 ", "+1", "1_0", "1.0", "\u0661", "abc", "--1", "-"]


def integer_parameters(spec: dict[str, Any]) -> list[tuple[str, str, str, str]]:
    """(method, path, where, name) for every integer path or query parameter, or one that may be null."""
    found = []
    for path, item in spec["paths"].items():
        for method, operation in item.items():
            for parameter in operation.get("parameters", []):
                schema = parameter.get("schema", {})
                types = [schema.get("type")] + [choice.get("type") for choice in schema.get("anyOf", [])]
                if "integer" in types and parameter["name"] not in ("page", "limit"):
                    found.append((method, path, parameter["in"], parameter["name"]))
    return found


def request_with(
    path: str, where: str, name: str, value: str, parents: dict[str, int]
) -> tuple[str, dict[str, str]]:
    """The path with `value` in parameter `name`, a real parent's id in the parameter before it (the
    receipt's product, the message's claim, the delivery's webhook), and the query."""
    query = {name: value} if where == "query" else {}
    parent = next((parents[prefix] for prefix in parents if path.startswith(prefix)), 1)
    url = re.sub(r"\{(\w+)\}", lambda m: value if (where, m[1]) == ("path", name) else str(parent), path)
    return url, query


async def test_every_integer_parameter_takes_ascii_digits_only(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    spec = (await client.get("/api/openapi.json")).json()
    parameters = integer_parameters(spec)
    assert {("path", "claimId"), ("path", "id"), ("query", "senderId")} <= {
        (w, n) for _m, _p, w, n in parameters
    }
    cast = await claim_cast(app)
    webhook = await register(app, client, "http://127.0.0.1:9/hook")
    parents = {
        "/api/products/": cast.product.id,
        "/api/claims/": cast.claim.id,
        "/api/admin/webhooks/": webhook["id"],
    }
    headers = auth_headers(app, cast.admin)

    for method, path, where, name in parameters:
        for value in NOT_DIGITS:
            url, query = request_with(path, where, name, value, parents)
            response = await client.request(method, url, params=query, headers=headers)
            assert response.status_code == 400, (method, path, name, value, response.text)
            assert_error(response, 400, response.json()["code"])


async def test_integer_parameters_keep_their_json_schema_bounds(client: httpx.AsyncClient) -> None:
    spec = (await client.get("/api/openapi.json")).json()
    bounded = 0
    for _path, item in spec["paths"].items():
        for _method, operation in item.items():
            for parameter in operation.get("parameters", []):
                text = repr(parameter["schema"])
                assert "'ge'" not in text and "'le'" not in text, parameter  # not JSON Schema words
                bounded += "'minimum'" in text
    assert bounded >= 10


@pytest.mark.parametrize("value", ["4", "0004"])
async def test_digits_are_an_id(app: FastAPI, client: httpx.AsyncClient, value: str) -> None:
    headers = auth_headers(app, await create_admin(app))

    assert_error(await client.get(f"/api/claims/{value}", headers=headers), 404, "NOT_FOUND")

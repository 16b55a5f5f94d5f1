"""A 405 names every method its path accepts in `Allow` (contract 16.6), on every path of the API."""

from __future__ import annotations

import re

import httpx
from fastapi import FastAPI

from tests.factories.claims import claim_cast
from tests.factories.users import auth_headers
from tests.helpers import assert_error

PROBES = ("OPTIONS", "TRACE", "PATCH", "DELETE", "PUT", "POST")


async def test_options_on_the_products_list_names_get_and_post(client: httpx.AsyncClient) -> None:
    response = await client.options("/api/products")
    assert_error(response, 405, "METHOD_NOT_ALLOWED")
    assert response.headers["allow"] == "GET, POST"


async def test_a_literal_segment_is_not_a_message_id(app: FastAPI, client: httpx.AsyncClient) -> None:
    """`/claims/{id}/messages/read` is its own resource (POST), not the message with id "read"."""
    cast = await claim_cast(app)
    other = await client.get(
        f"/api/claims/{cast.claim.id}/messages/reads", headers=auth_headers(app, cast.customer)
    )
    assert "messageId" in assert_error(other, 400, "VALIDATION_FAILED")["details"]["fields"]
    response = await client.get("/api/claims/1/messages/read")
    assert_error(response, 405, "METHOD_NOT_ALLOWED")
    assert response.headers["allow"] == "POST"
    assert (await client.options("/api/claims/1/messages/read")).headers["allow"] == "POST"
    paths = (await client.get("/api/openapi.json")).json()["paths"]
    assert "/api/claims/{claimId}/messages/{messageId}" in paths  # the convertor stays out of the document


async def test_every_documented_path_lists_all_its_methods_on_405(client: httpx.AsyncClient) -> None:
    paths = (await client.get("/api/openapi.json")).json()["paths"]
    checked = 0
    for template, operations in paths.items():
        documented = {method.upper() for method in operations}
        path = re.sub(r"\{[^}]+\}", "1", template)
        probe = next(method for method in PROBES if method not in documented)
        response = await client.request(probe, path)
        assert response.status_code == 405, (probe, path, response.status_code)
        allowed = {method.strip() for method in response.headers["allow"].split(",")}
        assert allowed == documented, (path, documented, allowed)
        checked += 1
    assert checked > 20

"""A 405 names every method its path accepts in `Allow` (contract 16.6), on every path of the API."""

from __future__ import annotations

import re

import httpx

from tests.helpers import assert_error

PROBES = ("OPTIONS", "TRACE", "PATCH", "DELETE", "PUT", "POST")


async def test_options_on_the_products_list_names_get_and_post(client: httpx.AsyncClient) -> None:
    response = await client.options("/api/products")
    assert_error(response, 405, "METHOD_NOT_ALLOWED")
    assert response.headers["allow"] == "GET, POST"


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
        assert documented <= allowed, (path, documented, allowed)
        checked += 1
    assert checked > 20

"""`page`, `limit` and `cursor` as a caller may write them: refused by their length before they are
converted or decoded, never a 500 (docs/api.md §5.5, §5.6)."""

from __future__ import annotations

import base64

import httpx
import pytest
from fastapi import FastAPI

from tests.factories.products import create_product
from tests.factories.users import auth_headers, create_admin, create_user
from tests.helpers import assert_error

LISTS = ["/api/products", "/api/claims", "/api/users", "/api/admin/products"]
MAX_PAGE = 2**63 - 1


@pytest.mark.parametrize("path", LISTS)
async def test_a_page_of_thousands_of_digits_is_an_invalid_page(
    app: FastAPI, client: httpx.AsyncClient, path: str
) -> None:
    """4,301 digits are past Python's integer-digit limit: converting them raised a 500."""
    headers = auth_headers(app, await create_admin(app))
    for page in ("9" * 4301, "1" * 20, str(MAX_PAGE + 1)):
        response = await client.get(path, params={"page": page}, headers=headers)
        assert_error(response, 400, "VALIDATION_INVALID_PAGE")


async def test_the_largest_page_number_is_an_empty_page(app: FastAPI, client: httpx.AsyncClient) -> None:
    owner = await create_user(app)
    await create_product(app, owner)
    response = await client.get(
        "/api/products", params={"page": f"000{MAX_PAGE}"}, headers=auth_headers(app, owner)
    )
    assert response.status_code == 200, response.text
    assert response.json()["data"] == [] and response.json()["meta"]["current_page"] == MAX_PAGE


@pytest.mark.parametrize("path", LISTS)
async def test_a_limit_of_thousands_of_digits_is_over_the_maximum(
    app: FastAPI, client: httpx.AsyncClient, path: str
) -> None:
    """Over 100 whatever its length; the value it asked for is said while it is a number one can hold."""
    headers = auth_headers(app, await create_admin(app))
    huge = await client.get(path, params={"limit": "9" * 4301}, headers=headers)
    assert assert_error(huge, 400, "VALIDATION_LIMIT_EXCEEDED")["details"] == {"max_limit": 100}
    large = await client.get(path, params={"limit": str(MAX_PAGE)}, headers=headers)
    details = assert_error(large, 400, "VALIDATION_LIMIT_EXCEEDED")["details"]
    assert details == {"max_limit": 100, "requested": MAX_PAGE}
    padded = await client.get(path, params={"limit": "0" * 5000 + "7"}, headers=headers)
    assert padded.status_code == 200, padded.text
    meta = padded.json()["meta"]
    assert meta.get("per_page", meta.get("itemsPerPage")) == 7


@pytest.mark.parametrize(
    "cursor",
    [
        "x" * 60_000,
        "." * 50_000,
        base64.urlsafe_b64encode(b"[" * 40_000).decode() + ".AAAA",
        "\u00e9" * 9_000 + "." + "\u00e9",
        "9" * 4301,
        "",
    ],
)
async def test_no_cursor_is_a_500_whatever_its_length(
    app: FastAPI, client: httpx.AsyncClient, cursor: str
) -> None:
    """A cursor is measured, then base64 and a MAC, and only then JSON this service signed: made-up
    content of any length is the cursor's 400."""
    owner = await create_user(app)
    response = await client.get("/api/products", params={"cursor": cursor}, headers=auth_headers(app, owner))
    body = assert_error(response, 400, "VALIDATION_FAILED")
    assert list(body["details"]["fields"]) == ["cursor"]

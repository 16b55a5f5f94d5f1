"""The claims list's filter (app/claims/dependencies.py): `status` one of the statuses, `productId` an id
written in ASCII digits within the ids' range, either left out meaning every claim."""

from __future__ import annotations

import httpx
import pytest
from fastapi import FastAPI

from app.claims.dependencies import claim_filter
from app.claims.repository import ClaimFilter
from app.core.ids import MAX_ID
from tests.factories.claims import create_claim
from tests.factories.products import create_product
from tests.factories.users import auth_headers, create_user
from tests.helpers import assert_error


async def test_the_query_becomes_the_filter() -> None:
    assert await claim_filter() == ClaimFilter()
    assert await claim_filter(status="resolved", product_id=7) == ClaimFilter(status="resolved", product_id=7)


async def test_the_filter_selects_by_status_and_product(app: FastAPI, client: httpx.AsyncClient) -> None:
    ann = await create_user(app)
    kettle, toaster = await create_product(app, ann), await create_product(app, ann)
    open_kettle = await create_claim(app, kettle)
    closed_kettle = await create_claim(app, kettle, status="closed")
    open_toaster = await create_claim(app, toaster)
    headers = auth_headers(app, ann)

    async def ids(query: str) -> set[int]:
        response = await client.get(f"/api/claims{query}", headers=headers)
        assert response.status_code == 200, response.text
        return {item["id"] for item in response.json()}

    assert await ids("") == {open_kettle.id, closed_kettle.id, open_toaster.id}
    assert await ids("?status=open") == {open_kettle.id, open_toaster.id}
    assert await ids(f"?productId={kettle.id}") == {open_kettle.id, closed_kettle.id}
    assert await ids(f"?productId={kettle.id}&status=closed") == {closed_kettle.id}
    assert await ids(f"?productId={MAX_ID}") == set()


@pytest.mark.parametrize(
    "query",
    [
        "productId=0",
        "productId=-3",
        f"productId={MAX_ID + 1}",
        "productId=+5",
        "productId=1_0",
        "productId=%204",
    ],
)
async def test_a_product_id_is_digits_within_range(
    app: FastAPI, client: httpx.AsyncClient, query: str
) -> None:
    response = await client.get(f"/api/claims?{query}", headers=auth_headers(app, await create_user(app)))
    assert "productId" in assert_error(response, 400, "VALIDATION_FAILED")["details"]["fields"]

"""Lists run a fixed number of queries whatever their length (page cache off, so every request computes)."""

from __future__ import annotations

import httpx
import pytest
from fastapi import FastAPI

from app.models import User
from tests.factories.claims import claim_cast, create_claim, create_message, mark_read_by
from tests.factories.products import create_product
from tests.factories.users import auth_headers, create_supplier, create_user
from tests.helpers import count_queries


async def _claims(app: FastAPI, customer: User, supplier: User, count: int) -> None:
    for _ in range(count):
        claim = await create_claim(app, await create_product(app, customer), supplier=supplier)
        await create_message(app, claim, customer)


async def _count(app: FastAPI, client: httpx.AsyncClient, path: str, user: User) -> int:
    with count_queries(app) as statements:
        response = await client.get(path, headers=auth_headers(app, user))
    assert response.status_code == 200, response.text
    return len(statements)


@pytest.mark.settings(cache_ttl=0)
@pytest.mark.parametrize(
    "path", ["/api/claims", "/api/claims?page=1&limit=50", "/api/admin/claims?limit=100"]
)
async def test_claim_lists_run_a_fixed_number_of_queries(
    app: FastAPI, client: httpx.AsyncClient, path: str
) -> None:
    customer, supplier = await create_user(app), await create_supplier(app)
    admin = await create_user(app, roles=["ROLE_ADMIN"])
    viewer = admin if "admin" in path else customer
    await _claims(app, customer, supplier, 1)
    one = await _count(app, client, path, viewer)
    await _claims(app, customer, supplier, 59)
    sixty = await _count(app, client, path, viewer)
    assert one == sixty
    items = (await client.get(path, headers=auth_headers(app, viewer))).json()
    items = items["data"] if isinstance(items, dict) else items
    assert len(items) == (50 if "limit=50" in path else 60)
    assert {item["messageCount"] for item in items} == {1}


@pytest.mark.settings(cache_ttl=0)
@pytest.mark.parametrize(
    "path",
    [
        "/api/claims/{id}/messages",
        "/api/claims/messages/{id}?limit=50",
        "/api/messages?limit=100",
        "/api/claims/{id}",
    ],
)
async def test_message_lists_run_a_fixed_number_of_queries(
    app: FastAPI, client: httpx.AsyncClient, path: str
) -> None:
    cast = await claim_cast(app)
    path = path.format(id=cast.claim.id)
    viewer = cast.admin if path.startswith("/api/messages") else cast.customer

    async def add(count: int) -> None:
        for number in range(count):
            sender = (cast.customer, cast.supplier, cast.admin)[number % 3]
            message = await create_message(app, cast.claim, sender, f"m{number}")
            if number % 2:
                await mark_read_by(app, message, cast.supplier if sender != cast.supplier else cast.customer)

    await add(1)
    one = await _count(app, client, path, viewer)
    await add(59)
    sixty = await _count(app, client, path, viewer)
    assert one == sixty

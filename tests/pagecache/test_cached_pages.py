"""How list routes use the page cache (app.pagecache.cached_pages): a repeated request is answered before
routing, after one statement that checks the page still holds, and counted as a hit; a page is not served
to a caller whose roles changed, whose account is gone or whose token expired, and no page is kept when
the cache is off. (The cache itself, its invalidation log and its days: test_cache.py.)"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import httpx
import pytest
from fastapi import FastAPI
from sqlalchemy import delete, update

from app.core.clock import frozen_time
from app.models import Product, User
from app.observability.metrics import series
from app.pagecache.cached_pages import authorization
from tests.factories.claims import claim_cast, create_message
from tests.factories.products import create_product
from tests.factories.users import auth_headers, create_admin, create_user
from tests.helpers import count_queries


async def _cache(client: httpx.AsyncClient, path: str, headers: dict[str, str]) -> None:
    """Reads the page twice: the second answer comes from the cache."""
    for _ in range(2):
        assert (await client.get(path, headers=headers)).status_code == 200


async def test_a_cached_page_is_not_served_after_a_role_change_made_behind_the_services_back(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    admin = await create_admin(app)
    headers = auth_headers(app, admin)
    await _cache(client, "/api/admin/products", headers)

    async with app.state.sessionmaker() as session, session.begin():  # no invalidation recorded
        await session.execute(update(User).where(User.id == admin.id).values(roles=["ROLE_USER"]))

    response = await client.get("/api/admin/products", headers=headers)
    assert response.status_code == 403 and response.json()["code"] == "FORBIDDEN"


async def test_a_cached_page_is_not_served_to_a_deleted_account(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    user = await create_user(app)
    headers = auth_headers(app, user)
    await create_product(app, user, name="Kettle")
    await _cache(client, "/api/products", headers)

    async with app.state.sessionmaker() as session, session.begin():  # no invalidation recorded
        await session.execute(delete(User).where(User.id == user.id))

    response = await client.get("/api/products", headers=headers)
    assert response.status_code == 401 and response.json()["code"] == "AUTH_TOKEN_INVALID"


async def test_a_cached_page_is_not_served_once_its_token_has_expired(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    user = await create_user(app)
    headers = auth_headers(app, user)
    await _cache(client, "/api/products", headers)

    ttl = app.state.settings.access_token_ttl
    with frozen_time(datetime.now(UTC) + timedelta(seconds=ttl + 1)):
        response = await client.get("/api/products", headers=headers)
    assert response.status_code == 401 and response.json()["code"] == "AUTH_TOKEN_EXPIRED"


async def test_a_repeated_request_is_answered_before_routing_after_one_statement(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    cast = await claim_cast(app)
    for number in range(3):
        await create_message(app, cast.claim, cast.customer, f"message {number}")
    headers = auth_headers(app, cast.customer)
    path = f"/api/claims/{cast.claim.id}/messages?page=1&limit=2"
    hits = series().cache_hits._value.get()

    with count_queries(app) as computing:
        first = await client.get(path, headers=headers)
    with count_queries(app) as answering:
        second = await client.get(path, headers=headers)

    assert first.status_code == second.status_code == 200
    assert second.content == first.content
    assert second.headers["link"] == first.headers["link"]  # computed with the body and kept with it
    assert len(computing) > 1 and len(answering) == 1  # the freshness check, nothing else
    assert series().cache_hits._value.get() == hits + 1

    other = await client.get(path.replace("page=1", "page=2"), headers=headers)  # another page, another key
    assert other.json()["data"] != first.json()["data"]


async def test_a_page_is_the_callers_own(app: FastAPI, client: httpx.AsyncClient) -> None:
    ann, bob = await create_user(app), await create_user(app)
    await create_product(app, ann, name="Ann's kettle")
    await _cache(client, "/api/products", auth_headers(app, ann))

    theirs = await client.get("/api/products", headers=auth_headers(app, bob))
    nobody = await client.get("/api/products")

    assert theirs.status_code == 200 and theirs.json() == []
    assert nobody.status_code == 401


@pytest.mark.settings(cache_ttl=0)
async def test_with_the_cache_off_every_request_is_computed(app: FastAPI, client: httpx.AsyncClient) -> None:
    user = await create_user(app)
    product = await create_product(app, user, name="Kettle")
    headers = auth_headers(app, user)
    await _cache(client, "/api/products", headers)
    async with app.state.sessionmaker() as session, session.begin():  # behind the service's back
        await session.execute(update(Product).where(Product.id == product.id).values(name="Sneaky"))

    with count_queries(app) as statements:
        response = await client.get("/api/products", headers=headers)

    assert [item["name"] for item in response.json()] == ["Sneaky"]
    assert len(statements) > 1
    assert app.state.page_cache._pages == {}


def test_the_authorization_header_is_read_raw_from_the_scope() -> None:
    assert (
        authorization({"headers": [(b"accept", b"*/*"), (b"authorization", b"Bearer abc")]}) == b"Bearer abc"
    )
    assert authorization({"headers": [(b"accept", b"*/*")]}) is None

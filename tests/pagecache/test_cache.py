"""The page cache's invalidation log: pruned to about one TTL, and pruning never serves a stale page."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

import httpx
from fastapi import FastAPI
from sqlalchemy import func, select, update

from app.core.clock import frozen_time
from app.models import CacheInvalidation, Product
from app.pagecache.cache import invalidate, prune
from app.pagecache.scopes import products_of
from tests.factories.products import create_product
from tests.factories.users import auth_headers, create_user


async def _rows(app: FastAPI) -> int:
    async with app.state.sessionmaker() as session:
        return int(await session.scalar(select(func.count()).select_from(CacheInvalidation)) or 0)


async def test_prune_drops_only_rows_older_than_the_window(app: FastAPI) -> None:
    then = datetime.now(UTC) - timedelta(hours=1)
    with frozen_time(then):
        async with app.state.sessionmaker() as session, session.begin():
            invalidate(session, "products:all", "users:all")
    async with app.state.sessionmaker() as session, session.begin():
        invalidate(session, "products:all")

    async with app.state.sessionmaker() as session, session.begin():
        await prune(session, timedelta(minutes=10))

    assert await _rows(app) == 1


async def test_a_pruned_log_makes_a_cached_page_be_computed_again_never_stale(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    user = await create_user(app)
    headers = auth_headers(app, user)
    product = await create_product(app, user, name="Kettle")
    async with app.state.sessionmaker() as session, session.begin():
        invalidate(session, products_of(user.id))  # the page is computed at a version the log knows

    async def listed() -> list[str]:
        response = await client.get("/api/products", headers=headers)
        assert response.status_code == 200, response.text
        return [item["name"] for item in response.json()]

    assert await listed() == ["Kettle"]
    # A change behind the service's back (no invalidation) is not seen: the page comes from the cache.
    async with app.state.sessionmaker() as session, session.begin():
        await session.execute(update(Product).where(Product.id == product.id).values(name="Sneaky"))
    assert await listed() == ["Kettle"]

    async with app.state.sessionmaker() as session, session.begin():
        await prune(session, timedelta(seconds=-1))  # everything
    assert await listed() == ["Sneaky"]


async def test_a_cached_page_lasts_no_longer_than_its_day(app: FastAPI, client: httpx.AsyncClient) -> None:
    """Warranty statuses are computed for a day: the next day's page is computed again, TTL or not."""
    user = await create_user(app)
    headers = auth_headers(app, user)
    await create_product(app, user, purchase_date=date(2025, 5, 31), warranty_period_months=1)  # to 6-30

    async def status() -> str:
        response = await client.get("/api/products", headers=headers)
        assert response.status_code == 200, response.text
        return str(response.json()[0]["warrantyStatus"])

    with frozen_time(datetime(2025, 6, 30, 12, tzinfo=UTC)):  # the last covered day
        assert [await status(), await status()] == ["expiring_soon", "expiring_soon"]
    with frozen_time(datetime(2025, 7, 1, 0, 0, 1, tzinfo=UTC)):
        assert await status() == "expired"

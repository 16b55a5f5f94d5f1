"""One lock order for the kept counts (app.derived.counter_locks): before inserting many products, a
PostgreSQL transaction takes every counter row those products can add to, creating missing ones at 0 and
adding nothing; SQLite, whose writers queue anyway, is left alone. (Two imports at once that deadlocked
without it: tests/products/test_import_concurrency.py.)"""

from __future__ import annotations

from datetime import date

import pytest
from fastapi import FastAPI
from sqlalchemy import select

from app.derived.count_triggers import FACET_SLOTS, SLOTS
from app.derived.counter_locks import KEYS_PER_STATEMENT, take_product_counters
from app.models import ProductExpiryCount, RowCount
from tests.factories.products import create_product
from tests.factories.users import create_user
from tests.helpers import count_queries


async def _row_counts(app: FastAPI) -> dict[tuple[str, int], int]:
    async with app.state.sessionmaker() as session:
        return {(row.name, row.slot): row.n for row in await session.scalars(select(RowCount))}


async def _day_counts(app: FastAPI) -> dict[tuple[date, int], int]:
    async with app.state.sessionmaker() as session:
        return {(row.day, row.slot): row.n for row in await session.scalars(select(ProductExpiryCount))}


async def test_sqlite_takes_nothing(app: FastAPI, is_postgres: bool) -> None:
    if is_postgres:
        pytest.skip("SQLite's case")
    async with app.state.sessionmaker() as session, session.begin():
        with count_queries(app) as statements:
            await take_product_counters(session, [("Acme", "Tools", date(2027, 1, 1))])
    assert statements == []
    assert await _row_counts(app) == {}


@pytest.mark.postgres_only
async def test_every_counter_row_a_product_can_add_to_is_there_and_unchanged(app: FastAPI) -> None:
    owner = await create_user(app)
    product = await create_product(app, owner, brand="Acme", category="Tools")
    before = await _row_counts(app)
    day = date(2030, 6, 1)

    async with app.state.sessionmaker() as session, session.begin():
        await take_product_counters(session, [("ACME", "tools", day), ("Gaggia", "Tools", day)])

    after = await _row_counts(app)
    assert {key: n for key, n in after.items() if key in before} == before  # nothing added
    assert {key for key in after if key[0] == "products"} == {("products", slot) for slot in range(SLOTS)}
    for name in ("products:brand:acme", "products:brand:gaggia", "products:category:tools"):
        assert {slot for key, slot in after if key == name} == set(range(FACET_SLOTS)), name
    assert sum(after.values()) == sum(before.values())
    days = await _day_counts(app)
    assert {(day, slot) for slot in range(FACET_SLOTS)} <= set(days) and days[(day, 0)] == 0
    assert days[(product.warranty_expires_on, product.id % FACET_SLOTS)] == 1


@pytest.mark.postgres_only
async def test_more_keys_than_one_statement_holds_go_in_several(app: FastAPI) -> None:
    count = KEYS_PER_STATEMENT // FACET_SLOTS + 10
    brands = [(f"Brand {n}", "Tools", date(2030, 1, 1)) for n in range(count)]
    async with app.state.sessionmaker() as session, session.begin():
        with count_queries(app) as statements:
            await take_product_counters(session, brands)
    assert len([s for s in statements if "INSERT INTO row_counts" in s]) == 2
    assert len(await _row_counts(app)) == SLOTS + FACET_SLOTS * (len(brands) + 1)

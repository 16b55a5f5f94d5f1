"""The triggers that keep `row_counts` and `product_expiry_counts` (app.derived.count_triggers): each write
adds to its counts in its own transaction, spread over slots; dropped, they count nothing until created
again; the facet counts of existing products can be filled in; and a migration run puts back triggers a
SQLite table rebuild dropped. (That the admin lists' totals equal a COUNT(*) after any mix of writes:
tests/derived/test_counts.py.)"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from datetime import date
from pathlib import Path
from typing import Any

from fastapi import FastAPI
from sqlalchemy import Connection, delete, func, select, text, update
from sqlalchemy.ext.asyncio import create_async_engine

from app.core.clock import utc_now
from app.core.migrate import upgrade
from app.derived.count_triggers import (
    CLAIM_SLOTS,
    FACET_SLOTS,
    SLOTS,
    create_count_triggers,
    create_facet_triggers,
    drop_count_triggers,
    drop_facet_triggers,
    fill_facet_counts,
)
from app.models import Claim, Message, Product, ProductExpiryCount, RowCount
from tests.factories.claims import create_claim, create_message
from tests.factories.products import create_product
from tests.factories.users import create_supplier, create_user


async def _counts(app: FastAPI) -> dict[str, int]:
    """Every kept count (slots summed), zeros left out."""
    async with app.state.sessionmaker() as session:
        rows = await session.execute(select(RowCount.name, func.sum(RowCount.n)).group_by(RowCount.name))
        return {name: int(n) for name, n in rows if n}


async def _days(app: FastAPI) -> dict[date, int]:
    async with app.state.sessionmaker() as session:
        rows = await session.execute(
            select(ProductExpiryCount.day, func.sum(ProductExpiryCount.n)).group_by(ProductExpiryCount.day)
        )
        return {day: int(n) for day, n in rows if n}


async def _slots(app: FastAPI, name: str) -> set[int]:
    async with app.state.sessionmaker() as session:
        return set(await session.scalars(select(RowCount.slot).where(RowCount.name == name)))


async def _run(app: FastAPI, ddl: Callable[[Connection], Any]) -> None:
    async with app.state.engine.begin() as connection:
        await connection.run_sync(ddl)


async def test_each_write_adds_to_its_counts_spread_over_slots(app: FastAPI, is_postgres: bool) -> None:
    customer, supplier = await create_user(app), await create_supplier(app)
    products = [await create_product(app, customer, brand="ACME", category="Tools") for _ in range(20)]
    claim = await create_claim(app, products[0], supplier=supplier)
    messages = [await create_message(app, claim, customer, f"m{n}") for n in range(6)]
    counts = await _counts(app)
    assert counts["products"] == 20 and counts["claims"] == 1 and counts["claims:open"] == 1
    assert counts["messages"] == 6 and counts["messages:unread"] == 6
    assert counts[f"claim:{claim.id}:messages"] == 6
    assert counts["products:brand:acme"] == counts["products:category:tools"] == 20  # lower-cased
    assert await _slots(app, "products") == {product.id % SLOTS for product in products}
    assert await _slots(app, f"claim:{claim.id}:messages") == {m.id % CLAIM_SLOTS for m in messages}
    assert await _slots(app, "products:brand:acme") <= set(range(FACET_SLOTS))

    async with app.state.sessionmaker() as session, session.begin():
        await session.execute(update(Claim).values(status="in_progress"))
        await session.execute(
            update(Message).where(Message.id == messages[0].id).values(recipient_read_at=utc_now())
        )
        await session.execute(
            update(Product).where(Product.id == products[1].id).values(brand="Gaggia", category="tools")
        )
    counts = await _counts(app)
    assert "claims:open" not in counts and counts["claims:in_progress"] == 1 and counts["claims"] == 1
    assert counts["messages:unread"] == 5 and counts["messages"] == 6
    assert counts["products:brand:acme"] == 19 and counts["products:brand:gaggia"] == 1
    assert counts["products:category:tools"] == 20

    async with app.state.sessionmaker() as session, session.begin():  # the cascade counts too
        await session.execute(delete(Product).where(Product.id == products[0].id))
    counts = await _counts(app)
    assert counts["products"] == 19 and "claims" not in counts and "messages" not in counts
    if not is_postgres:  # a deleted claim's own count goes with it
        assert await _slots(app, f"claim:{claim.id}:messages") == set()
    # On PostgreSQL the cascaded messages' triggers run after the claim's and leave the slots of a claim
    # that is gone behind, at minus its messages: nothing reads them (ids are never reused).


async def test_a_product_counts_on_its_expiry_day_and_a_voided_one_as_void(app: FastAPI) -> None:
    owner = await create_user(app)
    kept = await create_product(app, owner, purchase_date=date(2026, 1, 15), warranty_period_months=24)
    voided = await create_product(app, owner, purchase_date=date(2026, 1, 15), warranty_period_months=12)
    assert await _days(app) == {kept.warranty_expires_on: 1, voided.warranty_expires_on: 1}

    async with app.state.sessionmaker() as session, session.begin():
        await session.execute(
            update(Product).where(Product.id == voided.id).values(warranty_voided_at=utc_now())
        )
    assert await _days(app) == {kept.warranty_expires_on: 1}
    assert (await _counts(app))["products:void"] == 1

    async with app.state.sessionmaker() as session, session.begin():
        await session.execute(update(Product).values(warranty_expires_on=date(2030, 1, 1)))
    assert await _days(app) == {date(2030, 1, 1): 1}


async def test_dropped_triggers_count_nothing_until_created_again(app: FastAPI) -> None:
    owner = await create_user(app)
    await _run(app, drop_count_triggers)
    await _run(app, drop_facet_triggers)
    try:
        await create_product(app, owner, brand="Acme")
        assert await _counts(app) == {} and await _days(app) == {}
    finally:
        await _run(app, create_count_triggers)
        await _run(app, create_facet_triggers)
    await create_product(app, owner, brand="Acme")
    counts = await _counts(app)
    assert counts["products"] == 1 and counts["products:brand:acme"] == 1  # counting again, from here on
    await _run(app, create_count_triggers)  # created twice: still one trigger per write
    await create_product(app, owner, brand="Acme")
    assert (await _counts(app))["products"] == 2


async def test_the_facet_counts_of_existing_products_are_filled_in(app: FastAPI) -> None:
    owner = await create_user(app)
    for brand, category in (("Acme", "Tools"), ("ACME", "Kitchen"), ("Gaggia", "Kitchen")):
        await create_product(app, owner, brand=brand, category=category)
    expected_counts, expected_days = await _counts(app), await _days(app)
    async with app.state.sessionmaker() as session, session.begin():
        await session.execute(delete(RowCount).where(RowCount.name.startswith("products:")))
        await session.execute(delete(ProductExpiryCount))

    await _run(app, fill_facet_counts)

    assert await _counts(app) == expected_counts and await _days(app) == expected_days
    assert expected_counts["products:brand:acme"] == 2 and expected_counts["products:category:kitchen"] == 2


async def test_sqlite_count_triggers_outlive_a_later_table_rebuild(tmp_path: Path) -> None:
    """A later migration that rebuilds a table in batch mode drops its triggers with it; every migration
    run puts them back, so the counts keep counting."""
    url = f"sqlite+aiosqlite:///{tmp_path / 'rebuilt.db'}"
    await asyncio.to_thread(upgrade, url)
    engine = create_async_engine(url)
    triggers = text("SELECT name FROM sqlite_master WHERE type = 'trigger' ORDER BY name")
    async with engine.begin() as connection:
        before = list(await connection.scalars(triggers))
        await connection.execute(text("DROP TRIGGER products_count_insert"))  # what a rebuild does
    await asyncio.to_thread(upgrade, url)  # nothing left to apply
    async with engine.begin() as connection:
        assert list(await connection.scalars(triggers)) == before
        assert "products_count_insert" in before
    await engine.dispose()
